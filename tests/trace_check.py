#!/usr/bin/env python3
"""trace_check.py TRACE.json [lines] [launches=NAME,NAME...] [flows=NAME,...] - check a trace loomc wrote.

tests/run.sh runs it on the trace of every RUN line that writes one (%t), with
the words of the file's '# TRACE:' lines; tests/determinism/run.sh on its
traces too. What every trace must be (docs/simulator.md, "Trace"):
  - JSON with "traceEvents";
  - every timestamp and duration a whole number of nanoseconds (Chrome's
    microseconds with at most three decimals, read exactly), no duration
    negative;
  - no two complete ("X") slices of one track (pid, tid) overlap, not even
    by a nanosecond;
  - a slice's "line", where it has one, is a line (1 or more);
  - the launches thread (pid 0, tid 1) has one slice per run, each starting
    where the one before ends, the first at 0, and every slice of a core
    lies within one launch;
  - flow arrows (NoC transfers between cores): every id has one start ("s")
    and one finish ("f", bound to its enclosing slice), the finish not
    before the start, both on a core's track and each inside a slice of
    that track (so that viewers draw them).
With 'lines': every op slice has a line (the program was read from text, so
every statement has one). With 'launches=A,B': the runs are A then B. With
'flows=A,B': there are flow arrows named A and B (send, multicast,
semaphore_increment, semaphore_multicast: '_' for a space).
Prints what is wrong and exits 1; exits 0 silently when the trace is good.
"""
import bisect
import json
import sys
from collections import defaultdict
from decimal import Decimal


def ns(value, what):
    """Microseconds read exactly, as integer nanoseconds."""
    if isinstance(value, int):
        return value * 1000
    if not isinstance(value, Decimal):
        raise ValueError("%s is not a number: %r" % (what, value))
    n = value * 1000
    if n != n.to_integral_value():
        raise ValueError("%s %s us is not a whole number of nanoseconds" % (what, value))
    return int(n)


def check(path, words):
    with open(path) as f:
        trace = json.load(f, parse_float=Decimal)
    errors = []
    events = trace["traceEvents"]
    want_lines = "lines" in words
    want_runs = None
    want_flows = []
    for w in words:
        if w.startswith("launches="):
            want_runs = w[len("launches="):].split(",")
        if w.startswith("flows="):
            want_flows = [n.replace("_", " ") for n in w[len("flows="):].split(",")]
    have_flows = {e.get("name") for e in events if e.get("ph") == "s"}
    for n in want_flows:
        if n not in have_flows:
            errors.append("no flow arrow named '%s' (there are %s)" % (n, sorted(have_flows)))
    tracks = defaultdict(list)
    for e in events:
        ph = e.get("ph")
        if ph not in ("X", "C"):
            continue
        try:
            t0 = ns(e["ts"], "ts of %s" % e.get("name"))
            dur = ns(e["dur"], "dur of %s" % e.get("name")) if ph == "X" else 0
        except (KeyError, ValueError) as x:
            errors.append(str(x))
            continue
        if dur < 0:
            errors.append("slice %s has a negative duration" % e.get("name"))
        if ph != "X":
            continue
        args = e.get("args", {})
        if "line" in args and not (isinstance(args["line"], int) and args["line"] >= 1):
            errors.append("slice %s at %d ns has line %r" % (e.get("name"), t0, args["line"]))
        if want_lines and e["pid"] != 0 and args.get("op") and "line" not in args:
            errors.append("op slice %s (%s) at %d ns has no line" % (e.get("name"), args.get("op"), t0))
        tracks[(e["pid"], e.get("tid"))].append((t0, t0 + dur, e.get("name")))
    for key, slices in tracks.items():
        slices.sort()
        for a, b in zip(slices, slices[1:]):
            if b[0] < a[1]:
                errors.append("track pid %s tid %s: %s [%d, %d] ns overlaps %s [%d, %d] ns"
                              % (key[0], key[1], a[2], a[0], a[1], b[2], b[0], b[1]))
    runs = tracks.get((0, 1), [])
    if not runs:
        errors.append("no slice on the launches thread (pid 0, tid 1)")
    for i, r in enumerate(runs):
        start = runs[i - 1][1] if i else 0
        if r[0] != start:
            errors.append("launch %s starts at %d ns, not where the one before ends (%d ns)" % (r[2], r[0], start))
    if want_runs is not None and [r[2] for r in runs] != want_runs:
        errors.append("the launches are %s, expected %s" % ([r[2] for r in runs], want_runs))
    for key, slices in tracks.items():
        if key[0] == 0:
            continue
        for s in slices:
            if not any(r[0] <= s[0] and s[1] <= r[1] for r in runs):
                errors.append("track pid %s tid %s: %s [%d, %d] ns lies in no launch" % (key[0], key[1], s[2],
                                                                                         s[0], s[1]))
    errors += check_flows(events, tracks)
    return errors


def check_flows(events, tracks):
    """The flow rules of the docstring, on the X slices by track."""
    errors = []
    ends = defaultdict(dict)  # id -> {ph: event}
    for e in events:
        if e.get("ph") in ("s", "f"):
            if e["ph"] in ends[e.get("id")]:
                errors.append("flow %s has two '%s' events" % (e.get("id"), e["ph"]))
            ends[e.get("id")][e["ph"]] = e
    starts = {k: sorted(v) for k, v in tracks.items()}
    for fid, pair in ends.items():
        if set(pair) != {"s", "f"}:
            errors.append("flow %s has only %s" % (fid, sorted(pair)))
            continue
        t = {}
        for ph, e in pair.items():
            t[ph] = ns(e["ts"], "ts of flow %s" % fid)
            key = (e["pid"], e.get("tid"))
            sl = starts.get(key, [])
            # slices of a track do not overlap: the one that starts last at or before ts is the only
            # one that can hold it
            i = bisect.bisect_right(sl, (t[ph], float("inf"), "")) - 1
            if e["pid"] == 0 or i < 0 or not sl[i][0] <= t[ph] <= sl[i][1]:
                errors.append("flow %s: its '%s' at %d ns is in no slice of pid %s tid %s"
                              % (fid, ph, t[ph], e["pid"], e.get("tid")))
        if pair["f"].get("bp") != "e":
            errors.append("flow %s: the finish is not bound to its enclosing slice" % fid)
        if t["f"] < t["s"]:
            errors.append("flow %s ends at %d ns, before it starts at %d ns" % (fid, t["f"], t["s"]))
    return errors


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip().splitlines()[0])
        return 2
    try:
        errors = check(sys.argv[1], sys.argv[2:])
    except (OSError, ValueError, KeyError, TypeError) as x:
        errors = ["not a readable trace: %s" % x]
    for e in errors[:10]:
        print(e)
    if len(errors) > 10:
        print("... %d more" % (len(errors) - 10))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
