#!/usr/bin/env python3
"""`mpicast model` on TAU profiles and --extrap-out (issue 25 item 4).

usage: tau_test.py MPICAST DATA_DIR   (DATA_DIR: tests/data/model/tau)
The TAU fixtures p1, p2, p4, p8 (profile.N.C.T files written from TAU's
documented format) and same_counts.csv (their per-process means) must give
the same chosen families, coefficients and predictions; the Extra-P text
written by --extrap-out, read back, the same models again; malformed
profiles are refused with one line naming FILE:LINE.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

MPICAST, DATA = sys.argv[1], sys.argv[2]
failures = []


def run(*args):
    p = subprocess.run([MPICAST, "model", *args], capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)


def close(a, b):
    if a is None or b is None:
        return a is b
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1e-300)


def models(*args):
    rc, out, err = run(*args, "--json")
    check(rc == 0, "model %s: exit %d (%s)" % (" ".join(args), rc, err.strip()))
    return json.loads(out)["functions"] if rc == 0 else []


def same_models(a, b, what):
    key = lambda m: (m["function"], m["metric"])
    a, b = sorted(a, key=key), sorted(b, key=key)
    check([key(m) for m in a] == [key(m) for m in b],
          "%s: series %s vs %s" % (what, [key(m) for m in a], [key(m) for m in b]))
    for x, y in zip(a, b):
        name = "%s %s/%s" % (what, x["function"], x["metric"])
        check(x["family"] == y["family"], "%s: family %s vs %s" % (name, x["family"], y["family"]))
        for c in x["coefficients"]:
            check(close(x["coefficients"][c], y["coefficients"].get(c)),
                  "%s: coefficient %s %r vs %r" % (name, c, x["coefficients"][c],
                                                   y["coefficients"].get(c)))
        for k in ("prediction", "measured"):
            check(close(x.get(k), y.get(k)), "%s: %s %r vs %r" % (name, k, x.get(k), y.get(k)))


dirs = [os.path.join(DATA, "p%d" % p) for p in (1, 2, 4, 8)]
csv = os.path.join(DATA, "same_counts.csv")

# TAU directories (p = the node count) and the same counts in CSV
for metric in ("calls", "time"):
    tau = models(*dirs, "--metric", metric, "--predict", "p=8")
    same_models(tau, models(csv, "--metric", metric, "--predict", "p=8"), "TAU vs CSV " + metric)
    check(len(tau) >= 4, "%s: %d series from the TAU fixtures" % (metric, len(tau)))
send = [m for m in models(*dirs, "--predict", "p=8") if m["function"] == "MPI_Send"]
check(len(send) == 1 and send[0]["family"] == "linear" and close(send[0]["prediction"], 3 * 8 + 2),
      "MPI_Send calls: 3p+2 per process, predicted 26 at p=8: %r" % send)

# one profile file is one process (p = 1); a label overrides the node count
one = os.path.join(DATA, "p1", "profile.0.0.0")
same_models(models(one, *dirs[1:], "--predict", "p=8"), models(*dirs, "--predict", "p=8"),
            "single file as p=1")
relabelled = [m for m in models(*dirs[:3], dirs[3] + ":p=16", "--predict", "p=16")
              if m["function"] == "MPI_Send"]
check(relabelled and close(relabelled[0]["measured"], 3 * 8 + 2),
      "DIR:p=16 labels the p8 run: %r" % relabelled)

# --extrap-out: the fitted series as Extra-P text, read back to the same models
tmp = tempfile.mkdtemp()
try:
    for metric in ("calls", "time"):
        xp = os.path.join(tmp, "extrap_%s.txt" % metric)
        first = models(*dirs, "--metric", metric, "--predict", "p=8", "--extrap-out", xp)
        text = open(xp).read() if os.path.exists(xp) else ""
        check(text.startswith("PARAMETER p\n") and "REGION MPI_Send\n" in text,
              "%s: Extra-P text written: %r" % (metric, text[:80]))
        same_models(first, models(xp, "--metric", metric, "--predict", "p=8"),
                    "Extra-P round trip " + metric)
    rc, _, err = run(csv, "--extrap-out", csv)
    check(rc == 2 and "same_counts.csv" in err, "--extrap-out over an input refused: %d %s" % (rc, err))

    # malformed profiles: one line naming FILE:LINE, exit 1
    bad = os.path.join(DATA, "bad", "profile.0.0.0")
    rc, _, err = run(os.path.join(DATA, "bad"))
    check(rc == 1 and err.startswith("mpicast: %s:4: " % bad) and err.count("\n") == 1,
          "bad number refused at line 4: %d %r" % (rc, err))
    cases = {
        "short": ("3 templated_functions_MULTI_TIME\n# Name Calls Subrs Excl Incl ProfileCalls\n"
                  '"MPI_Send()" 5 0 40 40 0 GROUP="MPI"\n', 3),
        "columns": ("1 templated_functions_MULTI_TIME\n# Name Calls\n"
                    '"MPI_Send()" 5 0 40 40 0 GROUP="MPI"\n', 2),
        "unquoted": ("1 templated_functions_MULTI_TIME\n# Name Calls Subrs Excl Incl ProfileCalls\n"
                     'MPI_Send() 5 0 40 40 0 GROUP="MPI"\n', 3),
        "fields": ("1 templated_functions_MULTI_TIME\n# Name Calls Subrs Excl Incl ProfileCalls\n"
                   '"MPI_Send()" 5 0 40\n', 3),
    }
    for name, (body, line) in cases.items():
        d = os.path.join(tmp, name)
        os.mkdir(d)
        path = os.path.join(d, "profile.0.0.0")
        open(path, "w").write(body)
        rc, _, err = run(d)
        check(rc == 1 and err.startswith("mpicast: %s:%d: " % (path, line)),
              "%s refused at line %d: %d %r" % (name, line, rc, err))
    os.mkdir(os.path.join(tmp, "empty"))
    rc, _, err = run(os.path.join(tmp, "empty"))
    check(rc == 1 and "no TAU profile files" in err, "empty directory refused: %d %r" % (rc, err))
finally:
    shutil.rmtree(tmp)

print("%d failure(s)" % len(failures))
sys.exit(1 if failures else 0)
