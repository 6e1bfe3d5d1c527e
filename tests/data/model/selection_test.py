#!/usr/bin/env python3
"""`mpicast model` with few points (issue 27), end to end on synthesised
`mpicast stats --json` files:

* zero is a value: a function absent from the p = 1 run has 0 calls and 0
  bytes there (4 points, not 3), its time stays missing, and the series
  predicts the held-out p = 16 count exactly; a zero that no law of the
  other runs explains (held-out error lower without it) is left out;
* runs with the same n but other iters are distinct points;
* --per-iteration divides by iters (label, or MPI_Pcontrol calls / 2) and
  predicts a held-out run with another iteration count exactly; a function
  called fewer times than the iterations (MPI_Init) stays per run;
* selection reports the held-out error and the runner-up; three points never
  choose a three-coefficient family, while the study's procedure
  (--select mape --families study) does;
* a law that goes negative before the prediction point is not chosen while
  another candidate stays non-negative (it becomes the runner-up);
* a constant count is the constant family; the small-scale regime rule:
  hpcc's Sendrecv per process (0, 16895, 3176, 3181 at p = 1, 2, 4, 8) is
  fitted on p >= 4 with a warning naming the points left out, and predicts
  p = 16 as the constant of those two; not when the prediction point is
  among the points left out, nor under --select mape.

usage: selection_test.py MPICAST
"""
import json
import os
import tempfile

from modelcli import check, finish, model_doc, run


def stats(path, ranks, funcs):
    """funcs: name -> (total calls, total bytes, total time)."""
    doc = {"ranks": ranks, "app_time": 1.0, "truncated": False, "warnings": [],
           "functions": {k: {"calls": c, "bytes": b, "time": t} for k, (c, b, t) in funcs.items()}}
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def model(*args):
    return {(f["function"], f["metric"]): f for f in model_doc(*args).get("functions", [])}


with tempfile.TemporaryDirectory() as tmp:
    # ---- zero is a value: Isend per process 100*(1 - 1/p), absent at p = 1
    files = []
    for p in (1, 2, 4, 8, 16):
        fn = {"MPI_Barrier": (10 * p, 0, 0.5 * p)}
        if p > 1:
            fn["MPI_Isend"] = (100 * (p - 1), 800 * (p - 1), 0.1 * p)
        files.append(stats(os.path.join(tmp, f"z{p}.json"), p, fn))
    r = model(*files, "--by", "p", "--predict", "p=16", "--metric", "calls")
    isend = r.get(("MPI_Isend", "calls"), {})
    check(isend.get("points") == 4, f"zero fill: Isend has 4 points, got {isend.get('points')}")
    want = 100 * (1 - 1 / 16)
    check(isend.get("measured") == want, f"zero fill: measured {isend.get('measured')} != {want}")
    check(abs(isend.get("prediction", 0) - want) < 1e-6 * want,
          f"zero fill: predicted {isend.get('prediction')} != {want} ({isend.get('formula')})")
    for key in ("held_out_error", "runner_up", "aicc"):
        check(key in isend, f"JSON key {key}")
    check(isend.get("runner_up") and isend["runner_up"]["family"] != isend.get("family"),
          f"runner-up differs from the chosen family: {isend.get('runner_up')}")
    rb = model(*files[:4], "--by", "p", "--metric", "bytes")
    check(rb.get(("MPI_Isend", "bytes"), {}).get("points") == 4, "zero fill: bytes too")
    rt = model(*files[:4], "--by", "p", "--metric", "time")
    check(rt.get(("MPI_Isend", "time"), {}).get("points") == 3, "time stays missing at p = 1")

    # ---- a zero no law of the other runs explains (master-worker: at p = 1
    # nobody to send to; T + p - 1 sends for p >= 2) is left out, with a warning
    mw = []
    for p in (1, 2, 4, 8, 16):
        fn = {"MPI_Barrier": (p, 0, 0.1)}
        if p > 1:
            fn["MPI_Send"] = (40 + p - 1, 0, 0.1)
        mw.append(stats(os.path.join(tmp, f"mw{p}.json"), p, fn))
    rc, out, err = run("model", *mw, "--by", "p", "--predict", "p=16", "--metric", "calls",
                       "--json")
    doc = json.loads(out) if rc == 0 else {"functions": []}
    snd = {f["function"]: f for f in doc["functions"]}.get("MPI_Send", {})
    want = (40 + 15) / 16
    check(snd.get("points") == 3, f"unexplained zero left out: 3 points, got {snd.get('points')}")
    check(abs(snd.get("prediction", 0) - want) < 1e-9 * want,
          f"unexplained zero left out: predicted {snd.get('prediction')} != {want}")
    check(any("left out" in w for w in snd.get("warnings", [])), "a warning says the zero was left out")

    # ---- same n, other iters: distinct points
    a = stats(os.path.join(tmp, "i10.json"), 4, {"MPI_Allreduce": (4 * 10 * 3, 0, 1.0)})
    b = stats(os.path.join(tmp, "i20.json"), 4, {"MPI_Allreduce": (4 * 20 * 3, 0, 1.0)})
    c = stats(os.path.join(tmp, "n2.json"), 4, {"MPI_Allreduce": (4 * 15 * 5, 0, 1.0)})
    r = model(a + ":n=4,iters=10", b + ":n=4,iters=20", c + ":n=8,iters=15", "--by", "n")
    ar = r.get(("MPI_Allreduce", "calls"), {})
    check(ar.get("points") == 3 and ar.get("repeats") == 1,
          f"same n, other iters: 3 points of 1 repeat, got {ar.get('points')}/{ar.get('repeats')}")

    # ---- per iteration: calls per process and iteration 4 + 2n, iterations
    # differing per class; the n = 16 run with 75 iterations is held out
    runs = [(1, 15), (2, 15), (4, 20), (8, 5), (16, 75)]
    args = []
    for n, it in runs:
        f = {"MPI_Send": (4 * (4 + 2 * n) * it, 8 * 4 * (4 + 2 * n) * it, 0.01 * it),
             "MPI_Init": (4, 0, 0.1)}
        if n == 2:  # this run's iterations come from its MPI_Pcontrol marks
            f["MPI_Pcontrol"] = (4 * 2 * it, 0, 0)
            args.append(stats(os.path.join(tmp, f"it{n}.json"), 4, f) + f":n={n}")
        else:
            args.append(stats(os.path.join(tmp, f"it{n}.json"), 4, f) + f":n={n},iters={it}")
    r = model(*args, "--by", "n", "--per-iteration", "--predict", "n=16,iters=75",
              "--function", "MPI_Send")
    s = r.get(("MPI_Send", "calls"), {})
    want = (4 + 2 * 16) * 75
    check(s.get("measured") == want, f"per-iteration: measured {s.get('measured')} != {want}")
    check(abs(s.get("prediction", 0) - want) < 1e-9 * want,
          f"per-iteration: predicted {s.get('prediction')} != {want} ({s.get('formula')})")
    check(s.get("error_percent", 1) < 1e-9, f"per-iteration: error {s.get('error_percent')}")
    check(s.get("prediction_per_iteration") is not None
          and abs(s["prediction_per_iteration"] - 36) < 1e-9, "prediction per iteration 36")
    # MPI_Init (once per process, fewer calls than iterations) stays per run
    r = model(*args, "--by", "n", "--per-iteration", "--predict", "n=16,iters=75",
              "--function", "MPI_Init")
    s = r.get(("MPI_Init", "calls"), {})
    check(s.get("per_run") is True and s.get("prediction") == 1 and s.get("measured") == 1,
          f"per-iteration: Init stays per run: {s.get('per_run')} {s.get('prediction')}")
    # without --per-iteration the counts follow the iterations, not n: no exact prediction
    r = model(*args, "--by", "n", "--predict", "n=16,iters=75", "--function", "MPI_Send")
    s = r.get(("MPI_Send", "calls"), {})
    check(s.get("error_percent", 0) > 1, f"totals in n alone are not exact: {s.get('error_percent')}")
    # a run without any iteration count is refused under --per-iteration
    rc, out, err = run("model", args[0].split(":")[0] + ":n=1", args[1], "--by", "n",
                       "--per-iteration")
    check(rc == 1 and "iteration count" in err and len(err.strip().split("\n")) == 1,
          f"per-iteration without iters: exit {rc}: {err!r}")

    # ---- three points: no three-coefficient family; the study's rule overfits
    three = []
    for p, v in ((1, 10), (2, 20), (4, 22)):
        three.append(stats(os.path.join(tmp, f"t{p}.json"), p, {"MPI_Wait": (v * p, 0, 1.0)}))
    r = model(*three, "--by", "p", "--predict", "p=8")
    w = r.get(("MPI_Wait", "calls"), {})
    check(w.get("family") in ("linear", "logarithmic", "inverse"),
          f"3 points: a 2-coefficient family, got {w.get('family')}")
    check(w.get("selected_by") == "cv" and w.get("held_out_error") is not None,
          f"3 points: judged by leave-one-out: {w.get('selected_by')}")
    r = model(*three, "--by", "p", "--predict", "p=8", "--select", "mape", "--families", "study")
    w = r.get(("MPI_Wait", "calls"), {})
    check(w.get("family") == "linear-saturation", f"study's rule: saturation, got {w.get('family')}")
    rc, out, err = run("model", *three, "--families", "linear,bogus")
    check(rc == 2, f"--families with an unknown name: exit 2, got {rc}")
    rc, out, err = run("model", *three, "--families", "ghost-shell")
    check(rc == 2, f"--families ghost-shell (extrapolate's only): exit 2, got {rc}")
    rc, out, err = run("model", *three, "--by", "p")
    check(rc == 0 and "runner-up" in out and "held-out" in out, "text shows held-out and runner-up")

    # ---- a count is never negative: per process 100 - 3p (exact linear) at
    # p = 1..8 extrapolates to 100 - 3*64 < 0 at p = 64; the best candidate
    # that stays non-negative up to p = 64 is taken, the linear law becomes
    # the runner-up, with a warning
    dec = [stats(os.path.join(tmp, f"d{p}.json"), p, {"MPI_Bcast": (p * (100 - 3 * p), 0, 0)})
           for p in (1, 2, 4, 8)]
    r = model(*dec, "--by", "p", "--predict", "p=64", "--metric", "calls")
    b = r.get(("MPI_Bcast", "calls"), {})
    ru = b.get("runner_up") or {}
    check(b.get("family") not in (None, "linear"), f"negative law not chosen, got {b.get('family')}")
    check((b.get("prediction") or -1) >= 0, f"prediction not negative: {b.get('prediction')}")
    check(ru.get("family") == "linear" and ru.get("held_out_error") == 0 and
          abs(ru.get("prediction", 0) - (100 - 3 * 64)) < 1e-6,
          f"the linear law is the runner-up, exact and negative: {ru}")
    check(any("goes negative" in w and "linear" in w for w in b.get("warnings", [])),
          f"a warning names the negative law: {b.get('warnings')}")
    # the same choice as with the linear family excluded from the candidates
    fams = "logarithmic,inverse,linear-saturation,normal-form"
    r2 = model(*dec, "--by", "p", "--predict", "p=64", "--metric", "calls", "--families", fams)
    b2 = r2.get(("MPI_Bcast", "calls"), {})
    check(b2.get("family") == b.get("family") and b2.get("prediction") == b.get("prediction"),
          f"the best non-negative candidate: {b2.get('family')} {b2.get('prediction')} vs "
          f"{b.get('family')} {b.get('prediction')}")
    # no target, or the study's rule: the linear law stands
    r3 = model(*dec, "--by", "p", "--metric", "calls")
    check(r3.get(("MPI_Bcast", "calls"), {}).get("family") == "linear", "without --predict: linear")
    r4 = model(*dec, "--by", "p", "--predict", "p=64", "--metric", "calls", "--select", "mape")
    b4 = r4.get(("MPI_Bcast", "calls"), {})
    check(b4.get("family") == "linear" and b4.get("prediction", 0) < 0 and
          any("is negative" in w for w in b4.get("warnings", [])),
          f"--select mape keeps the study's choice, negative and warned: {b4.get('family')}")
    # a target the linear law reaches while positive (p = 32: 4 calls): kept
    r5 = model(*dec, "--by", "p", "--predict", "p=32", "--metric", "calls")
    b5 = r5.get(("MPI_Bcast", "calls"), {})
    check(b5.get("family") == "linear" and abs(b5.get("prediction", 0) - 4) < 1e-6,
          f"non-negative up to p = 32: linear, 4 calls, got {b5.get('family')} {b5.get('prediction')}")

    # ---- the regime rule: calls per process 0, 16895, 3176, 3181; 18 always
    reg = [stats(os.path.join(tmp, f"g{p}.json"), p,
                 {"MPI_Sendrecv": (p * c, 0, 0), "MPI_Comm_split": (18 * p, 0, 0)})
           for p, c in ((1, 0), (2, 16895), (4, 3176), (8, 3181))]
    r = model(*reg, "--by", "p", "--predict", "p=16", "--metric", "calls")
    sr = r.get(("MPI_Sendrecv", "calls"), {})
    check(sr.get("family") == "constant" and sr.get("fitted_from") == 4 and sr.get("points") == 2
          and abs(sr.get("prediction", 0) - 3178.5) < 1e-9
          and abs(sr.get("held_out_error", 0) - 100 * (5 / 3176 + 5 / 3181) / 2) < 1e-9,
          f"regime: constant 3178.5 from p >= 4, held-out 0.157 %: {sr}")
    check(any("2 points at p=1, 2" in w and "fitted on p >= 4" in w for w in sr.get("warnings", [])),
          f"regime: the warning names the points left out: {sr.get('warnings')}")
    cs = r.get(("MPI_Comm_split", "calls"), {})
    check(cs.get("family") == "constant" and cs.get("fitted_from") is None and cs.get("points") == 4
          and cs.get("held_out_error") == 0, f"a constant count: the constant family, all points: {cs}")
    r2 = model(*reg[1:], "--by", "p", "--predict", "p=1", "--metric", "calls")
    check(r2.get(("MPI_Sendrecv", "calls"), {}).get("fitted_from") is None,
          "regime: not applied when the prediction point (p = 1) is below the cut")
    r3 = model(*reg, "--by", "p", "--predict", "p=16", "--metric", "calls", "--select", "mape")
    check(r3.get(("MPI_Sendrecv", "calls"), {}).get("fitted_from") is None,
          "regime: not under --select mape (the study's procedure)")

    # ---- failed polls: a count that is mostly failed polls is flagged (its
    # number depends on timing), one with few is not
    pol = []
    for p in (1, 2, 4, 8):
        doc = {"ranks": p, "app_time": 1.0, "truncated": False, "warnings": [],
               "functions": {"MPI_Iprobe": {"calls": 100 * p, "bytes": 0, "time": 0.1,
                                            "polls": 90 * p},
                             "MPI_Test": {"calls": 200 * p, "bytes": 0, "time": 0.1,
                                          "polls": 20 * p}}}
        path = os.path.join(tmp, f"poll{p}.json")
        with open(path, "w") as f:
            json.dump(doc, f)
        pol.append(path)
    r = model(*pol, "--by", "p", "--predict", "p=16")
    ip, ts = r.get(("MPI_Iprobe", "calls"), {}), r.get(("MPI_Test", "calls"), {})
    check(ip.get("failed_polls_percent") == 90
          and any("90.0 % of them were failed polls in" in w and "poll1.json" in w
                  for w in ip.get("warnings", [])), f"polls: Iprobe flagged: {ip}")
    check("failed_polls_percent" in ts and ts["failed_polls_percent"] is None
          and not any("failed polls" in w for w in ts.get("warnings", [])),
          f"polls: Test (10 %) not flagged: {ts}")

finish()
