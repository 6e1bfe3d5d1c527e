#!/usr/bin/env python3
"""Per-iteration models from the main loop stats finds (issue 27 item 3):
the cg example traced at 2 ranks with sizes 16, 32, 64 and 10, 20, 30
iterations; `stats --json` must give main_loop.iterations = the -i value,
and `model --per-iteration` (no iters label, no MPI_Pcontrol) must predict
the held-out run (size 128, 40 iterations) exactly for the calls made only
in the loop (Irecv, Send, Wait: a fixed number per iteration).

usage: loop_iters_test.py MPICAST EXAMPLES_DIR
"""
import json
import os
import subprocess
import sys
import tempfile

MPICAST, EXAMPLES = sys.argv[1], sys.argv[2]
env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
RUNS = [(16, 10), (32, 20), (64, 30), (128, 40)]
failed = False


def check(cond, what):
    global failed
    if not cond:
        print("FAIL:", what)
        failed = True


with tempfile.TemporaryDirectory() as tmp:
    files = []
    for n, it in RUNS:
        out = os.path.join(tmp, f"cg{n}")
        subprocess.run([MPICAST, "trace", "-o", out, "--", "mpirun", "--oversubscribe", "-np",
                        "2", os.path.join(EXAMPLES, "cg"), "-s", str(n), "-i", str(it)],
                       env=env, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=300)
        js = out + ".json"
        with open(js, "w") as f:
            subprocess.run([MPICAST, "stats", out, "--json"], stdout=f, check=True, timeout=120)
        with open(js) as f:
            loop = json.load(f)["main_loop"]
        print(f"cg -s {n} -i {it}: main loop {loop['iterations']} iterations, "
              f"{[r['calls_per_iteration'] for r in loop['per_rank']]} calls per iteration")
        check(loop["iterations"] == it, f"n={n}: main loop {loop['iterations']} != {it}")
        check(loop["ranks_with_loop"] == 2, f"n={n}: {loop['ranks_with_loop']} ranks with a loop")
        files.append(f"{js}:n={n}")
    r = subprocess.run([MPICAST, "model", *files, "--by", "n", "--per-iteration", "--predict",
                        "n=128,iters=40", "--json"], capture_output=True, text=True, timeout=120)
    check(r.returncode == 0, f"model exit {r.returncode}: {r.stderr}")
    if r.returncode == 0:
        doc = json.loads(r.stdout)
        got = {(f["function"], f.get("metric", "calls")): f for f in doc["functions"]}
        for fn in ("MPI_Irecv", "MPI_Send", "MPI_Wait"):
            s = got.get((fn, "calls"), {})
            print(f"{fn}: predicted {s.get('prediction')}, measured {s.get('measured')}, "
                  f"per iteration {s.get('prediction_per_iteration')}")
            check(s.get("measured") is not None and s.get("prediction") is not None and
                  abs(s["prediction"] - s["measured"]) < 1e-9 * s["measured"],
                  f"{fn}: {s.get('prediction')} != {s.get('measured')}")
sys.exit(1 if failed else 0)
