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
* a function called both outside the main loop and in it (cg's Allreduce,
  2T + 1; LAMMPS's Sendrecv, 6 at set-up + 0.3 per step) is fitted as set-up
  + per iteration, s + iters*f, and predicts the held-out run exactly, also
  from three runs of which two have the same iterations (LAMMPS's sizes case:
  t = 40, 40, 60 -> 100); a function exact per run or per iteration stays
  there (the set-up law has one coefficient more), and without an iteration
  count at the prediction point the set-up law is not taken;
* the JSON keys `normalised`, `normalised_errors`, `setup` and `per_run`
  agree, and the text output names the choice per series.

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
            "MPI_Bcast": 100,             # per run, more than any run's iterations
            "MPI_Allreduce": 2 * iters + 1}  # once at set-up, twice per iteration


def runs(tmp, tag, points):
    """points: (n, iters) -> file:label arguments."""
    return [stats(os.path.join(tmp, f"{tag}_{n}_{it}.json"), counts(it)) + f":n={n},iters={it}"
            for n, it in points]


SETUP = "set-up+per-iteration"


def normalisation_consistent(f, what):
    norm = f.get("normalised")
    check(norm in ("per-iteration", "per-run", SETUP), f"{what}: normalised {norm}")
    check(f.get("per_run") is (norm == "per-run"), f"{what}: per_run {f.get('per_run')} vs {norm}")
    check((f.get("setup") is not None) == (norm == SETUP), f"{what}: setup {f.get('setup')} vs {norm}")
    errs = f.get("normalised_errors") or {}
    check(set(errs) == {"per-iteration", "per-run", SETUP, "compared"},
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
            "MPI_Bcast": ("per-run", 100, 100 / 80),
            "MPI_Allreduce": (SETUP, 161, 161 / 80)}
    for fn, (norm, total, per_it) in want.items():
        f = r.get(fn, {})
        got, errs = normalisation_consistent(f, fn)
        if norm == SETUP:  # exact: no fold misses; the other two are not
            su = f.get("setup") or {}
            check(su.get("family") == "constant" and su.get("measured") is False
                  and abs(su.get("prediction", 0) - 1) < 1e-9
                  and f.get("formula", "").startswith("1 + iters*(2)"),
                  f"{fn}: set-up 1 (fitted) and 2 per iteration: {su} {f.get('formula')}")
            e = errs.get(SETUP)
            check(e is not None and e < 1e-6 and errs["per-iteration"] > 1 and errs["per-run"] > 1,
                  f"{fn}: set-up held-out error {e}, the others {errs}")
            check(f.get("held_out_error") is not None and f["held_out_error"] < 1e-6,
                  f"{fn}: held_out_error {f.get('held_out_error')}")
            continue
        e = errs.get(SETUP)
        check(e is not None and e < 1e-6, f"{fn}: the set-up law fits too ({e}), but is not needed")
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
        word = "iter+setup" if norm == SETUP else norm.split("-")[1]
        row = rows.get(fn, [])
        check(len(row) > 3 and row[3] == word, f"text: {fn} per {word}: {row[:5]}")

    # ---- without iterations at the prediction point the set-up law cannot
    # predict a total: not taken
    r = model(*files, "--by", "n", "--per-iteration", "--predict", "n=16", "--metric", "calls",
              "--function", "MPI_Allreduce")
    f = r.get("MPI_Allreduce", {})
    check(f.get("normalised") in ("per-iteration", "per-run"),
          f"--predict without iters: no set-up law, got {f.get('normalised')}")

    # ---- LAMMPS's sizes case: n = 256, 864, 2048 at t = 40, 40, 60 predict
    # n = 4000 at t = 100 (calls per process as traced, docs/models.md);
    # the fold leaving out t = 60 cannot be fitted, the two others can
    lmp = {"MPI_Send": lambda t: 10 + 8.1 * t, "MPI_Sendrecv": lambda t: 6 + 0.3 * t,
           "MPI_Init": lambda t: 1, "MPI_Bcast": lambda t: 2 * t}
    pts = [(256, 40), (864, 40), (2048, 60), (4000, 100)]
    lfiles = [stats(os.path.join(tmp, f"lmp_{n}.json"), {k: g(t) for k, g in lmp.items()})
              + f":n={n},iters={t}" for n, t in pts]
    r = model(*lfiles, "--by", "n", "--per-iteration", "--predict", "n=4000,iters=100",
              "--metric", "calls")
    for fn, norm, total in (("MPI_Send", SETUP, 820), ("MPI_Sendrecv", SETUP, 36),
                            ("MPI_Init", "per-run", 1), ("MPI_Bcast", "per-iteration", 200)):
        f = r.get(fn, {})
        got, errs = normalisation_consistent(f, f"lammps {fn}")
        check(got == norm, f"lammps {fn}: {norm}, got {got} {errs}")
        check(abs((f.get("prediction") or -1) - total) < 1e-9 * total,
              f"lammps {fn}: predicted {f.get('prediction')} != {total} ({f.get('formula')})")
    f = r.get("MPI_Send", {})
    check(abs((f.get("setup") or {}).get("prediction", 0) - 10) < 1e-9 and f.get("points") == 3,
          f"lammps MPI_Send: 10 calls at set-up from 3 points: {f.get('setup')} {f.get('points')}")

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
        got, errs = normalisation_consistent(f, f"same iters {fn}")
        check(errs.get(SETUP) is None, f"same iters {fn}: no set-up law when the iterations "
                                       f"do not differ ({errs.get(SETUP)})")
        check(got == norm, f"same iters {fn}: {norm}, got {got}")
        check(abs((f.get("prediction") or -1) - total) < 1e-9 * total,
              f"same iters {fn}: predicted {f.get('prediction')} != {total}")

finish()
