#!/usr/bin/env python3
"""`mpicast model --extrap-json FILE` read as Extra-P's JSON reader reads it.

Mirrors what extra-p's extrap/fileio/file_reader/json_file_reader.py requires of
the newer JSON form (and its docs/file-formats.md schema): a JSON object without
"callpaths" (else the legacy reader is used), "parameters" a non-empty list of
strings, "measurements" a non-empty object callpath -> non-empty object metric ->
list of {"point": one number per parameter, "values": a non-empty list of
numbers}. Then the numbers equal the CSV input's (mean of repeats per p), the
models chosen are under "mpicast", and the output refuses to overwrite its input.

usage: test_model_extrap_json_cli.py MPICAST CSV
"""
import collections
import csv
import json
import numbers
import os
import shutil
import subprocess
import sys
import tempfile


def fail(msg):
    sys.exit("FAIL: " + msg)


def extrap_reader_check(doc):
    """The keys and types Extra-P's JSON reader needs (KeyError/TypeError there)."""
    if not isinstance(doc, dict) or "callpaths" in doc:
        fail("not the newer Extra-P JSON form")
    params = doc["parameters"]
    if not params or not all(isinstance(p, str) for p in params):
        fail("parameters: %r" % params)
    meas = doc["measurements"]
    if not isinstance(meas, dict) or not meas:
        fail("measurements: empty or not an object")
    for callpath, data in meas.items():
        if not isinstance(data, dict) or not data:
            fail("%s: no metric" % callpath)
        for metric, ms in data.items():
            for m in ms:
                pt, vals = m["point"], m["values"]
                if len(pt) != len(params) or not all(isinstance(x, numbers.Number) for x in pt):
                    fail("%s/%s: point %r for parameters %r" % (callpath, metric, pt, params))
                if not vals or not all(isinstance(v, numbers.Number) for v in vals):
                    fail("%s/%s: values %r" % (callpath, metric, vals))
    return params, meas


def csv_means(path, metric):
    rows = collections.defaultdict(list)
    with open(path) as f:
        lines = [l for l in f if l.strip() and not l.startswith("#")]
    for r in csv.DictReader(lines, skipinitialspace=True):
        r = {k.strip(): (v or "").strip() for k, v in r.items()}
        if r["metric"] == metric:
            rows[(r["function"], float(r["p"]))].append(float(r["value"]))
    return {k: sum(v) / len(v) for k, v in rows.items()}


def main():
    mc, data = sys.argv[1], sys.argv[2]
    tmp = tempfile.mkdtemp(prefix="mc_xjson_")
    try:
        out = os.path.join(tmp, "model.json")
        p = subprocess.run([mc, "model", data, "--by", "p", "--extrap-json", out],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if p.returncode:
            fail("model exit %d: %s" % (p.returncode, p.stderr))
        doc = json.load(open(out))
        params, meas = extrap_reader_check(doc)
        if params != ["p"]:
            fail("parameters %r, expected ['p'] (n is constant)" % params)
        want = csv_means(data, "calls")
        got = {(fn, m["point"][0]): m["values"][0]
               for fn, d in meas.items() for m in d["calls"]}
        if got != want:
            fail("values %r, expected the CSV's %r" % (sorted(got.items()), sorted(want.items())))
        models = {m["function"]: m for m in doc["mpicast"]["models"]}
        if set(models) != set(meas) or not all(m.get("formula") for m in models.values()):
            fail("mpicast models %r for regions %r" % (list(models), list(meas)))
        if doc["mpicast"]["by"] != "p":
            fail("mpicast.by %r" % doc["mpicast"]["by"])
        # the output over its input is refused, the input unchanged
        copy = os.path.join(tmp, "in.csv")
        shutil.copy(data, copy)
        before = open(copy).read()
        p = subprocess.run([mc, "model", copy, "--by", "p", "--extrap-json", copy],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if p.returncode != 2 or "is the input" not in p.stderr or open(copy).read() != before:
            fail("--extrap-json over its input: exit %d, %r" % (p.returncode, p.stderr))
        print("ok: %d regions, %d points" % (len(meas), len(got)))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
