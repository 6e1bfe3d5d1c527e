#!/usr/bin/env python3
"""`mpicast model --per-iteration` decides per series between "per run" and
"per iteration" by which explains the runs better (issue 27), end to end on
synthesised `mpicast stats --json` files (4 ranks, counts per process):

* a function called every 5th iteration (fewer calls than iterations, yet
  proportional to them: LAMMPS's Sendrecv at re-neighbouring) is fitted per
  iteration and predicts the held-out run exactly, as do a function called 3
  times per run, a set-up function called once per run (MPI_Init: per run,
  as before) and one called 100 times per run, more often than any run
  iterates (the old rule divided it);
* when both normalisations fit exactly (the iterations double with n) the
  tie goes per iteration for counts growing with the iterations, per run
  for counts that do not;
* when every fitted run has the same iterations nothing tells them apart:
  per run only for a function called fewer times than the iterations;
* the JSON keys `normalised`, `normalised_errors` and `per_run` agree, and
  the text output names the choice per series.

usage: normalised_test.py MPICAST
"""
import json
import os
import tempfile

from modelcli import check, finish, model_doc, run
RANKS = 4


def stats(path, per_process):
    """per_process: name -> calls per process (bytes and time follow)."""
    doc = {"ranks": RANKS, "app_time": 1.0, "truncated": False, "warnings": [],
           "functions": {k: {"calls": RANKS * c, "bytes": 8 * RANKS * c, "time": 0.001 * c}
                         for k, c in per_process.items()}}
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def model(*args):
    return {f["function"]: f for f in model_doc(*args).get("functions", [])}


def counts(iters):
    return {"MPI_Sendrecv": iters / 5,    # every 5th iteration
            "MPI_Send": 2 * iters,        # twice per iteration
            "MPI_Comm_split": 3,          # 3 per run, whatever the iterations
            "MPI_Init": 1,                # set-up: once per run
            "MPI_Bcast": 100}             # per run, more than any run's iterations


def runs(tmp, tag, points):
    """points: (n, iters) -> file:label arguments."""
    return [stats(os.path.join(tmp, f"{tag}_{n}_{it}.json"), counts(it)) + f":n={n},iters={it}"
            for n, it in points]


def normalisation_consistent(f, what):
    norm = f.get("normalised")
    check(norm in ("per-iteration", "per-run"), f"{what}: normalised {norm}")
    check(f.get("per_run") is (norm == "per-run"), f"{what}: per_run {f.get('per_run')} vs {norm}")
    errs = f.get("normalised_errors") or {}
    check(set(errs) == {"per-iteration", "per-run", "compared"},
          f"{what}: normalised_errors keys {sorted(errs)}")
    return norm, errs


with tempfile.TemporaryDirectory() as tmp:
    # ---- iterations not following n: totals in n fit no law exactly, one
    # normalisation does; the n = 16 run of 80 iterations is held out
    files = runs(tmp, "mix", [(1, 20), (2, 40), (4, 10), (8, 20), (16, 80)])
    r = model(*files, "--by", "n", "--per-iteration", "--predict", "n=16,iters=80",
              "--metric", "calls")
    want = {"MPI_Sendrecv": ("per-iteration", 16, 80 / 5 / 80),
            "MPI_Send": ("per-iteration", 160, 2),
            "MPI_Comm_split": ("per-run", 3, 3 / 80),
            "MPI_Init": ("per-run", 1, 1 / 80),
            "MPI_Bcast": ("per-run", 100, 100 / 80)}
    for fn, (norm, total, per_it) in want.items():
        f = r.get(fn, {})
        got, errs = normalisation_consistent(f, fn)
        check(got == norm, f"{fn}: {norm}, got {got} (errors {errs})")
        check(f.get("measured") == total, f"{fn}: measured {f.get('measured')} != {total}")
        check(abs((f.get("prediction") or -1) - total) < 1e-9 * total,
              f"{fn}: predicted {f.get('prediction')} != {total} ({f.get('formula')})")
        check(abs((f.get("prediction_per_iteration") or -1) - per_it) < 1e-9 * per_it,
              f"{fn}: per iteration {f.get('prediction_per_iteration')} != {per_it}")
        check(errs.get("compared") == "held_out_error", f"{fn}: compared {errs.get('compared')}")
        kept, other = (errs.get("per-iteration"), errs.get("per-run"))[::1 if norm == "per-iteration" else -1]
        check(kept is not None and kept < 1e-6 and other is not None and other > 1,
              f"{fn}: held-out error {kept} kept, {other} of the other normalisation")
    # the same choice for bytes (they follow the calls)
    rb = model(*files, "--by", "n", "--per-iteration", "--predict", "n=16,iters=80",
               "--metric", "bytes", "--function", "MPI_Sendrecv", "--function", "MPI_Bcast")
    check(rb.get("MPI_Sendrecv", {}).get("normalised") == "per-iteration"
          and abs(rb.get("MPI_Sendrecv", {}).get("prediction", 0) - 8 * 16) < 1e-9 * 128,
          f"bytes of Sendrecv: per iteration, 128: {rb.get('MPI_Sendrecv', {}).get('prediction')}")
    check(rb.get("MPI_Bcast", {}).get("normalised") == "per-run", "bytes of Bcast: per run")
    # text: the choice per series in the "per" column
    rc, out, err = run("model", *files, "--by", "n", "--per-iteration", "--predict",
                       "n=16,iters=80", "--metric", "calls")
    rows = {ln.split()[0]: ln.split() for ln in out.splitlines() if ln.startswith("MPI_")}
    header = [ln.split() for ln in out.splitlines() if ln.startswith("function")]
    check(rc == 0 and header and header[0][:5] == ["function", "metric", "p", "per", "family"],
          f"text: a 'per' column after p: {header}")
    for fn, (norm, _, _) in want.items():
        row = rows.get(fn, [])
        check(len(row) > 3 and row[3] == norm.split("-")[1],
              f"text: {fn} per {norm.split('-')[1]}: {row[:5]}")

    # ---- without --per-iteration nothing changes: no normalisation keys
    r = model(*files, "--by", "n", "--predict", "n=16,iters=80", "--metric", "calls")
    check("normalised" not in r.get("MPI_Send", {}) and "per_run" not in r.get("MPI_Send", {}),
          "without --per-iteration: no normalisation keys")

    # ---- ties: iterations doubling with n, both normalisations exact
    tie = runs(tmp, "tie", [(1, 10), (2, 20), (4, 40), (8, 80)])
    r = model(*tie, "--by", "n", "--per-iteration", "--predict", "n=8,iters=80",
              "--metric", "calls")
    for fn, norm, total in (("MPI_Sendrecv", "per-iteration", 16), ("MPI_Send", "per-iteration", 160),
                            ("MPI_Comm_split", "per-run", 3), ("MPI_Init", "per-run", 1),
                            ("MPI_Bcast", "per-run", 100)):
        f = r.get(fn, {})
        got, errs = normalisation_consistent(f, f"tie {fn}")
        check(got == norm, f"tie {fn}: {norm} (counts {'grow' if norm == 'per-iteration' else 'do not grow'} "
                           f"with iters), got {got} {errs}")
        e_it, e_run = errs.get("per-iteration"), errs.get("per-run")
        check(e_it is not None and e_run is not None and abs(e_it - e_run) < 1e-6,
              f"tie {fn}: both exact: {e_it} {e_run}")
        check(abs((f.get("prediction") or -1) - total) < 1e-9 * total,
              f"tie {fn}: predicted {f.get('prediction')} != {total}")

    # ---- every fitted run of 10 iterations (--by p): nothing tells the
    # normalisations apart, the calls against the iterations decide
    same = []
    for p in (1, 2, 4, 8):
        doc = {"ranks": p, "app_time": 1.0, "truncated": False, "warnings": [],
               "functions": {k: {"calls": p * c, "bytes": 0, "time": 0.0}
                             for k, c in counts(10).items()}}
        path = os.path.join(tmp, f"same{p}.json")
        with open(path, "w") as fh:
            json.dump(doc, fh)
        same.append(path + ":n=1,iters=10")
    r = model(*same, "--by", "p", "--per-iteration", "--predict", "p=16,n=1,iters=20",
              "--metric", "calls")
    for fn, norm, total in (("MPI_Sendrecv", "per-run", 2), ("MPI_Send", "per-iteration", 40),
                            ("MPI_Comm_split", "per-run", 3), ("MPI_Init", "per-run", 1),
                            ("MPI_Bcast", "per-iteration", 200)):
        f = r.get(fn, {})
        got, _ = normalisation_consistent(f, f"same iters {fn}")
        check(got == norm, f"same iters {fn}: {norm}, got {got}")
        check(abs((f.get("prediction") or -1) - total) < 1e-9 * total,
              f"same iters {fn}: predicted {f.get('prediction')} != {total}")

finish()
