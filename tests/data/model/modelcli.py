"""Shared by the `mpicast model` end-to-end tests of this directory: a failure
list, running the command, and the exit status at the end."""
import json
import subprocess
import sys

MPICAST = sys.argv[1] if len(sys.argv) > 1 else "mpicast"
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)


def run(*args):
    p = subprocess.run([MPICAST, *args], capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def model_doc(*args):
    """`model ARGS --json`, checked to exit 0: the document, or {} when not."""
    rc, out, err = run("model", *args, "--json")
    check(rc == 0, f"model {args}: exit {rc}: {err}")
    return json.loads(out) if rc == 0 else {}


def finish():
    if failures:
        print(f"{len(failures)} failure(s)", file=sys.stderr)
        sys.exit(1)
    print("ok")
