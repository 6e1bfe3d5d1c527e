#!/usr/bin/env python3
"""Issue 20 item 6: Debian MPI applications traced at 1, 2, 4 and 8 ranks and
extrapolated to 16 and 32, against real traces there.

The applications are installed by hand (`apt-get install hpcc lammps`), not
project dependencies: hpcc (N = 400, NB = 40, the HPL grids of
bench/model_error_apps.py) and LAMMPS (bench/in.lj, box edge 8, 40 steps: a
fixed problem, so strong scaling). Each is traced once per process count (Open
MPI, oversubscribed: counts and bytes are exact, times are not). For every set
of small traces ({1,2,4,8}, {2,4,8}, {4,8}, {8}) and target (16, 32):

* refused: exit 1 and the one-line reason (what was not explained);
* written: events equal to the real trace's (`dump --no-times`), events equal
  but sizes, per-function calls and bytes against the real trace's `stats`, and
  `predict` with compute scaled away (cpu.speed=1e6) against the real trace's.

usage: bench/extrap_apps.py BUILD_DIR [--work DIR] [--apps hpcc,lammps]
  --work DIR  keep the traces there and reuse them on a rerun
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from apps_inputs import IN_LJ, hpccinf  # noqa: E402

B = os.path.abspath(sys.argv[1])
MPICAST = os.path.join(B, "bin", "mpicast")
WORK = sys.argv[sys.argv.index("--work") + 1] if "--work" in sys.argv else None
APPS = (sys.argv[sys.argv.index("--apps") + 1] if "--apps" in sys.argv
        else "hpcc,lammps").split(",")
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1")
SMALL = [[1, 2, 4, 8], [2, 4, 8], [4, 8], [8]]
TARGETS = [16, 32]


def command(app, rundir, p):
    if app == "hpcc":
        with open(os.path.join(rundir, "hpccinf.txt"), "w") as f:
            f.write(hpccinf(400, 40, p))
        return ["hpcc"]
    with open(os.path.join(rundir, "in.lj"), "w") as f:
        f.write(IN_LJ)
    return ["lmp", "-in", "in.lj", "-var", "s", "8", "-var", "t", "40", "-log", "none",
            "-screen", "none"]


def trace(work, app, p):
    rundir = os.path.join(work, "%s-p%d" % (app, p))
    out = os.path.join(rundir, "trace")
    if os.path.exists(os.path.join(out, "meta.json")):
        return out
    shutil.rmtree(rundir, ignore_errors=True)
    os.makedirs(rundir)
    subprocess.run([MPICAST, "trace", "-o", out, "--", "mpirun", "-np", str(p), "--oversubscribe"]
                   + command(app, rundir, p), cwd=rundir, env=ENV, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return out


def run(args):
    return subprocess.run([MPICAST] + args, env=ENV, capture_output=True, text=True)


def functions(d):
    js = json.loads(run(["stats", "--json", d]).stdout)
    return {name: (f["calls"], f["bytes"]) for name, f in js["functions"].items()}


def predicted(d):
    p = run(["predict", d, "--json", "--no-breakdown", "--set", "cpu.speed=1e6"])
    return json.loads(p.stdout)["predicted_time"] if p.returncode == 0 else None


def compare(real, pseudo):
    a = run(["dump", "--no-times", real]).stdout.splitlines()
    b = run(["dump", "--no-times", pseudo]).stdout.splitlines()
    strip = lambda l: re.sub(r"(bytes2?|vals)=\S+", "", l)
    equal = sum(x == y for x, y in zip(a, b))
    but_sizes = sum(strip(x) == strip(y) for x, y in zip(a, b))
    fr, fp = functions(real), functions(pseudo)
    calls = sum(fr[f][0] == fp.get(f, (None,))[0] for f in fr)
    nbytes = sum(fr[f][1] == fp.get(f, (None, None))[1] for f in fr)
    tr, tp = predicted(real), predicted(pseudo)
    diff = "%+.2f %%" % (100 * (tp - tr) / tr) if tr and tp is not None else "-"
    return ("%d of %d events equal (%d but sizes); functions with equal calls %d/%d, bytes "
            "%d/%d; predict %s" % (equal, len(a), but_sizes, calls, len(fr), nbytes, len(fr),
                                   diff))


def main():
    work = WORK or tempfile.mkdtemp(prefix="mc_extrap_apps_")
    os.makedirs(work, exist_ok=True)
    print("| application | traced at | target | result |\n|---|---|---|---|")
    try:
        for app in APPS:
            traces = {p: trace(work, app, p) for p in sorted({p for s in SMALL for p in s}
                                                             | set(TARGETS))}
            for small in SMALL:
                for target in TARGETS:
                    out = os.path.join(work, "x-%s-%s-%d" % (app, "_".join(map(str, small)),
                                                             target))
                    shutil.rmtree(out, ignore_errors=True)
                    p = run(["extrapolate"] + [traces[s] for s in small]
                            + ["--ranks", str(target), "-o", out])
                    if p.returncode:
                        msg = p.stderr.strip().splitlines()[-1] if p.stderr.strip() else ""
                        msg = msg.replace(work + "/", "").replace("/trace", "")
                        result = "refused (exit %d): `%s`" % (p.returncode, msg)
                    else:
                        result = compare(traces[target], out)
                    shutil.rmtree(out, ignore_errors=True)
                    print("| %s | %s | %d | %s |" % (app, ", ".join(map(str, small)), target,
                                                     result), flush=True)
    finally:
        if not WORK:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
