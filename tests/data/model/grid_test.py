#!/usr/bin/env python3
"""`mpicast model` with the grid-split family (issue 27), end to end on
synthesised `mpicast stats --json` files with a "process_grid":

* LAMMPS's halo sends: 410 per process and per grid dimension split over more
  than one process (0, 410, 820, 1230 at p = 1, 2, 4, 8 on a 3-d grid) are
  log2(p) exactly up to p = 8. With the runs' grids the grid-split family is
  chosen (the tie goes to the runs' own grid) and predicts 1230 at p = 16 and
  32 exactly; logarithmic is the runner-up, with its 1640 shown;
* without the grids (the same files, no "process_grid") logarithmic is chosen;
* the runs cannot tell the two laws apart, so a warning names the runner-up's
  prediction; a series that is log2(p) is taken as grid-split from p <= 8
  (with that warning), as logarithmic once a fitted run passes the grid's
  saturation (p = 16: log fits it exactly, the grid does not);
* a run whose grid MPI_Dims_create would not make (4 x 1 x 1 at p = 4) rules
  the family out, and --families grid-split says why in a warning;
* a malformed "process_grid" or "polls" is an error naming the file.

usage: grid_test.py MPICAST
"""
import json
import os
import tempfile

from modelcli import check, finish, model_doc, run


def stats(path, ranks, funcs, grid):
    """funcs: name -> total calls; grid: dims or None (no key)."""
    doc = {"ranks": ranks, "app_time": 1.0, "truncated": False, "warnings": [],
           "functions": {k: {"calls": c, "bytes": 0, "time": 0.1} for k, c in funcs.items()}}
    if grid is not None:
        doc["process_grid"] = grid if not isinstance(grid, list) else \
            {"dims": grid, "periods": [True] * len(grid)}
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def model(*args):
    doc = model_doc(*args)
    return {f["function"]: f for f in doc.get("functions", [])}, doc


GRIDS = {1: [1, 1, 1], 2: [2, 1, 1], 4: [1, 2, 2], 8: [2, 2, 2], 16: [4, 2, 2], 32: [4, 4, 2]}
SPLIT = {p: sum(d > 1 for d in g) for p, g in GRIDS.items()}
LOG2 = {1: 0, 2: 1, 4: 2, 8: 3, 16: 4, 32: 5}

with tempfile.TemporaryDirectory() as tmp:
    def runs(tag, grids):
        out = {}
        for p in GRIDS:
            fn = {"MPI_Send": 410 * SPLIT[p] * p, "MPI_Allreduce": 7 * LOG2[p] * p,
                  "MPI_Barrier": 3 * p}
            out[p] = stats(os.path.join(tmp, f"{tag}{p}.json"), p, fn,
                           grids[p] if grids else None)
        return out

    g = runs("g", GRIDS)
    for t in (16, 32):
        r, _ = model(*[g[p] for p in (1, 2, 4, 8)], g[t], "--by", "p", "--predict", f"p={t}")
        s = r.get("MPI_Send", {})
        check(s.get("family") == "grid-split", f"grid: Send is grid-split at {t}: {s.get('family')}")
        check(s.get("formula") == "410*split3(p)", f"grid: formula {s.get('formula')}")
        check(s.get("prediction") is not None and abs(s["prediction"] - 1230) < 1e-6
              and s.get("measured") == 1230, f"grid: predicts 1230 at p={t}: {s.get('prediction')}")
        check(s.get("held_out_error") == 0, f"grid: held-out 0: {s.get('held_out_error')}")
        ru = s.get("runner_up") or {}
        check(ru.get("family") == "logarithmic" and ru.get("held_out_error") == 0
              and abs(ru.get("prediction", 0) - 410 * LOG2[t]) < 1e-6,
              f"grid: the runner-up is logarithmic, {410 * LOG2[t]} at p={t}: {ru}")
        check(any(f"logarithmic explains the runs as well (held-out error 0 %) and predicts "
                  f"{410 * LOG2[t]} at p={t}, where grid-split predicts 1230" in w
                  for w in s.get("warnings", [])), f"grid: the tie is a warning: {s.get('warnings')}")
        a = r.get("MPI_Allreduce", {})
        check(a.get("family") == "grid-split" and any("do not tell them apart" in w
                                                      for w in a.get("warnings", [])),
              f"grid: log2 p up to p = 8 is grid-split, with the warning: {a}")
        b = r.get("MPI_Barrier", {})
        check(b.get("family") == "constant", f"grid: a constant stays constant: {b.get('family')}")
    r, _ = model(*[g[p] for p in (1, 2, 4, 8, 16)], g[32], "--by", "p", "--predict", "p=32")
    a = r.get("MPI_Allreduce", {})
    check(a.get("family") == "logarithmic" and abs(a.get("prediction", 0) - 35) < 1e-6,
          f"grid: log2 p fitted past the saturation (p = 16) is logarithmic: {a}")
    s = r.get("MPI_Send", {})
    check(s.get("family") == "grid-split" and abs(s.get("prediction", 0) - 1230) < 1e-6
          and not s.get("warnings"), f"grid: 1, 2, 4, 8, 16 -> 32: grid-split, no tie: {s}")

    n = runs("n", None)
    r, _ = model(*[n[p] for p in (1, 2, 4, 8)], n[16], "--by", "p", "--predict", "p=16")
    s = r.get("MPI_Send", {})
    check(s.get("family") == "logarithmic" and abs(s.get("prediction", 0) - 1640) < 1e-6,
          f"no grid: logarithmic, 1640: {s.get('family')} {s.get('prediction')}")
    rc, out, err = run("model", *[n[p] for p in (1, 2, 4, 8)], "--by", "p", "--families",
                       "grid-split,logarithmic")
    check(rc == 0 and "--families grid-split not applied" in err and "no process grid" in err,
          f"no grid: --families grid-split warns: {rc} {err}")

    odd = dict(GRIDS)
    odd[4] = [4, 1, 1]
    o = runs("o", odd)
    r, doc = model(*[o[p] for p in (1, 2, 4, 8)], "--by", "p", "--predict", "p=16",
                   "--families", "grid-split,logarithmic")
    s = r.get("MPI_Send", {})
    check(s.get("family") != "grid-split", f"4 x 1 x 1: no grid family: {s.get('family')}")
    check(any("o4.json" in w and "MPI_Dims_create's would split 2" in w
              for w in doc.get("warnings", [])), f"4 x 1 x 1: the warning: {doc.get('warnings')}")

    bad = stats(os.path.join(tmp, "bad.json"), 4, {"MPI_Send": 1}, {"dims": [2, 0]})
    rc, out, err = run("model", g[1], g[2], bad, "--by", "p")
    check(rc != 0 and "bad.json" in err and "process_grid.dims[1]" in err,
          f"malformed process_grid: {rc} {err}")
    badp = os.path.join(tmp, "badpolls.json")
    with open(badp, "w") as f:
        json.dump({"ranks": 4, "functions": {"MPI_Test": {"calls": 8, "polls": "many"}}}, f)
    rc, out, err = run("model", g[1], g[2], badp, "--by", "p")
    check(rc != 0 and "badpolls.json" in err and "functions.MPI_Test.polls is not a count" in err
          and len(err.strip().splitlines()) == 1, f"malformed polls: {rc} {err}")

finish()
