#!/usr/bin/env python3
"""Every broken input of tests/bad (listed in tests/bad/MANIFEST) makes
mpicast exit with status 1 and the expected one-line message
"mpicast: FILE:WHERE: what is wrong" -- no crash, no hang, nothing on
stdout (except `dump`, which prints the readable prefix first).

usage: test_bad_inputs.py MPICAST BAD_DIR
"""
import os
import re
import shlex
import subprocess
import sys

# Files of tests/bad that are not cases: helpers and the valid inputs cases use.
NOT_CASES = {"MANIFEST", "mkbad.c", "ok-pingpong.txt", "ok-trace", "tit-list-rank0.txt"}


def load_manifest(path):
    cases = []
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            cols = line.split("\t")
            if len(cols) not in (3, 4) or (len(cols) == 4 and cols[3] != "report"):
                sys.exit(f"{path}:{lineno}: expected CASE, ARGS, REGEX [report] (tab-separated)")
            cases.append((lineno, cols[0], cols[1], cols[2], len(cols) == 4))
    return cases


def check(mpicast, bad_dir, lineno, case, args, regex, report):
    argv = [mpicast] + [case if a == "{}" else a for a in shlex.split(args)]
    # e.g. MPICAST_WRAPPER="valgrind -q --error-exitcode=99" (make analyze)
    wrapper = shlex.split(os.environ.get("MPICAST_WRAPPER", ""))
    try:
        p = subprocess.run(wrapper + argv, cwd=bad_dir, capture_output=True, text=True,
                           errors="replace", timeout=300)
    except subprocess.TimeoutExpired:
        return [f"MANIFEST:{lineno}: {case}: mpicast {args} did not finish in 300 s (hang?)"]
    errs = []
    lines = p.stderr.splitlines()
    if p.returncode != 1:
        errs.append(f"exit status {p.returncode}, expected 1")
    if p.stdout and argv[1] != "dump":  # dump streams the readable prefix first
        errs.append(f"wrote to stdout: {p.stdout[:200]!r}")
    if not lines:
        errs.append("no message on stderr")
    else:
        if not report and len(lines) != 1:
            errs.append(f"{len(lines)} lines on stderr, expected one")
        if not re.fullmatch("mpicast: " + regex, lines[0]):
            errs.append(f"message {lines[0]!r} does not match 'mpicast: {regex}'")
    return [f"MANIFEST:{lineno}: {case}: mpicast {args}: {e}" for e in errs]


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    mpicast, bad_dir = os.path.abspath(sys.argv[1]), sys.argv[2]
    cases = load_manifest(os.path.join(bad_dir, "MANIFEST"))
    failures = []
    for lineno, case, args, regex, report in cases:
        if not os.path.exists(os.path.join(bad_dir, case)):
            failures.append(f"MANIFEST:{lineno}: {case}: no such file in {bad_dir}")
            continue
        failures += check(mpicast, bad_dir, lineno, case, args, regex, report)
    # The valid inputs the cases combine with must work on their own, so that
    # a case fails because of its broken file only.
    for args in (["predict", "ok-pingpong.txt"], ["stats", "ok-trace"], ["predict", "ok-trace"]):
        p = subprocess.run([mpicast] + args, cwd=bad_dir, capture_output=True, text=True,
                           errors="replace", timeout=300)
        if p.returncode != 0:
            failures.append(f"control: mpicast {' '.join(args)}: exit {p.returncode}: {p.stderr[:300]}")
    listed = {c[1] for c in cases}
    for name in sorted(os.listdir(bad_dir)):
        if name not in listed and name not in NOT_CASES:
            failures.append(f"{name}: in {bad_dir} but not in MANIFEST")
    for f in failures:
        print("FAIL", f)
    print(f"{len(cases)} bad inputs, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
