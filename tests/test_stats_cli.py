#!/usr/bin/env python3
"""`mpicast stats` and `mpicast dump` on the synthetic trace of
test_stats_mktrace.c, every figure derived by hand from its events.

usage: test_stats_cli.py MPICAST MKTRACE DATADIR MODE
MODE: values | text | dump | truncated | exits
MPICAST_REGEN_GOLDEN=1 rewrites tests/data/stats_trace.dump (review the diff).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

MPICAST, MKTRACE, DATADIR, MODE = sys.argv[1:5]


def run(*args):
    p = subprocess.run([MPICAST, *args], capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def eq(what, got, want, tol=None):
    ok = abs(got - want) <= tol if tol is not None else got == want
    if not ok:
        fail(f"{what}: got {got!r}, want {want!r}")


def make_trace(tmp):
    d = os.path.join(tmp, "t")
    subprocess.run([MKTRACE, d], check=True, timeout=60)
    return d


NS = 1e-9
# Per rank: (calls, bytes, MPI ns excluding Init/Finalize, app ns, sends, send bytes).
# Rank 0: Init, Send 100, Isend 300, Send 50 (PROC_NULL), Send_init 64, Recv_init 32,
#   Startall, Start, Waitall, Request_free, Allreduce 8, Sendrecv 40, Finalize.
#   MPI ns 200+100+10+10+10+20+5+500+1+1000+300; app = Finalize start 7000 - Init end 0.
#   sends: Send 100, Isend 300, Startall(req 2) 64, Start(req 2) 64, Sendrecv 40.
# Rank 1: Init, Recv 100, Recv_init 64, Start, Wait, Start, Wait, Allreduce 8,
#   Ssend 1000, Comm_split (bytes field = key, not counted), Finalize.
# Rank 2 (no Init/Finalize: app = last end 7210 - first start 1000): Irecv 300,
#   Recv 1000, Send_init 32, Start, Allreduce 8, Sendrecv_replace 40, Waitall,
#   Bsend 16, Irsend 24.
RANKS = {
    0: (13, 594, 2156, 7000, 5, 568),
    1: (11, 1172, 500 + 10 + 5 + 200 + 5 + 100 + 900 + 200 + 100, 7000, 1, 1000),
    2: (9, 1420, 10 + 5200 + 10 + 10 + 100 + 300 + 50 + 10 + 10, 6210, 4, 112),
}
# function -> per rank (calls, bytes, ns)
FUNCTIONS = {
    "MPI_Send": {0: (2, 150, 210)},
    "MPI_Allreduce": {0: (1, 8, 1000), 1: (1, 8, 900), 2: (1, 8, 100)},
    "MPI_Start": {0: (1, 0, 5), 1: (2, 0, 10), 2: (1, 0, 10)},
    "MPI_Init": {0: (1, 0, 5000), 1: (1, 0, 3000)},
    "MPI_Comm_split": {1: (1, 0, 100)},
    "MPI_Recv": {1: (1, 100, 500), 2: (1, 1000, 5200)},
}


def check_values(doc):
    eq("ranks", doc["ranks"], 3)
    eq("truncated", doc["truncated"], False)
    eq("warnings", doc["warnings"], [])
    m = doc["messages"]
    eq("messages.sends", m["sends"], 10)
    eq("messages.total_bytes", m["total_bytes"], 1680)
    eq("messages.sends_per_rank", m["sends_per_rank"], 10 / 3, 1e-12)
    eq("messages.avg_bytes", m["avg_bytes"], 168.0, 1e-12)
    mpi_sum = sum(r[2] for r in RANKS.values())
    app_sum = sum(r[3] for r in RANKS.values())
    eq("mpi_time", doc["mpi_time"], mpi_sum * NS, 1e-15)
    eq("app_time", doc["app_time"], 7000 * NS, 1e-15)
    eq("mpi_percent", doc["mpi_percent"], 100.0 * mpi_sum / app_sum, 1e-9)
    eq("calls", doc["calls"], sum(r[0] for r in RANKS.values()))
    eq("bytes", doc["bytes"], sum(r[1] for r in RANKS.values()))
    eq("len(per_rank)", len(doc["per_rank"]), 3)
    for r, (calls, nbytes, mpi, app, sends, sbytes) in RANKS.items():
        pr = doc["per_rank"][r]
        eq(f"per_rank[{r}].rank", pr["rank"], r)
        eq(f"per_rank[{r}].calls", pr["calls"], calls)
        eq(f"per_rank[{r}].bytes", pr["bytes"], nbytes)
        eq(f"per_rank[{r}].mpi_time", pr["mpi_time"], mpi * NS, 1e-15)
        eq(f"per_rank[{r}].app_time", pr["app_time"], app * NS, 1e-15)
        eq(f"per_rank[{r}].mpi_percent", pr["mpi_percent"], 100.0 * mpi / app, 1e-9)
        eq(f"per_rank[{r}].sends", pr["sends"], sends)
        eq(f"per_rank[{r}].send_bytes", pr["send_bytes"], sbytes)
    fns = doc["functions"]
    for name, per in FUNCTIONS.items():
        f = fns[name]
        eq(f"{name}.calls", f["calls"], sum(v[0] for v in per.values()))
        eq(f"{name}.bytes", f["bytes"], sum(v[1] for v in per.values()))
        eq(f"{name}.time", f["time"], sum(v[2] for v in per.values()) * NS, 1e-15)
        eq(f"{name}.per_rank length", len(f["per_rank"]), 3)
        for r in range(3):
            c, b, t = per.get(r, (0, 0, 0))
            pr = f["per_rank"][r]
            eq(f"{name}.per_rank[{r}]", (pr["rank"], pr["calls"], pr["bytes"]), (r, c, b))
            eq(f"{name}.per_rank[{r}].time", pr["time"], t * NS, 1e-15)
    eq("MPI_Allreduce.kind", fns["MPI_Allreduce"]["kind"], "collective")
    eq("MPI_Comm_split.kind", fns["MPI_Comm_split"]["kind"], "communicator")
    eq("MPI_Init.kind", fns["MPI_Init"]["kind"], "other")
    eq("function names", "MPI_compute" in fns or "MPI_Rsend" in fns, False)
    # every function's calls add up to the per-rank calls
    eq("sum of function calls", sum(f["calls"] for f in fns.values()), doc["calls"])
    sites = doc["sites"]
    top = sites[0]
    eq("sites[0]", (top["id"], top["mpi"], top["calls"]), (0x31, "MPI_Recv", 1))
    eq("sites[0].time", top["time"], 5200 * NS, 1e-15)
    eq("sites[0].mpi_percent", top["mpi_percent"], 100.0 * 5200 / mpi_sum, 1e-9)
    eq("sites[1]", (sites[1]["id"], sites[1]["mpi"], sites[1]["calls"], sites[1]["caller"],
                    sites[1]["file"], sites[1]["line"]), (0x14, "MPI_Allreduce", 3, "solve",
                                                          "app.c", 14))
    eq("sites[1].time", sites[1]["time"], 2000 * NS, 1e-15)
    send = [s for s in sites if s["id"] == 0x11]
    eq("site 0x11", (send[0]["mpi"], send[0]["calls"], send[0]["bytes"]), ("MPI_Send", 2, 150))
    eq("site times sum to MPI time", sum(s["time"] for s in sites), mpi_sum * NS, 1e-12)


def mode_values(tmp):
    d = make_trace(tmp)
    rc, out, err = run("stats", d, "--json")
    eq("exit", rc, 0)
    check_values(json.loads(out))


def mode_text(tmp):
    d = make_trace(tmp)
    rc, out, err = run("stats", d)
    eq("exit", rc, 0)
    eq("stderr", err, "")
    for needle in ["MPI_Allreduce", "messages          10", "per rank          3.33",
                   "average length    168.00 bytes", "total volume      1680 bytes",
                   "solve (app.c:14)"]:
        if needle not in out:
            fail(f"text output lacks {needle!r}:\n{out}")


def mode_dump(tmp):
    d = make_trace(tmp)
    rc, out, err = run("dump", d, "--no-times")
    eq("exit", rc, 0)
    golden_path = os.path.join(DATADIR, "stats_trace.dump")
    if os.environ.get("MPICAST_REGEN_GOLDEN") == "1":  # after a deliberate format change
        with open(golden_path, "w") as f:
            f.write(out)
    with open(golden_path) as f:
        golden = f.read()
    if out != golden:
        fail(f"dump --no-times differs from the golden file:\n{out}")
    rc, out1, _ = run("dump", d, "--no-times", "--rank", "1")
    eq("exit --rank 1", rc, 0)
    eq("--rank 1 lines", out1, "".join(l + "\n" for l in golden.splitlines() if l.startswith("1 ")))
    rc, timed, _ = run("dump", d)
    eq("exit with times", rc, 0)
    first = timed.splitlines()[1]
    eq("timed line", first, "0 Send comm=world peer=1 tag=1 bytes=100 site=11 start=1000 end=1200 burst=1000")


def mode_truncated(tmp):
    d = make_trace(tmp)
    path = os.path.join(d, "rank-000001.mct")
    size = os.path.getsize(path)
    with open(path, "r+b") as f:
        f.truncate(size - 3)  # inside the last chunk (Comm_split ... Finalize)
    rc, out, err = run("stats", d, "--json")
    eq("stats exit on truncated", rc, 0)
    doc = json.loads(out)
    eq("truncated", doc["truncated"], True)
    eq("warnings count", len(doc["warnings"]), 1)
    if "rank-000001.mct" not in doc["warnings"][0] or "rank-000001.mct" not in err:
        fail(f"warning does not name the file: {doc['warnings']} / {err}")
    eq("stderr lines", len(err.splitlines()), 1)
    # rank 1 keeps its first two chunks: Init .. Wait, Start, Wait, Allreduce (8 events)
    pr = doc["per_rank"][1]
    eq("rank 1 calls in prefix", pr["calls"], 8)
    eq("rank 1 mpi_time in prefix", pr["mpi_time"], (500 + 10 + 5 + 200 + 5 + 100 + 900) * NS, 1e-15)
    eq("rank 1 app_time in prefix", pr["app_time"], 5900 * NS, 1e-15)
    eq("rank 0 untouched", doc["per_rank"][0]["calls"], 13)
    rc, out, err = run("dump", d, "--no-times")
    eq("dump exit on truncated", rc, 1)
    lines = out.splitlines()
    eq("dump lines on truncated", len([l for l in lines if l.startswith("1 ")]), 8)
    eq("dump prints the later ranks", len([l for l in lines if l.startswith("2 ")]), 9)
    errs = err.splitlines()
    eq("dump error lines", len(errs), 1)
    if not (errs[0].startswith("mpicast: ") and path in errs[0] and "offset" in errs[0]):
        fail(f"dump error does not name the file and offset: {errs[0]}")


def mode_exits(tmp):
    missing = os.path.join(tmp, "nope")
    for cmd in ("stats", "dump"):
        rc, out, err = run(cmd, missing)
        eq(f"{cmd} missing dir", rc, 1)
        errs = err.splitlines()
        eq(f"{cmd} missing dir: one error line", len(errs), 1)
        if not errs[0].startswith("mpicast: ") or missing not in errs[0]:
            fail(f"{cmd}: error does not name the directory: {err}")
        eq(f"{cmd} missing dir: no stdout", out, "")
        for bad in ([], ["--bogus", tmp], [tmp, tmp]):
            rc, out, err = run(cmd, *bad)
            eq(f"{cmd} {bad}", rc, 2)
            eq(f"{cmd} {bad}: one error line", len(err.splitlines()), 1)
        rc, out, err = run(cmd, "--help")
        eq(f"{cmd} --help", rc, 0)
        if not out.startswith(f"usage: mpicast {cmd}"):
            fail(f"{cmd} --help: {out}")
    for bad in (["--rank"], ["--rank", "x"], ["--rank", "-1"]):
        rc, _, _ = run("dump", tmp, *bad)
        eq(f"dump {bad}", rc, 2)
    d = make_trace(tmp)
    rc, out, err = run("dump", d, "--rank", "3")
    eq("dump --rank beyond the trace", rc, 1)
    # a corrupt (not truncated) rank file is fatal for stats
    path = os.path.join(d, "rank-000002.mct")
    data = bytearray(open(path, "rb").read())
    data[40] ^= 0xff  # inside the first chunk's header/payload
    open(path, "wb").write(bytes(data))
    rc, out, err = run("stats", d, "--json")
    eq("stats on corrupt chunk", rc, 1)
    eq("stats on corrupt chunk: no stdout", out, "")
    if "rank-000002.mct" not in err:
        fail(f"corrupt chunk error does not name the file: {err}")


def main():
    tmp = tempfile.mkdtemp(prefix="mc-stats-")
    try:
        {"values": mode_values, "text": mode_text, "dump": mode_dump,
         "truncated": mode_truncated, "exits": mode_exits}[MODE](tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
