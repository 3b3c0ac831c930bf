#!/usr/bin/env python3
# check_file_cycles.py — no source file of libusmp (src/*.c) or of the usmp command
# (src/cli/*.c) calls, directly or round a longer loop, back into itself. TAP output.
"""Usage: check_file_cycles.py BUILD_DIR [NM]

Finds the objects of the static library usmp_internal (every libusmp
source, compiled once) and of the executable usmp (the command's sources)
through BUILD_DIR/meson-info/intro-targets.json, and reads each object's
symbols with NM (default: nm). File A "calls into" file B when A uses (an
undefined symbol) what B defines (a global symbol): a function or a
table. One TAP test per target: ok when that graph has no cycle, otherwise
not ok naming each cycle, with the symbols that make its edges; before
them, one test that the checker finds a cycle planted in a made-up graph.

An object that is missing (the target not built) or a graph without a
single edge is a bail-out, not a pass.
"""

import json
import os
import subprocess
import sys
from collections import deque

# The targets checked, each separately: (meson target name, type, label).
TARGETS = [
    ("usmp_internal", "static library", "libusmp (src/*.c)"),
    ("usmp", "executable", "the usmp command (src/cli/*.c)"),
]

# Edges (caller, callee) left out of the graph: none. Add nothing; remove the
# cycle instead.
ALLOWED = set()

# nm -P types: defined global symbols, and references to undefined ones.
DEFINED = set("ABCDGIRSTVWi")
UNDEFINED = set("Uwv")

def bail(msg):
    print(f"Bail out! {msg}")
    sys.exit(1)


def find_target(targets, name, ttype):
    for t in targets:
        if t["name"] == name and t["type"] == ttype:
            return t
    bail(f"no {ttype} target {name!r} in the build's introspection data")


def target_objects(t, src_root):
    """{object path: source path relative to src_root} for target t."""
    out = t["filename"][0]
    private = out + ".p"
    if not os.path.isdir(private):
        bail(f"{private}: no object directory (is the target built?)")
    sources = []
    for ts in t["target_sources"]:
        sources += [s for s in ts.get("sources", []) if s.endswith(".c")]
    objects = {}
    missing = []
    for src in sources:
        rel = os.path.relpath(src, src_root)
        obj = os.path.join(private, os.path.basename(src) + ".o")
        if not os.path.isfile(obj):
            # meson names an object after the source's path below the
            # target's directory, '/' turned to '_'.
            cands = [f for f in os.listdir(private)
                     if f.endswith("_" + os.path.basename(src) + ".o")]
            if len(cands) != 1:
                missing.append(rel)
                continue
            obj = os.path.join(private, cands[0])
        objects[obj] = rel
    if missing:
        bail(f"{t['name']}: no object for {', '.join(missing)} (not built?)")
    if not objects:
        bail(f"{t['name']}: no C sources")
    return objects


def symbols(nm, obj):
    """(defined global symbols, undefined symbols) of one object."""
    res = subprocess.run([nm, "-P", obj], capture_output=True, text=True)
    if res.returncode:
        bail(f"{nm} -P {obj} failed: {res.stderr.strip()}")
    defined, undefined = set(), set()
    for line in res.stdout.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind in DEFINED:
            defined.add(name)
        elif kind in UNDEFINED:
            undefined.add(name)
    return defined, undefined


def call_graph(nm, objects):
    """{caller: {callee: sorted symbols}} over the objects' source files."""
    defs, uses = {}, {}
    for obj, src in objects.items():
        defs[src], uses[src] = symbols(nm, obj)
    owner = {}
    for src, names in defs.items():
        for n in names:
            owner.setdefault(n, src)
    graph = {src: {} for src in objects.values()}
    for src, names in uses.items():
        for n in names:
            dst = owner.get(n)
            if dst and dst != src:
                graph[src].setdefault(dst, []).append(n)
    for edges in graph.values():
        for dst in edges:
            edges[dst].sort()
    return graph


def components(graph):
    """The strongly connected components of more than one file (Tarjan)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        # Iterative, so a long chain cannot exhaust Python's recursion.
        work = [(v, iter(sorted(graph[v])))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        while work:
            node, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    advanced = True
                    break
                if w in on:
                    low[node] = min(low[node], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def shortest_cycle(graph, comp):
    """A shortest cycle through the first file of comp, inside comp."""
    start, inside = comp[0], set(comp)
    prev = {start: None}
    queue = deque([start])
    while queue:
        v = queue.popleft()
        for w in sorted(graph[v]):
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return list(reversed(path)) + [start]
            if w in inside and w not in prev:
                prev[w] = v
                queue.append(w)
    return comp + [comp[0]]


def describe(graph, comp):
    cycle = shortest_cycle(graph, comp)
    steps = []
    for a, b in zip(cycle, cycle[1:]):
        names = graph[a][b]
        more = f" and {len(names) - 2} more" if len(names) > 2 else ""
        steps.append(f"{a} calls {', '.join(names[:2])}{more} of {b}")
    text = "cycle " + " -> ".join(cycle) + " (" + "; ".join(steps) + ")"
    if len(comp) > len(cycle) - 1:
        text += "; files caught in it: " + ", ".join(comp)
    return text


def check(graph, label):
    """(ok, lines): the TAP verdict and its diagnostics for one graph."""
    notes = []
    if not any(graph.values()):
        bail(f"{label}: no file calls another; the objects look wrong")
    kept = {a: {b: s for b, s in edges.items() if (a, b) not in ALLOWED}
            for a, edges in graph.items()}
    for a, b in sorted(ALLOWED):
        if a not in graph:
            continue
        if b not in graph[a]:
            notes.append(f"# allowed edge {a} -> {b} is gone: remove it "
                         "from ALLOWED")
            continue
        with_edge = {k: dict(v) for k, v in kept.items()}
        with_edge[a][b] = graph[a][b]
        if not any(a in c and b in c for c in components(with_edge)):
            notes.append(f"# allowed edge {a} -> {b} closes no cycle: "
                         "remove it from ALLOWED")
        else:
            notes.append(f"# allowed for now (ALLOWED must be emptied): "
                         f"{a} -> {b} ({', '.join(graph[a][b])})")
    comps = components(kept)
    return not comps, [describe(kept, c) for c in comps], notes


def self_test():
    """(ok, message): check() finds and names a planted three-file cycle,
    and passes the same graph with one of its edges removed."""
    planted = {
        "src/a.c": {"src/b.c": ["f"]},
        "src/b.c": {"src/c.c": ["g"]},
        "src/c.c": {"src/a.c": ["h"], "src/d.c": ["k"]},
        "src/d.c": {},
    }
    ok, cycles, _ = check(planted, "planted")
    want = "cycle src/a.c -> src/b.c -> src/c.c -> src/a.c"
    if ok or len(cycles) != 1 or not cycles[0].startswith(want):
        return False, f"planted cycle not reported as {want!r}: {cycles}"
    del planted["src/c.c"]["src/a.c"]
    ok, cycles, _ = check(planted, "planted")
    if not ok:
        return False, f"acyclic graph reported as cyclic: {cycles}"
    return True, "a planted cycle a.c -> b.c -> c.c -> a.c is found and named"


def main(argv):
    if len(argv) not in (2, 3):
        sys.exit(__doc__)
    build = argv[1]
    nm = argv[2] if len(argv) == 3 else "nm"
    info = os.path.join(build, "meson-info")
    try:
        with open(os.path.join(info, "intro-targets.json"),
                  encoding="utf-8") as f:
            targets = json.load(f)
        with open(os.path.join(info, "meson-info.json"),
                  encoding="utf-8") as f:
            src_root = json.load(f)["directories"]["source"]
    except (OSError, KeyError, ValueError) as e:
        bail(f"{build}: not a configured meson build directory ({e})")

    print(f"1..{len(TARGETS) + 1}")
    ok, message = self_test()
    print(f"{'ok' if ok else 'not ok'} 1 - the checker: {message}")
    failed = 0 if ok else 1
    for n, (name, ttype, label) in enumerate(TARGETS, 2):
        t = find_target(targets, name, ttype)
        graph = call_graph(nm, target_objects(t, src_root))
        edges = sum(len(e) for e in graph.values())
        ok, cycles, notes = check(graph, label)
        for line in notes:
            print(line)
        if ok:
            print(f"ok {n} - {label}: {len(graph)} files, {edges} "
                  "calls-into edges, no cycle")
        else:
            failed += 1
            print(f"not ok {n} - {label}: {len(cycles)} cycle(s)")
            for c in cycles:
                print(f"# {c}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
