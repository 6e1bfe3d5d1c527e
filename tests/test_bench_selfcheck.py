#!/usr/bin/env python3
"""Self-consistency of mpicast-bench (issue 4, "How it is verified"): a
ping-pong traced on this machine (the ring example at 2 ranks), replayed
with the platform just measured on the same machine, predicts the traced
time; both network models, loggp and table.

The machine running the tests is shared: a rank descheduled inside MPI shows
up in the trace as a long MPI call the replay cannot know of. So each trace
is taken up to 8 times and the least disturbed run (the shortest) is kept, as the
bench keeps the least disturbed of its measurements. The platform can be
measured while disturbed too (predictions then all too slow): when a case
misses the bound, the platform is measured again (at most 3 platforms) and the
best platform's figures are kept. The bound asserted
is looser than the 10 % the method reaches on a quiet machine
(--bound, default 0.5; docs/bench.md gives the figures). When even the best
runs miss it and the load average is above twice the cores, the verdict is
"skipped" (exit 77), not "passed". Prints one line per case with both errors.

usage: test_bench_selfcheck.py --mpicast M --bench B --ring RING [--flavour ompi|mpich]
                               [--bound 0.5] [--keep DIR]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

# (doubles per message, round trips): a few ms to a few tens of ms each;
# 8 B and 1 KiB are eager, 32 KiB is above the eager limit of both MPIs'
# shared-memory transports
CASES = [(1, 4000), (128, 3000), (4096, 300)]


def run(cmd, **kw):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)
    if r.returncode != 0:
        sys.exit("FAIL: %s: exit %d\n%s%s" % (" ".join(cmd), r.returncode, r.stdout, r.stderr))
    return r.stdout


def check_platform(a, env, mpirun, tmp, plat):
    """Largest |error| over CASES, each with its least disturbed trace."""
    worst = 0.0
    for doubles, iters in CASES:
        best = None
        for k in range(8):
            d = os.path.join(tmp, "ring%d_%d" % (doubles, k))
            shutil.rmtree(d, ignore_errors=True)
            run([a.mpicast, "trace", "-o", d, "--"] + mpirun +
                ["-np", "2", a.ring, "-s", str(doubles), "-i", str(iters)], env=env)
            traced = json.loads(run([a.mpicast, "stats", d, "--json"]))["app_time"]
            if best is not None and traced >= best[0]:
                continue
            errs = {}
            for model in ("loggp", "table"):
                out = run([a.mpicast, "predict", d, "--platform", plat, "--json",
                           "--set", "network.model=" + model])
                pred = json.loads(out)["predicted_time"]
                errs[model] = (pred - traced) / traced
            best = (traced, errs, k + 1)
            # a run this close was not disturbed: no need for more
            if max(abs(e) for e in errs.values()) <= 0.1:
                break
        traced, errs, runs = best
        print("%s ping-pong %7d B x %5d: traced %.6f s (run %d kept), loggp %+.1f %%, "
              "table %+.1f %%" % (a.flavour, 8 * doubles, iters, traced, runs,
                                  100 * errs["loggp"], 100 * errs["table"]))
        worst = max(worst, abs(errs["loggp"]), abs(errs["table"]))
    return worst


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mpicast", required=True)
    ap.add_argument("--bench", required=True)
    ap.add_argument("--ring", required=True)
    ap.add_argument("--flavour", default="ompi")
    ap.add_argument("--bound", type=float, default=0.5)
    ap.add_argument("--keep")
    a = ap.parse_args()
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    mpirun = ["mpirun", "--oversubscribe"] if a.flavour == "ompi" else ["mpirun.mpich"]
    tmp = a.keep or tempfile.mkdtemp(prefix="mc_selfcheck")
    os.makedirs(tmp, exist_ok=True)
    try:
        worst = None
        for attempt in range(3):
            plat = os.path.join(tmp, "platform%d.ini" % attempt)
            run(mpirun + ["-np", "2", a.bench, "-o", plat, "--max-size", "1MiB", "--quiet"],
                env=env)
            w = check_platform(a, env, mpirun, tmp, plat)
            worst = w if worst is None else min(worst, w)
            if worst <= a.bound:
                break
            print("platform %d: largest error %.1f %%: measuring the platform again" %
                  (attempt + 1, 100 * w))
        if worst > a.bound:
            load, cores = os.getloadavg()[0], os.cpu_count() or 1
            if load > 2 * cores:  # every run disturbed: no verdict on the model
                print("SKIP: largest error %.1f %% with load %.1f on %d cores" %
                      (100 * worst, load, cores))
                sys.exit(77)
            sys.exit("FAIL: largest error %.1f %% above the bound %.0f %%" %
                     (100 * worst, 100 * a.bound))
    finally:
        if not a.keep:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
