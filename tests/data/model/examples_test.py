#!/usr/bin/env python3
"""Issue 7's end-to-end check: call counts of the bundled examples traced at
p = 1, 2, 4, 8 predict the counts traced at p = 16 and 32 (oversubscribed).

usage: examples_test.py MPICAST EXAMPLES_DIR
Prints the mean absolute percentage error per example and target, and fails
when one is above 5 % (the counts are deterministic: expected 0).
"""
import json
import os
import subprocess
import sys
import tempfile

MPICAST, EXAMPLES = sys.argv[1], sys.argv[2]
env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1")
CASES = {"cg": ["-s", "16", "-i", "10"], "master_worker": ["-s", "16", "-i", "40"],
         "halo2d": ["-s", "8", "-i", "5"]}
failed = False
with tempfile.TemporaryDirectory() as tmp:
    for name, args in CASES.items():
        exe = os.path.join(EXAMPLES, name)
        files = {}
        for p in (1, 2, 4, 8, 16, 32):
            out = os.path.join(tmp, f"{name}{p}")
            subprocess.run([MPICAST, "trace", "-o", out, "--", "mpirun", "-np", str(p),
                            "--oversubscribe", exe, *args], env=env, check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300)
            js = out + ".json"
            with open(js, "w") as f:
                subprocess.run([MPICAST, "stats", out, "--json"], stdout=f, check=True,
                               timeout=120)
            files[p] = js
        for target in (16, 32):
            inputs = [files[p] for p in (1, 2, 4, 8)] + [files[target]]
            r = subprocess.run([MPICAST, "model", *inputs, "--by", "p", "--predict",
                                f"p={target}", "--json"], capture_output=True, text=True,
                               timeout=120)
            if r.returncode != 0:
                print(f"{name} p={target}: exit {r.returncode}: {r.stderr}")
                failed = True
                continue
            doc = json.loads(r.stdout)
            mape = doc["mean_error_percent"]
            fams = {f["function"]: f["family"] for f in doc["functions"]}
            print(f"{name}: p=1,2,4,8 -> p={target}: MAPE {mape:.3f} % over "
                  f"{len(doc['functions'])} functions; relative cost "
                  f"{doc['cost']['relative_percent']:.1f} %; {fams}")
            if mape is None or mape > 5:
                failed = True
sys.exit(1 if failed else 0)
