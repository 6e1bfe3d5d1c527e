#!/usr/bin/env python3
"""Audit of extrapolation against real runs (issue 20, "never silently wrong").

Traces mini-apps at small process counts (Open MPI, oversubscribed), extrapolates every
set of them to other counts, traces the real run there and compares `dump --no-times`.
Every accepted pseudo-trace must equal the real trace; a refusal is fine. Where a refusal
names `--rule blocks=`, the audit states the distribution the program used and tries
again. Prints one line per case and a summary: equal, refused, WRONG (exit 1 if any).
A report, not a test (minutes of MPI runs).

usage: bench/extrap_audit.py BUILD_DIR [--only halo2d,halo3d,fft,halo1d,cg,...]
"""
import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile

ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")


def cases():
    """(program, args, trace sets, targets, extra args for one trace, distribution)."""
    out = []
    dist = {"-F": "ceil", "-R": "last"}
    for s in ["10", "13", "14", "15"]:
        for fl in [["-S"], ["-S", "-F"], ["-S", "-R"], ["-S", "-F", "-p"], ["-S", "-b"]]:
            d = next((dist[f] for f in fl if f in dist), "first")
            out.append(("halo2d", ["-s", s, "-i", "2"] + fl,
                        [[16], [9, 16], [4, 16], [16, 25], [4, 9]], [9, 25, 36, 12, 24],
                        ["--scaling", "strong"], d))
    for s in ["10", "11"]:
        for fl in [["-S"], ["-S", "-F"]]:
            d = "ceil" if "-F" in fl else "first"
            out.append(("halo3d", ["-s", s, "-i", "2"] + fl, [[8], [27], [8, 27]], [12, 18, 36],
                        ["--scaling", "strong"], d))
    for fl in [["-V", "-B", "10"], ["-V", "-B", "10", "-F"], ["-V", "-B", "12", "-F"]]:
        d = "ceil" if "-F" in fl else "first"
        out.append(("fft", ["-s", "8", "-i", "2"] + fl, [[16], [4, 16], [8, 16], [4, 8, 16]],
                    [8, 32, 12], [], d))
    strong = ["--scaling", "strong"]
    for fl in [[], ["-p"], ["-b"]]:
        for prog in ["halo1d", "halo1d_f"]:
            out.append((prog, ["-s", "16", "-i", "2"] + fl, [[4], [2, 4], [3, 5], [4, 8]],
                        [3, 6, 7, 12, 16], [], "first"))
    for fl in [["-S"], ["-S", "-F"], ["-S", "-R"], ["-S", "-p"]]:
        d = next((dist[f] for f in fl if f in dist), "first")
        for prog in ["halo1d", "halo1d_f"]:
            out.append((prog, ["-s", "100", "-i", "2"] + fl, [[4], [4, 8], [3, 5], [5, 7]],
                        [6, 7, 9, 12, 16], strong, d))
    out.append(("cg", ["-s", "16", "-i", "2"], [[4], [3, 5], [2, 4], [4, 8]],
                [6, 7, 12, 16], [], "first"))
    out.append(("ring", ["-s", "64", "-i", "2"], [[4], [3, 5]], [7, 8, 16], [], "first"))
    for fl in [[], ["-N"]]:
        out.append(("cg2d", ["-s", "16", "-i", "2"] + fl,
                    [[2, 4], [4, 8], [8, 16], [2, 4, 8], [4, 8, 16]], [8, 16, 32, 64], [],
                    "first"))
    for fl in [[], ["-x"], ["-x", "-H"]]:
        out.append(("cg_log2", ["-s", "64", "-i", "2"] + fl,
                    [[2, 4], [4, 8], [8, 16], [2, 4, 8], [4, 8, 16]], [8, 16, 32], [],
                    "first"))
    out.append(("mg", ["-s", "16", "-i", "2"], [[4], [9], [4, 9], [6, 12]],
                [6, 8, 12, 16, 36], [], "first"))
    for prog in ["mg", "mg_f"]:
        out.append((prog, ["-s", "16", "-i", "2", "-c"], [[4, 16], [16, 64], [4, 16, 64]],
                    [8, 32, 36, 128], [], "first"))
    out.append(("wavefront", ["-s", "16", "-i", "2"], [[9], [4, 9], [6, 12], [4, 6]],
                [6, 8, 12, 16, 20], [], "first"))
    for fl, sets in [([], [[4, 8, 16], [4, 8], [8, 16]]), (["-S"], [[4, 16], [4, 8, 16]]),
                     (["-V"], [[4, 8, 16], [4, 16]]), (["-G"], [[4, 8, 16], [4, 16]])]:
        out.append(("fft", ["-s", "8", "-i", "2"] + fl, sets, [2, 32, 64], [], "first"))
    return out


class Audit:
    def __init__(self, build, work):
        self.m = os.path.join(build, "bin", "mpicast")
        self.ex = os.path.join(build, "examples")
        self.work = work

    def trace(self, prog, args, p):
        key = hashlib.md5(("%s %s %d" % (prog, " ".join(args), p)).encode()).hexdigest()[:12]
        d = os.path.join(self.work, key)
        if not os.path.exists(os.path.join(d, "meta.json")):
            subprocess.run([self.m, "trace", "-o", d, "--", "mpirun", "--oversubscribe", "-np",
                            str(p), os.path.join(self.ex, prog)] + args, env=ENV,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return d if os.path.exists(os.path.join(d, "meta.json")) else None

    def dump(self, d):
        return subprocess.run([self.m, "dump", d, "--no-times"], capture_output=True,
                              text=True).stdout

    def extrapolate(self, traces, target, extra):
        out = os.path.join(self.work, "x")
        shutil.rmtree(out, ignore_errors=True)
        r = subprocess.run([self.m, "extrapolate"] + traces + ["--ranks", str(target), "-o", out]
                           + extra, capture_output=True, text=True)
        lines = r.stderr.strip().splitlines()
        self.unchecked = any(l.startswith("mpicast: warning: extrapolate: unchecked")
                             for l in lines)
        lines = [l for l in lines if not l.startswith("mpicast: warning")]
        return (out if r.returncode == 0 else None), (lines[-1] if lines else "")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--only", default="")
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="mc_audit_")
    au = Audit(a.build, work)
    tally = {"equal": 0, "refused": 0, "WRONG": 0, "equal with the rule": 0,
             "differs, warned unchecked": 0}
    try:
        for prog, args, sets, targets, single, dist in cases():
            if a.only and prog not in a.only.split(","):
                continue
            for ss in sets:
                tr = [au.trace(prog, args, p) for p in ss]
                if None in tr:
                    print("no trace %s %s %s" % (prog, " ".join(args), ss), flush=True)
                    continue
                for t in targets:
                    if t in ss:
                        continue
                    extra = single if len(ss) == 1 else []
                    out, why = au.extrapolate(tr, t, extra)
                    verdict = "refused"
                    if not out and "--rule blocks=" in why:
                        out, why2 = au.extrapolate(tr, t, extra + ["--rule", "blocks=" + dist])
                        verdict, why = ("refused", why2) if not out else ("with the rule", why)
                    if out:
                        real = au.trace(prog, args, t)
                        if not real:
                            print("no real trace %s %s %d" % (prog, " ".join(args), t))
                            continue
                        same = au.dump(out) == au.dump(real)
                        if same:
                            verdict = "equal" if verdict != "with the rule" else \
                                "equal with the rule"
                        else:  # one trace: its laws are assumed, and the warning says so
                            verdict = "differs, warned unchecked" if au.unchecked else "WRONG"
                    tally[verdict] += 1
                    print("%-20s %-8s %s %s -> %d %s" % (verdict, prog, " ".join(args), ss, t,
                                                        why[:120] if verdict == "refused" else ""),
                          flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("summary: " + ", ".join("%d %s" % (v, k) for k, v in tally.items()))
    return 1 if tally["WRONG"] else 0


if __name__ == "__main__":
    sys.exit(main())
