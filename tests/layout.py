#!/usr/bin/env python3
"""layout.py BUILD - the house rules of src/'s layout, checked on a build.

docs/hacking.md "Layout" states them; this keeps them:
  1. folders: a file includes headers only of its own folder or of a folder
     below it in LAYERS (so sched/ never reaches lower/, ir/ never sim/);
  2. files: no two object files of the library call each other in a loop
     (read from the symbols each object defines and uses, `nm`), apart from
     the KNOWN_LOOPS listed with their reasons;
  3. sizes: no .c file over MAX_C_LINES lines, no folder over MAX_SHARE of
     src/'s lines.
Each rule counts one test per file or folder it looks at; the run ends with
'layout: N passed, N failed'.
"""
import os
import re
import subprocess
import sys

# Bottom to top. A folder may include from any folder on an earlier line;
# folders on one line are peers and may not include each other.
LAYERS = [
    ["util"],
    ["sym", "arch"],
    ["num", "df"],
    ["ir", "sim"],
    ["analysis"],
    ["front"],
    ["solve"],
    ["sched"],
    ["lower"],
    ["ttnn", "emit"],
    ["driver"],
    ["bench", "api"],
    ["cli"],
]
# Loops that are known and left, each with its reason; any other loop fails,
# and so does a listed one that grows or disappears (then drop it here).
KNOWN_LOOPS = set()
MAX_C_LINES = 1500
MAX_SHARE = 0.20

passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL [layout] " + what)


def rank_of():
    r = {}
    for i, row in enumerate(LAYERS):
        for f in row:
            r[f] = i
    return r


def sources():
    out = []
    for folder in sorted(os.listdir("src")):
        d = os.path.join("src", folder)
        if os.path.isdir(d):
            out += [os.path.join(d, f) for f in sorted(os.listdir(d)) if f.endswith((".c", ".h"))]
    return out


def check_includes(files, rank):
    check(sorted(rank) == sorted(f for f in os.listdir("src") if os.path.isdir("src/" + f)),
          "LAYERS lists exactly src/'s folders: %s" % sorted(rank))
    for path in files:
        me = path.split("/")[1]
        bad = []
        for m in re.finditer(r'^#include "([a-z_]+)/[^"]+"', open(path).read(), re.M):
            other = m.group(1)
            if other != me and (other not in rank or me not in rank or rank[other] >= rank[me]):
                bad.append(m.group(0))
        check(not bad, "%s includes from a folder that is not below it: %s" % (path, ", ".join(bad)))


def symbols(obj):
    text = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
    defs, uses = set(), set()
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "U":
            uses.add(parts[1])
        elif len(parts) == 3 and parts[1] in "TDBR":
            defs.add(parts[2])
    return defs, uses


def check_call_loops(build, files):
    objs = {}
    for path in files:
        if path.endswith(".c") and not path.startswith("src/cli/"):
            o = os.path.join(build, "obj", path[:-2] + ".o")
            check(os.path.exists(o), "%s is built (%s)" % (path, o))
            if os.path.exists(o):
                objs[path] = symbols(o)
    owner = {}
    for path, (defs, _) in objs.items():
        for s in defs:
            owner[s] = path
    edges = {p: sorted({owner[s] for s in uses if s in owner and owner[s] != p}) for p, (_, uses) in objs.items()}
    # Tarjan's strongly connected components
    index, low, stack, on, comps = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            comps.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    loops = [tuple(c) for c in comps if len(c) > 1]
    in_loop = {p for c in loops if c not in KNOWN_LOOPS for p in c}
    for c in loops:
        print("    call loop%s: %s" % (" (known)" if c in KNOWN_LOOPS else "", " <-> ".join(c)))
    for p in sorted(objs):
        check(p not in in_loop, "%s calls a file that calls it back" % p)
    for c in sorted(KNOWN_LOOPS):
        check(c in loops, "the known loop %s is gone or changed: update KNOWN_LOOPS" % " <-> ".join(c))


def check_sizes(files):
    lines = {p: sum(1 for _ in open(p)) for p in files}
    total = sum(lines.values())
    per = {}
    for p, n in lines.items():
        per[p.split("/")[1]] = per.get(p.split("/")[1], 0) + n
        if p.endswith(".c"):
            check(n <= MAX_C_LINES, "%s has %d lines (at most %d)" % (p, n, MAX_C_LINES))
    for f, n in sorted(per.items()):
        check(n <= MAX_SHARE * total, "src/%s holds %d of %d lines (%.0f%%, at most %.0f%%)"
              % (f, n, total, 100.0 * n / total, 100 * MAX_SHARE))


def main():
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    files = sources()
    check_includes(files, rank_of())
    check_call_loops(build, files)
    check_sizes(files)
    print("layout: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
