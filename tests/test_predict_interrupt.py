#!/usr/bin/env python3
"""Ctrl-C during `mpicast predict` (issue 9): SIGINT in the middle of a replay
stops it and prints the partial result — "PARTIAL RESULT" with the simulated
time reached, or with --json an "interrupted" object — and exits 130.

The signal is sent once the replay has started: stderr is a pty, so predict
shows its progress line (MPICAST_PROGRESS_INTERVAL=0: at the first event),
and the test waits for it. The trace (2 ranks, 10^6 ping-pong iterations,
4*10^6 events) takes seconds to replay, so the signal always lands inside it.
usage: test_predict_interrupt.py MPICAST"""
import json, os, pty, select, signal, subprocess, sys, tempfile, time

MPICAST = sys.argv[1]
ITERS = 1000000


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def run_interrupted(trace, extra):
    master, slave = pty.openpty()
    env = dict(os.environ, MPICAST_PROGRESS_INTERVAL="0")
    p = subprocess.Popen([MPICAST, "predict", trace] + extra, stdout=subprocess.PIPE,
                         stderr=slave, env=env)
    os.close(slave)
    seen, deadline = b"", time.time() + 120
    while b"predict: " not in seen:
        if time.time() > deadline or p.poll() is not None:
            p.kill()
            fail("no progress line before the end: %r" % seen[-200:])
        r, _, _ = select.select([master], [], [], 0.5)
        if r:
            seen += os.read(master, 4096)
    p.send_signal(signal.SIGINT)
    out, _ = p.communicate(timeout=120)
    # drain what predict wrote on the pty after the signal
    while True:
        r, _, _ = select.select([master], [], [], 0.2)
        if not r:
            break
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    os.close(master)
    return p.returncode, out.decode(), seen.decode(errors="replace")


with tempfile.TemporaryDirectory() as d:
    trace = os.path.join(d, "pingpong.txt")
    with open(trace, "w") as f:
        f.write("0 compute 1000\n1 compute 1000\n" +
                "0 send 1 0 8\n1 recv 0 0 8\n1 send 0 0 8\n0 recv 1 0 8\n" * ITERS)
    total = 2 + 4 * ITERS

    rc, out, err = run_interrupted(trace, [])
    if rc != 130:
        fail("exit status %d, expected 130\nstdout: %s\nstderr: %s" % (rc, out, err))
    if "interrupted at simulated time" not in err:
        fail("no 'interrupted at simulated time' on stderr: %r" % err[-300:])
    lines = out.splitlines()
    if not lines or not lines[0].startswith("PARTIAL RESULT"):
        fail("stdout does not start with PARTIAL RESULT: %r" % out[:300])
    words = lines[0].split()
    reached = float(words[words.index("time") + 1])
    events = int(words[words.index("after") + 1])
    if not (0 <= events < total):
        fail("events replayed %d not below the trace's %d" % (events, total))
    # each iteration is a round trip of 2 x (o + L + o) > 0: time grows with events
    if events > 1000 and not reached > 0:
        fail("simulated time reached %g after %d events" % (reached, events))
    if not any(l.startswith("predicted time") for l in lines):
        fail("no partial 'predicted time' line")

    rc, out, err = run_interrupted(trace, ["--json"])
    if rc != 130:
        fail("--json: exit status %d, expected 130" % rc)
    doc = json.loads(out)
    it = doc.get("interrupted")
    if not it or it.get("partial") is not True:
        fail("--json: no interrupted.partial: %r" % it)
    if not (0 <= it["events_replayed"] < total) or it["events_replayed"] != doc["events"]:
        fail("--json: events_replayed %r (events %r)" % (it["events_replayed"], doc["events"]))
    if doc["breakdown"] is not None:
        fail("--json: a breakdown without a free-network replay: %r" % doc["breakdown"])
    if doc["predicted_time"] < it["simulated_time_reached"]:
        fail("--json: partial predicted time below the time reached")
print("ok: interrupted after", events, "of", total, "events at", reached, "s")
