#!/usr/bin/env python3
"""`mpicast model --per-iteration` with the calls `stats --json` counted
inside the main loop (`main_loop_calls`, `main_loop_bytes`; issue 27): runs
of ONE iteration count, as the study's problem sizes are, where the totals
cannot tell set-up calls from calls per iteration (synthesised stats files,
4 ranks, counts per process, n = 1, 2, 4, 8 at 10 iterations, predicting
n = 16 at 40):

* a function called once at set-up and twice per iteration (cg's Allreduce)
  is set-up + per iteration from the measured split and predicts 81 exactly
  (per iteration alone predicts 84);
* a set-up part that grows with n (n + 3 per iteration) gets its own law;
* a function called every 5th iteration (2 calls in 10 iterations: fewer
  calls than iterations, which alone keeps it per run) is per iteration;
* a function wholly outside the loop stays per run, one wholly inside per
  iteration, with their runner-ups;
* a prediction far outside the runs is warned about, as without the split;
* a function whose loop calls stats did not know (null: polls) and runs
  whose label gives other iterations than their main loop's are modelled
  as without the split.

usage: loop_split_test.py MPICAST
"""
import json
import os
import tempfile

from modelcli import check, finish, model_doc
RANKS = 4
SETUP = "set-up+per-iteration"


def counts(n, it):
    """name -> (calls per process, of them inside the loop or None)."""
    return {"MPI_Allreduce": (2 * it + 1, 2 * it),
            "MPI_Bcast": (n + 3 * it, 3 * it),
            "MPI_Sendrecv": (it / 5, it / 5),
            "MPI_Init": (1, 0),
            "MPI_Send": (2 * it, 2 * it),
            "MPI_Test": (5 * it, None)}


def stats(path, n, it, loop_iters):
    fns = {}
    for k, (c, lc) in counts(n, it).items():
        fns[k] = {"calls": RANKS * c, "bytes": 8 * RANKS * c, "time": 0.001 * c,
                  "main_loop_calls": None if lc is None else RANKS * lc,
                  "main_loop_bytes": None if lc is None else 8 * RANKS * lc}
    doc = {"ranks": RANKS, "app_time": 1.0, "truncated": False, "warnings": [],
           "functions": fns, "main_loop": {"iterations": loop_iters}}
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def model(*args):
    return {f["function"]: f for f in model_doc(*args).get("functions", [])}


with tempfile.TemporaryDirectory() as tmp:
    files = [stats(os.path.join(tmp, f"r{n}.json"), n, 10, 10) + f":n={n}" for n in (1, 2, 4, 8)]
    files.append(stats(os.path.join(tmp, "r16.json"), 16, 40, 40) + ":n=16")
    r = model(*files, "--by", "n", "--per-iteration", "--predict", "n=16,iters=40",
              "--metric", "calls")
    want = {"MPI_Allreduce": (SETUP, 81), "MPI_Bcast": (SETUP, 136),
            "MPI_Sendrecv": ("per-iteration", 8), "MPI_Init": ("per-run", 1),
            "MPI_Send": ("per-iteration", 80)}
    for fn, (norm, total) in want.items():
        f = r.get(fn, {})
        check(f.get("normalised") == norm, f"{fn}: {norm}, got {f.get('normalised')} "
                                           f"({f.get('normalised_errors')})")
        check(f.get("measured") == total, f"{fn}: measured {f.get('measured')} != {total}")
        check(abs((f.get("prediction") or -1) - total) < 1e-9 * total,
              f"{fn}: predicted {f.get('prediction')} != {total} ({f.get('formula')})")
        su = f.get("setup")
        check((su is not None) == (norm == SETUP), f"{fn}: setup {su}")
        if su:
            check(su.get("measured") is True, f"{fn}: the set-up part is measured: {su}")
    check(r.get("MPI_Bcast", {}).get("setup", {}).get("family") == "linear"
          and r.get("MPI_Bcast", {}).get("formula") == "(1*n) + iters*(3)",
          f"Bcast: a linear set-up part: {r.get('MPI_Bcast', {}).get('setup')} "
          f"{r.get('MPI_Bcast', {}).get('formula')}")
    for fn in ("MPI_Init", "MPI_Send"):  # the kept models, runner-up included
        check(r.get(fn, {}).get("runner_up") is not None, f"{fn}: a runner-up")
    t = r.get("MPI_Test", {})
    check(t.get("normalised") != SETUP and abs((t.get("prediction") or -1) - 200) < 1e-9,
          f"Test (loop calls not known): as without the split, 200: {t.get('normalised')} "
          f"{t.get('prediction')}")
    # bytes follow the same split
    rb = model(*files, "--by", "n", "--per-iteration", "--predict", "n=16,iters=40",
               "--metric", "bytes", "--function", "MPI_Allreduce")
    f = rb.get("MPI_Allreduce", {})
    check(f.get("normalised") == SETUP and abs((f.get("prediction") or -1) - 648) < 1e-9,
          f"Allreduce bytes: 8 * 81 = 648, got {f.get('normalised')} {f.get('prediction')}")

    # a prediction far outside the runs keeps its warning under the split
    r = model(*files, "--by", "n", "--per-iteration", "--predict", "n=100,iters=40",
              "--metric", "calls", "--function", "MPI_Allreduce")
    f = r.get("MPI_Allreduce", {})
    check(f.get("normalised") == SETUP and any("far outside" in w for w in f.get("warnings", [])),
          f"n=100: set-up + per iteration with the range warning: {f.get('normalised')} "
          f"{f.get('warnings')}")

    # ---- labels with other iterations than the runs' main loops: no split
    lab = [stats(os.path.join(tmp, f"l{n}.json"), n, 10, 7) + f":n={n},iters=10"
           for n in (1, 2, 4, 8)]
    lab.append(stats(os.path.join(tmp, "l16.json"), 16, 40, 7) + ":n=16,iters=40")
    r = model(*lab, "--by", "n", "--per-iteration", "--predict", "n=16,iters=40",
              "--metric", "calls", "--function", "MPI_Allreduce")
    f = r.get("MPI_Allreduce", {})
    check(f.get("normalised") != SETUP and abs((f.get("prediction") or -1) - 84) < 1e-9,
          f"iters not the main loop's: no split, per iteration 2.1 x 40 = 84: "
          f"{f.get('normalised')} {f.get('prediction')}")

finish()
