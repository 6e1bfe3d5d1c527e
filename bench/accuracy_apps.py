#!/usr/bin/env python3
"""Same-scale accuracy of `mpicast` on real Debian MPI applications (issue 21,
item 8; docs/accuracy.md, "Real applications").

Usage: bench/accuracy_apps.py BUILD [--platform FILE] [--reps N] [--ranks 2,4]
       [--only APP,...] [--work DIR] [--set KEY=VALUE]... [--idle SHARE]
       [--max-wait SECONDS]

BUILD holds bin/mpicast and bin/mpicast-bench. Without --platform the
platform is measured first (`mpirun -np 2 mpicast-bench -o WORK/here.ini`).
Each application is traced --reps times (default 5) with
`mpicast trace -- mpirun --oversubscribe -np P ...`; the run with the
shortest measured time (MPI_Init end -> MPI_Finalize start, the span the
replay covers) is kept and checked with `mpicast validate --json` on the
platform: measured vs predicted run time, and the error of the computation
and of the communication (MPIETE Eq. 8). Prints one Markdown row per
(application, ranks), with the 1-minute load average when the kept run
started and the "stalls": on the rank where it is largest, the time by
which MPI calls outlasted their replay by more than 50 us each, as a share
of the measured time (a descheduled rank; see stalls() below). The kept traces stay in WORK/APP-pP/ (default WORK: a new
directory under /tmp) for `mpicast stats`, `predict --timeline`, ...
Before each run the script waits (at most --max-wait s, default 60) until
the machine was --idle (default 0.9) idle over one second (/proc/stat), and
the row gives the load average and that idle share before the kept run.

Applications (Debian packages, installed by hand, not project dependencies):
  lammps    package lammps, `lmp`: LAMMPS's bench/in.lj (3-d LJ melt)
  hpcc      package hpcc: HPL, PTRANS, STREAM, RandomAccess, FFT, b_eff
  scalapack package scalapack-mpi-test: the ScaLAPACK LU test `xdlu`
  qe        package quantum-espresso: `pw.x` SCF of bulk silicon with a
            norm-conserving pseudopotential generated here by `ld1.x`
An application whose program is missing is skipped with a note on stderr.
Open MPI; Python 3 standard library only. Timing is the point of this
script: run it on an otherwise idle machine.
"""
import argparse
import collections
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")

# LAMMPS's bench/in.lj: box edge s lattice cells (4 s^3 atoms), t steps (given by -var)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from apps_inputs import GRID, IN_LJ, hpccinf  # noqa: E402 (extrap_lammps.sh reads IN_LJ here)

LMP_S, LMP_T = 20, 200

HPCC_N, HPCC_NB = 1000, 80

SLU = "/usr/lib/x86_64-linux-gnu/scalapack/openmpi-tests/xdlu"
SLU_N, SLU_NB, SLU_PROBLEMS = 800, 32, 20

# ld1.x: a Troullier-Martins norm-conserving Si pseudopotential (LDA), so
# that pw.x runs without downloading one
SI_LD1 = """&input
   title='Si', zed=14., rel=0, config='[Ne] 3s2 3p2', iswitch=3, dft='PZ'
/
&inputp
   pseudotype=1, file_pseudopw='Si.pz-tm.UPF', author='mpicast', lloc=1, tm=.true.
/
2
3S  1  0  2.00  0.00  1.80  1.80  0.0
3P  2  1  2.00  0.00  1.80  1.80  0.0
"""
QE_ECUT, QE_K = 36.0, 10
SI_SCF = f"""&control
   calculation='scf', prefix='si', outdir='./out', pseudo_dir='./'
/
&system
   ibrav=2, celldm(1)=10.20, nat=2, ntyp=1, ecutwfc={QE_ECUT}
/
&electrons
   conv_thr=1.0d-8
/
ATOMIC_SPECIES
 Si 28.086 Si.pz-tm.UPF
ATOMIC_POSITIONS alat
 Si 0.00 0.00 0.00
 Si 0.25 0.25 0.25
K_POINTS automatic
 {QE_K} {QE_K} {QE_K} 0 0 0
"""


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def lammps(rundir, p):
    write(os.path.join(rundir, "in.lj"), IN_LJ)
    return ["lmp", "-in", "in.lj", "-var", "s", str(LMP_S), "-var", "t", str(LMP_T),
            "-log", "none", "-screen", "none"]


def hpcc(rundir, p):
    write(os.path.join(rundir, "hpccinf.txt"), hpccinf(HPCC_N, HPCC_NB, p))
    return ["hpcc"]


def scalapack(rundir, p):
    pp, qq = GRID[p]
    sizes = " ".join([str(SLU_N)] * SLU_PROBLEMS)
    write(os.path.join(rundir, "LU.dat"), "\n".join([
        "'SCALAPACK, LU factorization input file'", "'MPI Machine'",
        "'LU.out'  output file name", "6  device out",
        f"{SLU_PROBLEMS}  number of problems sizes", f"{sizes}  values of M",
        f"{sizes}  values of N", "1  number of NB's", f"{SLU_NB}  values of NB",
        "1  number of NRHS's", "1  values of NRHS", "1  Number of NBRHS's",
        "1  values of NBRHS", "1  number of process grids", f"{pp}  values of P",
        f"{qq}  values of Q", "1.0  threshold", "F  Test Cond. Est. and Iter. Ref.", ""]))
    return [SLU]


def qe(rundir, p):
    if not os.path.exists(os.path.join(rundir, "Si.pz-tm.UPF")):
        write(os.path.join(rundir, "si.ld1.in"), SI_LD1)
        with open(os.path.join(rundir, "si.ld1.in")) as f:
            subprocess.run(["ld1.x"], stdin=f, cwd=rundir, check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    write(os.path.join(rundir, "si.scf.in"), SI_SCF)
    return ["pw.x", "-in", "si.scf.in"]


# name: (command writer, program to look for, input as shown in the table)
APPS = {
    "lammps": (lammps, "lmp", f"in.lj, {4 * LMP_S ** 3} atoms, {LMP_T} steps"),
    "hpcc": (hpcc, "hpcc", f"N = {HPCC_N}, NB = {HPCC_NB}"),
    "scalapack": (scalapack, SLU, f"xdlu, {SLU_PROBLEMS} × N = {SLU_N}, NB = {SLU_NB}"),
    "qe": (qe, "pw.x", f"pw.x SCF, Si2, ecut {QE_ECUT:g} Ry, {QE_K}³ k"),
}


def validate(mpicast, tdir, platform, sets):
    out = subprocess.run([mpicast, "validate", tdir, "--platform", platform, "--json"] + sets,
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def stalls(mpicast, tdir, platform, sets, threshold_ns=50_000):
    """Seconds, on the rank where they are largest, by which MPI calls
    lasted longer than their replay by more than THRESHOLD (50 us): calls
    of a few us that took ms are a rank the OS descheduled (or a partner
    descheduled), which no replay of the program can know about. Folded
    runs of failed polls (`calls=N` in the dump) are left out: what they
    cost is the polling model's question (cpu.polling). Calls
    are paired in order: the trace's (mpicast dump) and the replay's
    (predict --timeline, category "mpi"); None where they do not pair."""
    with tempfile.NamedTemporaryFile(suffix=".json") as tl:
        subprocess.run([mpicast, "predict", tdir, "--platform", platform, "--timeline", tl.name,
                        "--no-breakdown", "--quiet"] + sets, check=True,
                       stdout=subprocess.DEVNULL)
        with open(tl.name) as f:
            events = json.load(f)["traceEvents"]
    pred = collections.defaultdict(list)
    for e in events:
        if e.get("cat") == "mpi":
            pred[e["tid"]].append((e["ts"], e["name"], e["dur"] * 1e3))
    meas = collections.defaultdict(list)
    dump = subprocess.run([mpicast, "dump", tdir], check=True, capture_output=True,
                          text=True).stdout
    span = re.compile(r"^(\d+) (\w+) .*\bstart=(-?\d+) end=(-?\d+)")
    for line in dump.splitlines():
        m = span.match(line)
        if m:  # a folded run of failed polls (calls=N) is the polling model's, not a stall
            d = 0 if " calls=" in line else int(m.group(4)) - int(m.group(3))
            meas[int(m.group(1))].append((m.group(2), d))
    worst = 0.0
    for r, calls in meas.items():
        p = sorted(pred[r], key=lambda q: q[0])  # stable: same-time calls stay in order
        if len(p) != len(calls):
            return None
        excess = sum(d - q[2] for (op, d), q in zip(calls, p)
                     if op not in ("Init", "Init_thread", "Finalize") and d - q[2] > threshold_ns)
        worst = max(worst, excess * 1e-9)
    return worst


def idle_share(seconds=1.0):
    """Share of the machine's CPU time that was idle over SECONDS (/proc/stat)."""
    def sample():
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
        return v[3] + v[4], sum(v)
    i0, t0 = sample()
    time.sleep(seconds)
    i1, t1 = sample()
    return (i1 - i0) / max(t1 - t0, 1)


def wait_idle(want, max_wait):
    """Waits (at most MAX_WAIT s) until the machine was WANT idle over a
    second; returns the last idle share seen. Our own runs are over then."""
    deadline = time.monotonic() + max_wait
    idle = idle_share()
    while idle < want and time.monotonic() < deadline:
        idle = idle_share()
    return idle


def trace_once(mpicast, cmd_of, rundir, p, tdir):
    cmd = cmd_of(rundir, p)
    subprocess.run([mpicast, "trace", "-o", tdir, "--", "mpirun", "--oversubscribe", "-np",
                    str(p)] + cmd, cwd=rundir, env=ENV, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, timeout=600)


def measure(mpicast, app, p, reps, work, platform, sets, idle_want, max_wait):
    """Trace REPS runs, keep the fastest; returns (runs, load, validate doc)."""
    cmd_of = APPS[app][0]
    rundir = os.path.join(work, f"{app}-p{p}")
    os.makedirs(rundir, exist_ok=True)
    best, runs, load = None, [], None
    for i in range(reps):
        tdir = os.path.join(rundir, f"trace{i}")
        shutil.rmtree(tdir, ignore_errors=True)
        idle_now = wait_idle(idle_want, max_wait)
        load_now = (os.getloadavg()[0], idle_now)
        trace_once(mpicast, cmd_of, rundir, p, tdir)
        doc = validate(mpicast, tdir, platform, sets)
        runs.append(doc["measured"]["time"])
        if best is None or runs[-1] < best[1]["measured"]["time"]:
            if best:
                shutil.rmtree(best[0])
            best, load = (tdir, doc), load_now
        else:
            shutil.rmtree(tdir)
    fastest = os.path.join(rundir, "fastest")
    shutil.rmtree(fastest, ignore_errors=True)
    os.rename(best[0], fastest)
    return runs, load, best[1], stalls(mpicast, fastest, platform, sets)


def pct(x):
    return "n/a" if x is None else f"{x:+.1f} %"


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build")
    ap.add_argument("--platform")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--ranks", default="2,4")
    ap.add_argument("--only", default=",".join(APPS))
    ap.add_argument("--work")
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("--idle", type=float, default=0.9)
    ap.add_argument("--max-wait", type=float, default=60)
    a = ap.parse_args()
    unknown = [x for x in a.only.split(",") if x not in APPS]
    if unknown:
        ap.error(f"--only: unknown application {unknown[0]} (known: {', '.join(APPS)})")
    b = os.path.abspath(a.build)
    mpicast = os.path.join(b, "bin", "mpicast")
    work = os.path.abspath(a.work) if a.work else tempfile.mkdtemp(prefix="mpicast-acc-")
    os.makedirs(work, exist_ok=True)
    platform = a.platform
    if not platform:
        platform = os.path.join(work, "here.ini")
        subprocess.run(["mpirun", "--oversubscribe", "-np", "2",
                        os.path.join(b, "bin", "mpicast-bench"), "-o", platform], env=ENV,
                       check=True, stdout=subprocess.DEVNULL)
    platform = os.path.abspath(platform)
    sets = [x for s in a.set for x in ("--set", s)]
    print(f"platform {platform}, work {work}, {a.reps} runs each", file=sys.stderr)
    print("| application | input | ranks | runs: fastest / median (s) | measured (s) "
          "| predicted (s) | error | computation error | communication error "
          "| comm share (measured) | stalls | load (1 min), idle before |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for app in a.only.split(","):
        prog = APPS[app][1]
        if not (os.path.exists(prog) or shutil.which(prog)):
            print(f"accuracy_apps: {app}: {prog} not installed, skipped", file=sys.stderr)
            continue
        for p in (int(x) for x in a.ranks.split(",")):
            runs, load, d, st = measure(mpicast, app, p, a.reps, work, platform, sets,
                                        a.idle, a.max_wait)
            m, pr, e = d["measured"], d["predicted"], d["error_percent"]
            stall = "n/a" if st is None else f"{100 * st / m['time']:.1f} %"
            share = m["communication"] / (m["communication"] + m["computation"])
            print(f"| {app} | {APPS[app][2]} | {p} | {min(runs):.3f} / "
                  f"{statistics.median(runs):.3f} | {m['time']:.3f} | {pr['time']:.3f} "
                  f"| **{pct(e['time'])}** | {pct(e['computation'])} "
                  f"| {pct(e['communication'])} | {100 * share:.0f} % "
                  f"| {stall} | {load[0]:.1f}, {100 * load[1]:.0f} % |",
                  flush=True)


if __name__ == "__main__":
    main()
