#!/usr/bin/env python3
"""Real-run check of `mpicast predict` (issue 3): trace each example at 2 ranks
on this machine, replay it, and compare the predicted time with the measured
one over the same span.

Usage: bench/accuracy_check.py BUILD [--platform FILE] [--set K=V]... [--reps N]
       [--only NAME,...] [--keep DIR] [--scale X]

BUILD holds bin/mpicast, lib/libmpicast-trace.so and examples/. The measured
time of a rank is its own Init-end -> Finalize-start span from the trace
(the span the replay covers: the replay starts every rank at its Init's end
and stops at its Finalize); the program's figure is the largest over ranks,
compared with predicted_time (the latest rank's end). "comm setup share" is
the measured time spent in communicator management (Cart_create,
Comm_split, ...), which the replay treats as free local calls.

Each example is traced --reps times (default 5) and the fastest run is kept:
on a shared machine the slower runs are those where the OS descheduled a
rank (a busy-polling MPI rank waiting for a descheduled partner), which no
replay of the program can know about. The prediction is made with the
default platform and, with --platform, also with that file (e.g. one
measured here by mpicast-bench). Prints a Markdown table. Python 3 standard
library only."""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

# name, arguments: sizes chosen so that a 2-rank run takes tens of ms
EXAMPLES = [
    ("ring", ["-s", "1024", "-i", "2000"]),
    ("halo1d", ["-s", "4096", "-i", "2000"]),
    ("halo2d", ["-s", "64", "-i", "2000"]),
    ("halo3d", ["-s", "16", "-i", "1000"]),
    ("cg", ["-s", "64", "-i", "1000"]),
    ("fft", ["-s", "256", "-i", "1000"]),
    ("master_worker", ["-s", "1024", "-i", "2000"]),
]

LINE = re.compile(r"^(\d+) (\w+) .*\bstart=(-?\d+) end=(-?\d+)")


# communicator management: replayed as free local calls (membership only)
SETUP_OPS = {"Comm_dup", "Comm_split", "Comm_create", "Comm_free", "Cart_create", "Cart_sub",
             "Graph_create", "Dist_graph_create_adjacent", "Intercomm_create"}


def spans(mpicast, tdir):
    """Per rank: (Init end, Finalize start) in ns from `mpicast dump`, and the
    largest per-rank time spent in communicator management calls (s)."""
    out = subprocess.run([mpicast, "dump", tdir], check=True, capture_output=True,
                         text=True).stdout
    init, fin, setup = {}, {}, {}
    for line in out.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        r, op, start, end = int(m.group(1)), m.group(2), int(m.group(3)), int(m.group(4))
        if op == "Init" or op == "Init_thread":
            init[r] = end
        elif op == "Finalize":
            fin[r] = start
        elif op in SETUP_OPS:
            setup[r] = setup.get(r, 0) + (end - start)
    return {r: (init[r], fin[r]) for r in init if r in fin}, max(setup.values(), default=0) * 1e-9


def predict(mpicast, tdir, platform_args):
    return json.loads(subprocess.run([mpicast, "predict", tdir, "--json"] + platform_args,
                                     check=True, capture_output=True, text=True).stdout)


def one_run(b, name, args, keep):
    exe = os.path.join(b, "examples", name)
    tdir = tempfile.mkdtemp(prefix=f"acc-{name}-", dir=keep)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    mpicast = os.path.join(b, "bin", "mpicast")
    subprocess.run([mpicast, "trace", "-o", tdir, "--", "mpirun", "--oversubscribe", "-np", "2",
                    exe] + args, check=True, capture_output=True, env=env)
    sp, setup = spans(mpicast, tdir)
    measured = max(f - i for i, f in sp.values()) * 1e-9
    return {"measured": measured, "dir": tdir, "mpicast": mpicast, "setup": setup,
            "per_rank": {r: (f - i) * 1e-9 for r, (i, f) in sp.items()}}


def errors(run, pred):
    """(error of the program's time, worst per-rank error)."""
    per_rank_pred = {p["rank"]: p["end"] for p in pred["per_rank"]}
    meas = run["per_rank"]
    return ((pred["predicted_time"] - run["measured"]) / run["measured"],
            max(abs(per_rank_pred[r] - meas[r]) / meas[r] for r in meas))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--platform", help="a platform file to predict with too")
    ap.add_argument("--set", action="append", default=[], help="KEY=VALUE for that platform")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--scale", type=float, default=1.0, help="multiplies the iterations")
    ap.add_argument("--only")
    ap.add_argument("--keep", help="directory for the traces (default: a temporary one)")
    a = ap.parse_args()
    plat = (["--platform", a.platform] if a.platform else []) + \
        [x for kv in a.set for x in ("--set", kv)]
    keep = a.keep or tempfile.mkdtemp(prefix="mpicast-accuracy-")
    os.makedirs(keep, exist_ok=True)
    only = set(a.only.split(",")) if a.only else None
    head = "| example | arguments | runs: fastest / median (s) | default platform: predicted (s), error |"
    rule = "|---|---|---|---|"
    if plat:
        head += " measured platform: predicted (s), error | worst rank error |"
        rule += "---|---|"
    print(head + " compute share | comm setup share |")
    print(rule + "---|---|")
    for name, args in EXAMPLES:
        if only and name not in only:
            continue
        args = [str(max(1, int(int(v) * a.scale))) if k == "-i" else v
                for k, v in zip([""] + args[:-1], args)]
        runs = sorted((one_run(a.build, name, args, keep) for _ in range(a.reps)),
                      key=lambda x: x["measured"])
        best = runs[0]
        med = statistics.median(x["measured"] for x in runs)
        pd = predict(best["mpicast"], best["dir"], [])
        ed, rd = errors(best, pd)
        row = (f"| {name} | `{' '.join(args)}` | {best['measured']:.4f} / {med:.4f} | "
               f"{pd['predicted_time']:.4f}, {ed * 100:+.1f} % |")
        share = pd["compute_time"]["max"] / pd["predicted_time"]
        if plat:
            pm = predict(best["mpicast"], best["dir"], plat)
            em, rm = errors(best, pm)
            row += f" {pm['predicted_time']:.4f}, {em * 100:+.1f} % | {rm * 100:.1f} % |"
            share = pm["compute_time"]["max"] / pm["predicted_time"]
        print(row + f" {share * 100:.0f} % | {best['setup'] / best['measured'] * 100:.1f} % |",
              flush=True)
    print(f"\ntraces kept in {keep}", file=sys.stderr)


if __name__ == "__main__":
    main()
