#!/usr/bin/env python3
"""Issue 27, item 6, on Debian MPI applications: mean absolute percentage error
of `mpicast model`'s call-count predictions (per process), against the
call-count study's 4.6 % (across core counts) and 19.3 % (across sizes).

The applications are installed by hand, not project dependencies:
  hpcc   (Debian package hpcc: HPL, PTRANS, STREAM, RandomAccess, FFT, b_eff)
  lammps (Debian package lammps, binary `lmp`: the 3-d Lennard-Jones melt of
          LAMMPS's bench/in.lj, box edge s lattice cells, t time steps)

* across core counts: traced at p = 1, 2, 4, 8, predict p = 16 and 32 (--by p);
* across sizes: at p = 4, three sizes predict the fourth (--by n), totals in n,
  and --per-iteration where the iteration count is known (LAMMPS: `run t`,
  given as iters=t in the label);
* the p = 4 run of the core-count case is traced twice: a function whose
  per-process count differs between the two runs is nondeterministic (polling:
  MPI_Test*, MPI_Iprobe), and the mean is given with and without such series;
* a last column leaves out the series `model` itself flags as mostly failed
  polls (JSON failed_polls_percent), which needs no second run.

usage: bench/model_error_apps.py BUILD_DIR [--work DIR] [--details]
  --work DIR   keep the `stats --json` files there and reuse them on a rerun
               (default: a temporary directory)
  --details    after the table, one line per series with an error above 5 %:
               family, formula, held-out error, runner-up, prediction, measured
Open MPI, oversubscribed (32 ranks on a 2-core machine: a few minutes in all).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

B = os.path.abspath(sys.argv[1])
MPICAST = os.path.join(B, "bin", "mpicast")
WORK = sys.argv[sys.argv.index("--work") + 1] if "--work" in sys.argv else None
DETAILS = "--details" in sys.argv
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1")

from apps_inputs import IN_LJ, hpccinf  # noqa: E402 (after the path set-up)


def hpcc_run(rundir, p, size):
    with open(os.path.join(rundir, "hpccinf.txt"), "w") as f:
        f.write(hpccinf(size["N"], size["NB"], p))
    return ["hpcc"]


def lammps_run(rundir, p, size):
    with open(os.path.join(rundir, "in.lj"), "w") as f:
        f.write(IN_LJ)
    return ["lmp", "-in", "in.lj", "-var", "s", str(size["s"]), "-var", "t", str(size["t"]),
            "-log", "none", "-screen", "none"]


# app: (command writer, size for the core-count case, sizes at p = 4 (3 fitted, 1 predicted),
#       n of a size, iters of a size or None)
APPS = {
    "hpcc": (hpcc_run, {"N": 400, "NB": 40},
             [{"N": 200, "NB": 40}, {"N": 400, "NB": 40}, {"N": 800, "NB": 40},
              {"N": 1600, "NB": 40}],
             lambda s: s["N"], None),
    "lammps": (lammps_run, {"s": 8, "t": 100},
               [{"s": 4, "t": 40}, {"s": 6, "t": 40}, {"s": 8, "t": 60}, {"s": 10, "t": 100}],
               lambda s: 4 * s["s"] ** 3, lambda s: s["t"]),
}


def stats(work, app, p, size, rep=0):
    """Trace one run and return its `stats --json` file (reused when present)."""
    tag = f"{app}-p{p}-" + "-".join(f"{k}{v}" for k, v in sorted(size.items()))
    tag += f"-r{rep}" if rep else ""
    js = os.path.join(work, tag + ".json")
    if os.path.exists(js):
        return js
    rundir = os.path.join(work, tag + ".run")
    os.makedirs(rundir, exist_ok=True)
    cmd = APPS[app][0](rundir, p, size)
    out = os.path.join(rundir, "trace")
    subprocess.run([MPICAST, "trace", "-o", out, "--", "mpirun", "-np", str(p), "--oversubscribe",
                    *cmd], cwd=rundir, env=ENV, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, timeout=900)
    with open(js + ".tmp", "w") as f:
        subprocess.run([MPICAST, "stats", out, "--json"], stdout=f, check=True, timeout=300)
    os.rename(js + ".tmp", js)
    shutil.rmtree(rundir)
    return js


def per_process_calls(js):
    with open(js) as f:
        doc = json.load(f)
    return {k: v["calls"] / doc["ranks"] for k, v in doc["functions"].items()}


def model(*args):
    r = subprocess.run([MPICAST, "model", *args, "--json"], capture_output=True, text=True,
                       timeout=600)
    if r.returncode:
        return None, r.stderr.strip()
    return json.loads(r.stdout), None


def mean(v):
    return sum(v) / len(v) if v else float("nan")


def errors(doc, nondet):
    """Mean error over all series with a measurement, over the deterministic ones,
    and over those `model` did not flag as mostly failed polls."""
    fs = [f for f in doc["functions"] if f.get("error_percent") is not None]
    det = [f for f in fs if f["function"] not in nondet]
    unflagged = [f for f in fs if f.get("failed_polls_percent") is None]
    return (mean([f["error_percent"] for f in fs]), len(fs),
            mean([f["error_percent"] for f in det]), len(det),
            mean([f["error_percent"] for f in unflagged]), len(unflagged))


def detail(app, label, doc):
    out = []
    for f in doc["functions"]:
        e = f.get("error_percent")
        if e is None or e <= 5:
            continue
        ru = f.get("runner_up") or {}
        ho = f.get("held_out_error")
        rho = ru.get("held_out_error")
        out.append(f"{app} | {label} | {f['function']} | {f['family']} `{f['formula']}` | "
                   f"held-out {'-' if ho is None else f'{ho:.2f}'} % | runner-up "
                   f"{ru.get('family', '-')} "
                   f"{'-' if rho is None else f'{rho:.2f}'} % -> {ru.get('prediction')} | "
                   f"predicted {f['prediction']:.6g} | measured {f['measured']:.6g} | "
                   f"{e:.1f} %" + (" | per run" if f.get("per_run") else ""))
    return out


def main():
    work = WORK or tempfile.mkdtemp(prefix="mc-apps-")
    os.makedirs(work, exist_ok=True)
    rows, details = [], []
    acc = {k: ([], [], []) for k in ("cores", "sizes", "sizes_it")}
    for app, (_, core_size, sizes, nfun, itfun) in APPS.items():
        f = {p: stats(work, app, p, core_size) for p in (1, 2, 4, 8, 16, 32)}
        a, b = per_process_calls(f[4]), per_process_calls(stats(work, app, 4, core_size, 1))
        nondet = {k for k in set(a) | set(b) if a.get(k) != b.get(k)}
        rows.append(f"| {app} | nondeterministic at p=4 (two runs differ) | "
                    f"{', '.join(sorted(nondet)) or 'none'} | | | |")
        cases = []
        for t in (16, 32):
            cases.append((f"p=1,2,4,8 -> {t}", "cores",
                          [*[f[p] for p in (1, 2, 4, 8)], f[t], "--by", "p", "--predict", f"p={t}"]))
        files = []
        for s in sizes:
            lab = f"n={nfun(s)}" + (f",iters={itfun(s)}" if itfun else "")
            files.append(stats(work, app, 4, s) + ":" + lab)
        target = f"n={nfun(sizes[3])}" + (f",iters={itfun(sizes[3])}" if itfun else "")
        desc = ",".join(str(nfun(s)) for s in sizes[:3]) + f" -> {nfun(sizes[3])}"
        if itfun:
            desc += " (iters " + ",".join(str(itfun(s)) for s in sizes[:3]) + \
                    f" -> {itfun(sizes[3])})"
        cases.append((f"p=4, n={desc}", "sizes", [*files, "--by", "n", "--predict", target]))
        if itfun:
            cases.append((f"p=4, n={desc}, per iteration", "sizes_it",
                          [*files, "--by", "n", "--predict", target, "--per-iteration"]))
        for label, kind, args in cases:
            doc, err = model(*args)
            if doc is None:
                rows.append(f"| {app} | {label} | - | error: {err} | |")
                continue
            e_all, n_all, e_det, n_det, e_unf, n_unf = errors(doc, nondet)
            rows.append(f"| {app} | {label} | {n_all} | {e_all:.3f} | {e_det:.3f} ({n_det}) | "
                        f"{e_unf:.3f} ({n_unf}) |")
            acc[kind][0].append(e_all)
            acc[kind][1].append(e_det)
            acc[kind][2].append(e_unf)
            details += detail(app, label, doc)
    print("| application | case | series | mean error %, all | deterministic only (series) | "
          "not flagged as failed polls (series) |")
    print("|---|---|---|---|---|---|")
    print("\n".join(rows))
    for kind, name, study in (("cores", "across core counts", " (study: 4.6 %)"),
                              ("sizes", "across sizes, totals in n", " (study: 19.3 %)"),
                              ("sizes_it", "across sizes, per iteration", "")):
        print(f"\n{name}: all {mean(acc[kind][0]):.3f} %, deterministic "
              f"{mean(acc[kind][1]):.3f} %, not flagged {mean(acc[kind][2]):.3f} %{study}", end="")
    print()
    if DETAILS:
        print("\nseries with an error above 5 %:")
        print("\n".join(details))
    if not WORK:
        shutil.rmtree(work)


main()
