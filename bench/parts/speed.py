#!/usr/bin/env python3
# Owns the many-parts table: how planning scales with the number of parts,
# whole process, one usmp build or two side by side.
"""Plan problems of many small parts with one or more usmp builds.

    python3 bench/parts/speed.py [--usmp BUILD/src/cli/usmp]... [--runs N]
        [--sizes 40000,160000] [--out RAW.json]

Writes, into a temporary directory, for each N of --sizes (default 40000):
`single_N` (N parts, each one buffer in its own pool) and `chained_N` (N/2
parts, each three buffers in their own pool, one conflict edge and one
overlap rule inside every part). Each --usmp (default build/src/cli/usmp)
plans each problem as `/usr/bin/time -v USMP plan F -q --no-isolate -o
plan.json` (--runs times, default 1; the median is reported), and the first
build's plan is checked by `usmp verify`. Prints a Markdown table: CPU
(user + system) and wall seconds and peak RSS per build, and whether every
build's plan equals the first's (all but the "time_ms" fields). Stdlib only.
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile


def timed(cmd):
    """Run cmd under /usr/bin/time -v: (exit, wall s, cpu s, rss MiB)."""
    p = subprocess.run(["/usr/bin/time", "-v"] + cmd, capture_output=True,
                       text=True)
    err = p.stderr

    def field(name):
        m = re.search(r"^\s*" + re.escape(name) + r": (.*)$", err, re.M)
        return m.group(1) if m else "0"

    wall = 0.0
    for part in field("Elapsed (wall clock) time (h:mm:ss or m:ss)").split(":"):
        wall = wall * 60 + float(part)
    cpu = float(field("User time (seconds)")) + float(field("System time (seconds)"))
    rss = int(field("Maximum resident set size (kbytes)")) / 1024
    return p.returncode, wall, cpu, rss


def write_problem(path, parts, per_part):
    """parts parts of per_part buffers, each part with its own pool; with
    three or more buffers, one edge and one rule inside every part."""
    pools, bufs, conflicts, overlaps = [], [], [], []
    for i in range(parts):
        pools.append({"name": "p%d" % i, "size_limit": 1 << 20})
        for j in range(per_part):
            bufs.append({"name": "b%d_%d" % (i, j),
                         "size": 16 * (1 + (i + j) % 7),
                         "live": [j, j + 2], "pools": ["p%d" % i]})
        if per_part >= 3:
            conflicts.append(["b%d_0" % i, "b%d_%d" % (i, per_part - 1)])
            overlaps.append({"src": "b%d_0" % i, "dst": "b%d_1" % i,
                             "max_lead": 0})
    with open(path, "w") as f:
        json.dump({"pools": pools, "buffers": bufs, "conflicts": conflicts,
                   "overlaps": overlaps}, f)


def plan_body(path):
    """The plan without its timing fields."""
    def strip(x):
        if isinstance(x, dict):
            return {k: strip(v) for k, v in x.items() if k != "time_ms"}
        if isinstance(x, list):
            return [strip(v) for v in x]
        return x
    with open(path) as f:
        return strip(json.load(f))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--usmp", action="append", default=[])
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--sizes", default="40000")
    ap.add_argument("--out")
    a = ap.parse_args()
    builds = a.usmp or ["build/src/cli/usmp"]
    rows, raw = [], []
    with tempfile.TemporaryDirectory(prefix="usmp-parts-") as tmp:
        for n in (int(x) for x in a.sizes.split(",")):
            for name, parts, per in (("single_%d" % n, n, 1),
                                     ("chained_%d" % n, n // 2, 3)):
                prob = os.path.join(tmp, name + ".json")
                write_problem(prob, parts, per)
                cells, first = [], None
                same = True
                for k, exe in enumerate(builds):
                    out = os.path.join(tmp, "plan%d.json" % k)
                    runs = [timed([exe, "plan", prob, "-q", "--no-isolate",
                                   "-o", out]) for _ in range(a.runs)]
                    if any(r[0] for r in runs):
                        sys.exit("%s failed on %s" % (exe, name))
                    cpu = statistics.median(r[2] for r in runs)
                    wall = statistics.median(r[1] for r in runs)
                    rss = max(r[3] for r in runs)
                    body = plan_body(out)
                    if first is None:
                        first = body
                        if subprocess.run([exe, "verify", prob, out],
                                          capture_output=True).returncode:
                            sys.exit("%s: the plan of %s fails verify"
                                     % (exe, name))
                    else:
                        same = same and body == first
                    cells.append((cpu, wall, rss))
                    raw.append({"problem": name, "usmp": exe, "cpu": cpu,
                                "wall": wall, "rss_mib": rss})
                rows.append((name, parts, parts * per, cells, same))
    head = "| problem | parts | buffers |"
    sep = "|---|---:|---:|"
    for k in range(len(builds)):
        head += " CPU s (%d) | wall s (%d) | RSS MiB (%d) |" % (k + 1, k + 1, k + 1)
        sep += "---:|---:|---:|"
    print(head + " same plans |")
    print(sep + "---|")
    for name, parts, nbuf, cells, same in rows:
        line = "| %s | %d | %d |" % (name, parts, nbuf)
        for cpu, wall, rss in cells:
            line += " %.2f | %.2f | %.0f |" % (cpu, wall, rss)
        print(line + (" yes |" if same else " **no** |"))
    for k, exe in enumerate(builds):
        print("\n(%d) %s" % (k + 1, exe))
    if a.out:
        with open(a.out, "w") as f:
            json.dump(raw, f, indent=1)


if __name__ == "__main__":
    main()
