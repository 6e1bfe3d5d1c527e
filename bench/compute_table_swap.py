#!/usr/bin/env python3
"""Compute tables from two builds of one program (issue 4): -O0 vs -O2.

Builds an example twice (-O0 and -O2), traces each, writes each build's
compute table (`mpicast blocks DIR --table`), then predicts the -O2 trace
with its own table and with the -O0 table (`predict --compute`). The tables
name blocks by file:line, so the -O0 table applies to the -O2 trace although
the two builds' call-site ids differ.

Checks that the predicted computation moves by exactly the ratio of the
block times: sum over the trace's bursts of the -O0 table's time of their
block, over the same sum with the -O2 table (the counts of the -O2 trace).

usage: compute_table_swap.py --mpicast BIN [--source examples/cg.c]
                             [--args "-s 256 -i 20"] [--np 2] [--mpicc mpicc.openmpi]
Prints the figures; exit 1 if the check fails.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def run(cmd, **kw):
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, **kw)
    if p.returncode != 0:
        sys.exit("%s failed:\n%s" % (" ".join(cmd), p.stderr))
    return p.stdout


def read_table(path):
    """(from, to) -> mean ns of the all-ranks rows."""
    t = {}
    for line in open(path):
        line = line.split("#", 1)[0].split()
        if len(line) >= 5 and line[2] == "*":
            t[(line[0], line[1])] = float(line[4])
    return t


def key(site):
    if site["file"] and site["line"] > 0:
        return "%s:%d" % (os.path.basename(site["file"]), site["line"])
    return "0x%x" % site["id"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mpicast", required=True)
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--source", default=os.path.join(here, "..", "examples", "cg.c"))
    ap.add_argument("--args", default="-s 256 -i 20")
    ap.add_argument("--np", type=int, default=2)
    ap.add_argument("--mpicc", default="mpicc.openmpi")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="mpicast-swap-") as tmp:
        tables, traces = {}, {}
        for opt in ("O0", "O2"):
            exe = os.path.join(tmp, "app_" + opt)
            run([a.mpicc, "-" + opt, "-g", "-o", exe, a.source, "-lm"])
            d = os.path.join(tmp, "trace_" + opt)
            out = run([a.mpicast, "trace", "-o", d, "--", "mpirun", "--oversubscribe", "-np",
                       str(a.np), exe] + a.args.split())
            tab = os.path.join(tmp, "table_%s.tsv" % opt)
            run([a.mpicast, "blocks", d, "--table", tab])
            tables[opt], traces[opt] = read_table(tab), d
            print("%s: %s" % (opt, out.strip()))
        blocks = json.loads(run([a.mpicast, "blocks", traces["O2"], "--json"]))["blocks"]
        expect = {opt: 0.0 for opt in tables}
        missing = 0
        for b in blocks:
            k = (key(b["from"]), key(b["to"]))
            for opt, t in tables.items():
                if k in t:
                    expect[opt] += b["count"] * t[k]
                elif opt == "O0":
                    missing += b["count"]
        pred = {}
        for opt in tables:
            tab = os.path.join(tmp, "table_%s.tsv" % opt)
            pred[opt] = json.loads(run([a.mpicast, "predict", traces["O2"], "--json",
                                        "--compute", tab]))
    comp = {o: pred[o]["compute_time"]["mean"] * pred[o]["ranks"] for o in pred}
    ratio_blocks = expect["O0"] / expect["O2"]
    ratio_pred = comp["O0"] / comp["O2"]
    print("blocks of the -O2 trace: %d, bursts without a -O0 row: %d (fell back: %d)"
          % (len(blocks), missing, pred["O0"]["compute_table"]["fell_back"]))
    print("sum over bursts of block time: -O2 table %.1f us, -O0 table %.1f us, ratio %.4f"
          % (expect["O2"] / 1e3, expect["O0"] / 1e3, ratio_blocks))
    print("predicted computation (all ranks): -O2 table %.1f us, -O0 table %.1f us, "
          "ratio %.4f" % (comp["O2"] * 1e6, comp["O0"] * 1e6, ratio_pred))
    print("predicted time: -O2 table %.6f s, -O0 table %.6f s, ratio %.4f"
          % (pred["O2"]["predicted_time"], pred["O0"]["predicted_time"],
             pred["O0"]["predicted_time"] / pred["O2"]["predicted_time"]))
    ok = missing == 0 and abs(ratio_pred / ratio_blocks - 1) < 1e-6
    print("check (prediction ratio == block-time ratio, no fallback): %s"
          % ("ok" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
