#!/usr/bin/env python3
"""Validates a Chrome trace-event JSON file (the subset mpicast writes):
usage: test_export_chrome_check.py FILE [--flows N] [--wait-on RANK] [--ranks N] [--strict]

Checks: the JSON object form with traceEvents; every event has name, ph,
pid; non-metadata events have tid and a numeric ts >= 0; X events a dur >= 0;
B/E pairs match per track (same name, properly nested, E not before B),
nothing left open; timestamps of B/E/X on a track never go back for B/E;
flow events: every id has exactly one start (s) and one finish (f); with
--strict the finish is not before the start (real traces: ranks' clocks
may be off by microseconds, so an arrow can point back; counted only). Prints a summary; exits 1 with the first problem."""
import json
import sys
from collections import defaultdict


def fail(msg):
    sys.exit("chrome trace invalid: " + msg)


def main():
    args = sys.argv[1:]
    path = args[0]
    want_flows = int(args[args.index("--flows") + 1]) if "--flows" in args else None
    wait_on = int(args[args.index("--wait-on") + 1]) if "--wait-on" in args else None
    want_ranks = int(args[args.index("--ranks") + 1]) if "--ranks" in args else None
    strict = "--strict" in args
    backwards = 0
    with open(path) as f:
        doc = json.load(f)
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        fail("no traceEvents array")
    stacks = defaultdict(list)
    last_ts = defaultdict(lambda: -1.0)
    flows = defaultdict(dict)
    counts = defaultdict(int)
    tracks = set()
    waits = defaultdict(int)
    for i, e in enumerate(doc["traceEvents"]):
        for k in ("name", "ph", "pid"):
            if k not in e:
                fail(f"event {i} has no {k}: {e}")
        ph = e["ph"]
        counts[ph] += 1
        if ph == "M":
            continue
        if "tid" not in e or not isinstance(e.get("ts"), (int, float)) or e["ts"] < 0:
            fail(f"event {i} needs tid and ts >= 0: {e}")
        track = (e["pid"], e["tid"])
        ts = float(e["ts"])
        if ph == "X":
            if not isinstance(e.get("dur"), (int, float)) or e["dur"] < 0:
                fail(f"X event {i} needs dur >= 0: {e}")
            tracks.add(track)
            if e.get("cat") == "wait":
                waits[e["tid"]] += 1
        elif ph in ("B", "E"):
            tracks.add(track)
            if ts + 1e-9 < last_ts[track]:
                fail(f"event {i}: time goes back on track {track}")
            last_ts[track] = ts
            if ph == "B":
                stacks[track].append((e["name"], ts))
            else:
                if not stacks[track]:
                    fail(f"event {i}: E without B on track {track}")
                name, t0 = stacks[track].pop()
                if name != e["name"]:
                    fail(f"event {i}: E of {e['name']} closes B of {name}")
                if ts < t0:
                    fail(f"event {i}: E before its B")
        elif ph in ("s", "f"):
            if "id" not in e:
                fail(f"flow event {i} has no id")
            if ph in flows[e["id"]]:
                fail(f"flow id {e['id']} has two '{ph}' events")
            flows[e["id"]][ph] = ts
        else:
            fail(f"event {i}: unexpected ph {ph}")
    for track, st in stacks.items():
        if st:
            fail(f"track {track}: {len(st)} B events never closed ({st[-1][0]})")
    for fid, f in flows.items():
        if set(f) != {"s", "f"}:
            fail(f"flow {fid} is not a start/finish pair")
        if f["f"] < f["s"]:
            if strict:
                fail(f"flow {fid} finishes before it starts")
            backwards += 1
    if want_flows is not None and len(flows) != want_flows:
        fail(f"{len(flows)} flows, expected {want_flows}")
    if wait_on is not None and waits[wait_on] == 0:
        fail(f"no wait slice on rank {wait_on}")
    if want_ranks is not None and len({t for _, t in tracks}) != want_ranks:
        fail(f"{len(tracks)} tracks, expected {want_ranks}")
    print(f"ok: {sum(counts.values())} events {dict(counts)}, {len(flows)} flows, "
          f"{len(tracks)} tracks, {backwards} flows pointing back in time")


main()
