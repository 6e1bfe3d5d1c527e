#!/usr/bin/env python3
"""End-to-end checks of `mpicast model` and `mpicast scaling` (issue 7).

usage: cli_test.py MPICAST DATA_DIR [TRACE_WRITER]
Runs the binary on the files in DATA_DIR and on synthesised data, and checks
exit codes, one-line errors naming file:line, JSON keys and computed values.
TRACE_WRITER (test_scaling_pcontrol) writes synthetic Pcontrol-marked traces
for `scaling`'s trace input; --plot is checked when gnuplot is installed.
"""
import shutil
import json
import math
import os
import subprocess
import sys
import tempfile

MPICAST, DATA = sys.argv[1], sys.argv[2]
WRITER = sys.argv[3] if len(sys.argv) > 3 else None
failures = []


def run(*args):
    p = subprocess.run([MPICAST, *args], capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)


def d(name):
    return os.path.join(DATA, name)


def expect_error(args, code, prefix, contains=""):
    rc, out, err = run(*args)
    lines = err.strip().split("\n")
    ok = (rc == code and len(lines) == 1 and lines[0].startswith("mpicast: " + prefix)
          and contains in lines[0])
    check(ok, f"{args}: want exit {code} and one line 'mpicast: {prefix}...{contains}', "
              f"got {rc}: {err.strip()!r}")


def close(a, b, tol=1e-6):
    return a is not None and abs(a - b) <= tol * max(abs(b), 1e-300)


# ---- model: CSV, the measured point held out, cost accounting
rc, out, err = run("model", d("calls.csv"), "--by", "p", "--predict", "p=8", "--json")
check(rc == 0, f"model calls.csv: exit {rc}: {err}")
doc = json.loads(out)
for key in ("by", "metric", "select", "predict", "functions", "summary", "mean_error_percent",
            "cost", "warnings", "skipped"):
    check(key in doc, f"model --json: key {key}")
fns = {f["function"]: f for f in doc["functions"]}
send = fns["MPI_Send"]
for key in ("function", "metric", "family", "formula", "coefficients", "fit_error",
            "prediction", "error_percent", "measured"):
    check(key in send, f"model --json functions[]: key {key}")
check(send["family"] == "linear" and close(send["coefficients"]["a"], 3), f"MPI_Send: {send}")
check(close(send["prediction"], 26) and send["error_percent"] < 1e-6, f"MPI_Send pred: {send}")
check(send["points"] == 3 and send["n"] == 4, f"MPI_Send points/n: {send}")
check(fns["MPI_Allreduce"]["family"] == "constant" and close(fns["MPI_Allreduce"]["prediction"], 10),
      "MPI_Allreduce constant")
cost = doc["cost"]
check(cost and cost["runs"] == 3 and close(cost["profiling_core_seconds"], 312)
      and close(cost["predicted_core_seconds"], 112) and cost["predicted_from"] == "measured"
      and close(cost["relative_percent"], 312 / 112 * 100), f"cost: {cost}")
check(doc["metric"] == "calls" and [s["family"] for s in doc["summary"]] == ["constant", "linear"]
      and doc["summary"][0]["share_percent"] == 50, f"summary: {doc['summary']}")

# text output has the table and the cost line
rc, out, err = run("model", d("calls.csv"), "--by", "p", "--predict", "p=8")
check(rc == 0 and "MPI_Send" in out and "relative cost 278.57 %" in out, f"text: {out}")

# ---- model: stats --json inputs labelled both ways, p from "ranks"
files = [d("stats_p1.json") + ":n=A", d("stats_p2.json"), "--label", "n=A",
         d("stats_p4.json") + ":n=A", d("stats_p8.json") + ":n=A", d("stats_p16.json") + ":n=A"]
rc, out, err = run("model", *files, "--by", "p", "--predict", "p=16", "--json")
check(rc == 0, f"model stats: exit {rc}: {err}")
doc = json.loads(out)
fns = {f["function"]: f for f in doc["functions"]}
check(fns["MPI_Send"]["family"] == "linear" and close(fns["MPI_Send"]["prediction"], 33)
      and fns["MPI_Send"]["error_percent"] < 1e-6, f"stats MPI_Send: {fns['MPI_Send']}")
check(close(fns["MPI_Barrier"]["prediction"], 5), "stats MPI_Barrier")
check(doc["cost"]["predicted_from"] == "measured" and doc["cost"]["runs"] == 4, f"{doc['cost']}")
rc, out, err = run("model", *files, "--by", "p", "--metric", "bytes", "--predict", "p=16",
                   "--json")
doc = json.loads(out)
check(rc == 0 and close(doc["functions"][0]["prediction"], 33 * 1024)
      or close(doc["functions"][1]["prediction"], 33 * 1024), "stats bytes")

# ---- model: Extra-P text input
rc, out, err = run("model", d("extrap_1p.txt"), "--by", "p", "--predict", "p=64", "--json")
doc = json.loads(out)
fns = {f["function"]: f for f in doc["functions"]}
check(rc == 0 and close(fns["MPI_Send"]["prediction"], 129)
      and fns["MPI_Bcast"]["family"] == "logarithmic", f"extrap: {out} {err}")

# ---- model: warnings (far extrapolation, negative model, few points)
rc, out, err = run("model", d("calls.csv"), "--by", "p", "--predict", "p=1024")
check(rc == 0 and "far outside the measured range" in err, f"far warning: {err}")
check("only 3 distinct values of p" not in err, "3 points is enough")
with tempfile.TemporaryDirectory() as tmp:
    neg = os.path.join(tmp, "neg.csv")
    with open(neg, "w") as f:
        f.write("p,n,function,metric,value\n")
        for p in (1, 2, 4):
            f.write(f"{p},1,MPI_Isend,calls,{100 - 10 * p}\n")
    rc, out, err = run("model", neg, "--predict", "p=16", "--json")
    doc = json.loads(out)
    w = doc["functions"][0]["warnings"]
    check(rc == 0 and any("negative" in x for x in w), f"negative warning: {w}")
    two = os.path.join(tmp, "two.csv")
    with open(two, "w") as f:
        f.write("p,n,function,metric,value\n1,1,MPI_Recv,calls,4\n2,1,MPI_Recv,calls,6\n")
    rc, out, err = run("model", two, "--predict", "p=4")
    check(rc == 0 and "only 2 distinct values of p" in err, f"few points warning: {err}")

    # ---- scaling: synthesised from a known tau(p,n)
    sc = os.path.join(tmp, "sc.csv")
    a = lambda n: 155.9 + 0.2889 * n + 3.148e-6 * n * n
    c1 = lambda n: 0.1113 - 5.436e-7 * n
    c2 = lambda n: 0.000743 + 11.89 / n
    with open(sc, "w") as f:
        f.write("p,n,tau,gamma\n")
        for n in (3200, 7200, 12800, 20000, 39200, 51200, 64800, 80000, 96800):
            for p in (2, 4, 8, 16, 32, 64, 128, 256):
                f.write(f"{p},{n},{a(n) * (1 / p + c1(n) + c2(n) * p)!r},{a(n) / 1.05!r}\n")
    rc, out, err = run("scaling", sc, "--strong", "n=80000", "--weak", "k=2500", "--p-max",
                       "64", "--json")
    check(rc == 0, f"scaling: exit {rc}: {err}")
    doc = json.loads(out)
    for key in ("model", "strong", "weak"):
        check(key in doc, f"scaling --json: key {key}")
    m = doc["model"]
    check(m["a"]["kind"] == "polynomial" and m["a"]["degree"] == 2
          and close(m["a"]["coefficients"][2], 3.148e-6, 1e-6), f"a(n): {m['a']}")
    check(m["c2_prime"]["kind"] == "inverse" and close(m["c2_prime"]["coefficients"][1], 11.89),
          f"c'2: {m['c2_prime']}")
    check(close(m["c1_prime"]["coefficients"][1], -5.436e-7, 1e-5), f"c'1: {m['c1_prime']}")
    check(len(m["excluded"]) == 3 * 7 + 2 * 2 and all(e["efficiency"] <= 0.1 for e in m["excluded"]),
          f"excluded: {m['excluded']}")
    check(len(doc["strong"]) == 7 and len(doc["weak"]) == 7, "rows for p = 1..64")
    row = [r for r in doc["strong"] if r["p"] == 16][0]
    for key in ("p", "n", "tau", "parallel", "chi0", "chi1", "efficiency"):
        check(key in row, f"strong row key {key}")
    check(close(row["tau"], a(80000) * (1 / 16 + c1(80000) + c2(80000) * 16), 1e-6), f"tau {row}")
    check(close(row["chi1"], a(80000) * c2(80000) * 16, 1e-5), f"chi1 {row}")
    ph = doc["strong_summary"][0]["p_half_efficiency"]
    want = (-c1(80000) + math.sqrt(c1(80000) ** 2 + 4 * c2(80000))) / (2 * c2(80000))
    check(close(ph, want, 1e-6), f"p at 50 %: {ph} vs {want}")
    wrow = [r for r in doc["weak"] if r["p"] == 8][0]
    check(wrow["n"] == 20000 and wrow["k"] == 2500, f"weak row {wrow}")
    rc, out, err = run("scaling", sc, "--strong", "n=80000", "--csv")
    check(rc == 0 and out.startswith("scaling,p,n,k,tau,parallel,chi0,chi1,efficiency\nstrong,1,"),
          f"scaling --csv: {out[:200]}")
    rc, out, err = run("scaling", sc, "--strong", "n=80000")
    check(rc == 0 and "tau(p,n) = (155.9 + 0.2889*n + 3.148e-06*n^2)" in out, f"closed form: {out}")

    bad = os.path.join(tmp, "bad.csv")
    with open(bad, "w") as f:
        f.write("p,n,tau,gamma\n2,100,1.5,2\n4,100,x,2\n")
    expect_error(["scaling", bad], 1, bad + ":3: ", "not a number")
    with open(bad, "w") as f:
        f.write("p,n,gamma\n2,100,2\n")
    expect_error(["scaling", bad], 1, bad + ":1: ", "missing column 'tau'")

# ---- bad input: exit 1, one line naming file:line
expect_error(["model", d("not_a_number.csv")], 1, d("not_a_number.csv") + ":3: ", "not a number")
expect_error(["model", d("missing_column.csv")], 1, d("missing_column.csv") + ":1: ",
             "missing column 'metric'")
expect_error(["model", d("short_row.csv")], 1, d("short_row.csv") + ":3: ", "missing value")
expect_error(["model", d("one_point.csv")], 1, d("one_point.csv") + ":2: ", "1 point")
expect_error(["model", d("extrap_bad.txt")], 1, d("extrap_bad.txt") + ":6: ", "more DATA lines")
expect_error(["model", d("no_such_file.csv")], 1, d("no_such_file.csv") + ": cannot open")
expect_error(["model", d("stats_p2.json"), "--by", "n"], 1, d("stats_p2.json") + ": ",
             "no problem size")
expect_error(["scaling", d("no_such_file.csv")], 1, d("no_such_file.csv") + ": cannot open")
# usage errors: exit 2
expect_error(["model", d("calls.csv"), "--by", "q"], 2, "--by")
expect_error(["model"], 2, "model: no input files")
expect_error(["model", "--label", "p=2", d("calls.csv")], 2, "--label must follow")
expect_error(["model", d("calls.csv"), "--plot", "x.txt"], 2, "--plot takes FILE.svg")
expect_error(["scaling", d("calls.csv"), "--plot", "x"], 2, "--plot takes FILE.svg")
expect_error(["scaling", "--label", "n=3", d("calls.csv")], 2, "--label must follow")
expect_error(["model", d("calls.csv"), "--by", "pn", "--predict", "p=4"], 2, "--predict needs n")
expect_error(["scaling"], 2, "scaling: no input file")
expect_error(["scaling", d("calls.csv"), "--weak", "n=3"], 2, "--weak takes k=K")
rc, out, err = run("model", "--help")
check(rc == 0 and out.startswith("usage: mpicast model"), "model --help")
rc, out, err = run("scaling", "--help")
check(rc == 0 and out.startswith("usage: mpicast scaling"), "scaling --help")

# ---- scaling from Pcontrol-marked traces (synthetic: tau = 0.01 n (1/p + 0.02 + 0.001 p),
# gamma = 0.01 n at every p), mixed with a CSV; --plot
with tempfile.TemporaryDirectory() as tmp:
    if WRITER:
        args = []
        for n in (1000, 2000):
            for p in (1, 2, 4, 8):
                tr = os.path.join(tmp, f"n{n}p{p}")
                subprocess.run([WRITER, "write", tr, str(p), str(n)], check=True, timeout=60)
                args += [tr + f":n={n}"] if p % 2 else [tr, "--label", f"n={n}"]
        csv = os.path.join(tmp, "n4000.csv")
        with open(csv, "w") as f:
            f.write("p,n,tau,gamma\n")
            for p in (1, 2, 4, 8):
                f.write(f"{p},4000,{40 * (1 / p + 0.02 + 0.001 * p)!r},40\n")
        rc, out, err = run("scaling", *args, csv, "--strong", "n=2000", "--json")
        check(rc == 0, f"scaling traces+csv: exit {rc}: {err}")
        if rc == 0:
            doc = json.loads(out)
            check(len(doc["traces"]) == 8 and doc["warnings"] == [],
                  f"scaling traces: {len(doc['traces'])} traces, warnings {doc['warnings']}")
            t = [x for x in doc["traces"] if x["trace"].endswith("n2000p4")][0]
            check(t["p"] == 4 and t["n"] == 2000 and close(t["tau"], 20 * (0.25 + 0.02 + 0.004))
                  and close(t["gamma"], 20) and t["intervals"] == 8 and t["ranks"] == 4,
                  f"scaling trace row: {t}")
            m = doc["model"]
            check(close(m["a"]["coefficients"][1], 0.01, 1e-6) and
                  close(m["c1_prime"]["coefficients"][0], 0.02, 1e-5) and
                  close(m["c2_prime"]["coefficients"][0], 0.001, 1e-5),
                  f"scaling from traces: laws {m['a']}, {m['c1_prime']}, {m['c2_prime']}")
        rc, out, err = run("scaling", os.path.join(tmp, "n1000p1"))
        check(rc == 1 and err.startswith("mpicast: " + os.path.join(tmp, "n1000p1") +
                                         ": no problem size"), f"unlabelled trace: {err!r}")
        rc, out, err = run("scaling", os.path.join(tmp, "nothere") + ":n=3")
        check(rc == 1 and err == f"mpicast: {os.path.join(tmp, 'nothere')}: no such trace "
              "directory\n", f"missing trace: {err!r}")
        rc, out, err = run("scaling", csv + ":n=3")
        check(rc == 1 and "a label applies to a trace directory" in err, f"labelled CSV: {err!r}")
    if shutil.which("gnuplot"):
        sc = os.path.join(tmp, "t.csv")
        with open(sc, "w") as f:
            f.write("p,n,tau,gamma\n")
            for n in (1000, 2000, 4000):
                for p in (1, 2, 4, 8, 16):
                    a = 1e-3 * n
                    f.write(f"{p},{n},{a * (1 / p + 0.01 + 0.002 * p)!r},{a}\n")
        svg, png = os.path.join(tmp, "s.svg"), os.path.join(tmp, "s.png")
        rc, out, err = run("scaling", sc, "--strong", "n=1000", "--weak", "k=250", "--plot", svg)
        text = open(svg).read() if os.path.exists(svg) else ""
        check(rc == 0 and "<svg" in text and "Strong scaling" in text and "Weak scaling" in text
              and "n=1000: chi1" in text and "k=250: a/p" in text and "n=1000: measured tau" in text,
              f"scaling --plot svg: exit {rc} {err}")
        rc, out, err = run("scaling", sc, "--plot", png)
        check(rc == 0 and open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n", "scaling --plot png")
        mp = os.path.join(tmp, "m.svg")
        rc, out, err = run("model", d("calls.csv"), "--by", "p", "--predict", "p=8", "--plot", mp)
        text = open(mp).read() if os.path.exists(mp) else ""
        check(rc == 0 and "MPI_Send (n=4): 3*p + 2" in text and "calls per process" in text,
              f"model --plot: exit {rc} {err}")
    else:
        print("note: gnuplot is not installed: --plot not checked")

if failures:
    print(f"{len(failures)} failure(s)", file=sys.stderr)
    sys.exit(1)
print("ok")
