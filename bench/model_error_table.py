#!/usr/bin/env python3
"""Issue 27, item 6: mean absolute percentage error of `mpicast model`'s
call-count predictions on the bundled examples, against the call-count
study's 4.6 % (across core counts) and 19.3 % (across problem sizes).

* across core counts: traced at p = 1, 2, 4, 8, predict p = 16 and 32;
* across sizes: at p = 4, three sizes (with iteration counts that differ as
  NPB classes' do) predict the fourth, with the default selection (totals in
  n) and with --per-iteration (iters given in the labels).

usage: bench/model_error_table.py BUILD_DIR      (Open MPI; a few minutes)
Prints one Markdown table row per example and case, then the means.
"""
import json
import os
import subprocess
import sys
import tempfile

B = sys.argv[1]
MPICAST = os.path.join(B, "bin", "mpicast")
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1")
# example: (args at every p, [(size, iters)] for the size cases: 3 fitted, 1 predicted)
CASES = {
    "cg": (["-s", "16", "-i", "10"], [(8, 5), (16, 5), (32, 5), (64, 20)]),
    "halo2d": (["-s", "8", "-i", "5"], [(8, 3), (16, 3), (32, 5), (64, 10)]),
    "ring": (["-s", "64", "-i", "3"], [(16, 3), (32, 3), (64, 5), (128, 10)]),
    "fft": (["-s", "8", "-i", "2"], [(4, 2), (8, 2), (16, 3), (32, 6)]),
    "master_worker": (["-s", "16", "-i", "40"], None),
}


def stats(tmp, name, p, args):
    out = os.path.join(tmp, f"{name}-{p}-{'_'.join(args)}")
    if os.path.exists(out + ".json"):  # the same run in two cases (fft: size 8, 2 iterations)
        return out + ".json"
    subprocess.run([MPICAST, "trace", "-o", out, "--", "mpirun", "-np", str(p), "--oversubscribe",
                    os.path.join(B, "examples", name), *args], env=ENV, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300)
    js = out + ".json"
    with open(js, "w") as f:
        subprocess.run([MPICAST, "stats", out, "--json"], stdout=f, check=True, timeout=120)
    return js


def model(*args):
    r = subprocess.run([MPICAST, "model", *args, "--json"], capture_output=True, text=True,
                       timeout=300)
    if r.returncode:
        return None, r.stderr.strip()
    doc = json.loads(r.stdout)
    return doc["mean_error_percent"], len(doc["functions"])


rows, cores, sizes, sizes_it = [], [], [], []
with tempfile.TemporaryDirectory() as tmp:
    for name, (args, sz) in CASES.items():
        f = {p: stats(tmp, name, p, args) for p in (1, 2, 4, 8, 16, 32)}
        for t in (16, 32):
            e, n = model(*[f[p] for p in (1, 2, 4, 8)], f[t], "--by", "p", "--predict", f"p={t}")
            rows.append(f"| {name} | p=1,2,4,8 -> {t} | {n} | {e:.3f} |" if e is not None
                        else f"| {name} | p -> {t} | - | error: {n} |")
            if e is not None:
                cores.append(e)
        if not sz:
            continue
        files = [stats(tmp, name, 4, ["-s", str(s), "-i", str(i)]) + f":n={s},iters={i}"
                 for s, i in sz]
        target = f"n={sz[3][0]},iters={sz[3][1]}"
        for per_it, acc in ((False, sizes), (True, sizes_it)):
            extra = ["--per-iteration"] if per_it else []
            e, n = model(*files, "--by", "n", "--predict", target, *extra)
            label = "sizes " + ",".join(str(s) for s, _ in sz[:3]) + f" -> {sz[3][0]}"
            label += " per iteration" if per_it else ""
            rows.append(f"| {name} | {label} | {n} | {e:.3f} |" if e is not None
                        else f"| {name} | {label} | - | error: {n} |")
            if e is not None:
                acc.append(e)
print("| example | case | series | mean error % |\n|---|---|---|---|")
print("\n".join(rows))
mean = lambda v: sum(v) / len(v) if v else float("nan")
print(f"\nacross core counts: {mean(cores):.3f} % (study: 4.6 %)")
print(f"across sizes, totals in n: {mean(sizes):.3f} % (study: 19.3 %)")
print(f"across sizes, per iteration: {mean(sizes_it):.3f} %")
