#!/usr/bin/env python3
# Owns the real-trace measurement: every shipped heuristic and auto side by
# side on the XLA traces, and the whole-command time under --time-limit.
"""Measure heuristics and auto on real traces, side by side in one run.

    python3 bench/field_run.py [--usmp PATH] [--out RAW.json] FILE...

FILE: MiniMalloc CSV problems, or .csv.gz (decompressed to a temporary
file first), e.g. bench/data/xla/*.csv.gz.  For each: first_fit and
best_fit with each order, greedy_by_size, greedy_by_conflicts, hill_climb
(only up to 2,000 buffers: its 500 re-placements take minutes beyond),
auto with its default budget, and auto with --time-limit 1 and 3.  Each is
one `usmp plan FILE [-a ALGO -p order=O] --no-isolate -o plan.json`
process under /usr/bin/time (auto runs as the default does: isolation as
configured); reported: plan total / lower bound (from the summary), wall
seconds, CPU seconds (user + system) and peak RSS.  The auto runs are
repeated (--repeat, default 3) and their median wall and CPU reported.  order=all is the smallest of the four
orders (it runs them one after another).  Prints a Markdown table; --out
writes the raw numbers as JSON.  Stdlib only.
"""

import argparse
import gzip
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

HEUR = [("first_fit", o) for o in ("size", "lifetime", "area", "conflicts")] + \
       [("best_fit", o) for o in ("size", "lifetime", "area", "conflicts")] + \
       [("greedy_by_size", None), ("greedy_by_conflicts", None),
        ("hill_climb", None)]


def run(usmp, path, args, tmp):
    out = os.path.join(tmp, "plan.json")
    tfile = os.path.join(tmp, "time.txt")
    cmd = ["/usr/bin/time", "-f", "%e %U %S %M", "-o", tfile, usmp, "plan",
           path] + args + ["-o", out]
    p = subprocess.run(cmd, capture_output=True, text=True)
    with open(tfile) as f:
        wall, u, s, rss = f.read().split()[-4:]
    total = bound = 0
    for m in re.finditer(r"total (\d+) bytes, lower bound (\d+)", p.stderr):
        total += int(m.group(1))
        bound += int(m.group(2))
    alg = re.search(r"algorithm (\S+)", p.stderr)
    return {"args": args, "exit": p.returncode, "wall": float(wall),
            "cpu": float(u) + float(s), "rss_mib": int(rss) / 1024.0,
            "total": total, "bound": bound,
            "winner": alg.group(1) if alg else None,
            "error": p.stderr.strip().splitlines()[-1] if p.returncode else None}


def shape(path):
    """Buffers, most alive at one time, decades of sizes."""
    ev, lo, hi, n = [], None, 0, 0
    with open(path) as fh:
        next(fh)
        for line in fh:
            _, b, e, z = line.strip().split(",")
            ev.append((int(b), 1))
            ev.append((int(e), -1))
            z = int(z)
            n += 1
            if z and (lo is None or z < lo):
                lo = z
            hi = max(hi, z)
    ev.sort()
    cur = top = 0
    for _, d in ev:
        cur += d
        top = max(top, cur)
    return n, top, math.log10(hi / lo) if lo else 0.0


def median_run(usmp, path, args, tmp, repeat):
    runs = [run(usmp, path, args, tmp) for _ in range(max(1, repeat))]
    out = dict(runs[0])
    for k in ("wall", "cpu", "rss_mib"):
        out[k] = sorted(r[k] for r in runs)[len(runs) // 2]
    out["walls"] = [r["wall"] for r in runs]
    out["exits"] = [r["exit"] for r in runs]
    out["totals"] = [r["total"] for r in runs]
    return out


def ratio(r):
    return r["total"] / r["bound"] if r["exit"] == 0 and r["bound"] else None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--usmp", default="build/src/cli/usmp")
    ap.add_argument("--out")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--report-only", metavar="RAW",
                    help="print the tables of a raw JSON file, run nothing")
    ap.add_argument("files", nargs="*")
    a = ap.parse_args(argv)
    if a.report_only:
        with open(a.report_only) as fh:
            print(report(json.load(fh)))
        return 0
    tmp = tempfile.mkdtemp(prefix="usmp-field-")
    results = {}
    try:
        for f in a.files:
            name = os.path.basename(f).split(".")[0]
            path = f
            if f.endswith(".gz"):
                path = os.path.join(tmp, name + ".csv")
                with gzip.open(f, "rb") as src, open(path, "wb") as dst:
                    shutil.copyfileobj(src, dst)
            n, alive, decades = shape(path)
            rows = {}
            for alg, order in HEUR:
                if alg == "hill_climb" and n > 2000:
                    continue
                args = ["-a", alg] + (["-p", "order=" + order] if order else [])
                key = alg + (":" + order if order else "")
                rows[key] = run(a.usmp, path, args + ["--no-isolate"], tmp)
                print(name, key, rows[key], file=sys.stderr)
            for key, args in (("auto", []),
                              ("auto --time-limit 1", ["--time-limit", "1"]),
                              ("auto --time-limit 3", ["--time-limit", "3"])):
                rows[key] = median_run(a.usmp, path, args, tmp, a.repeat)
            print(name, rows["auto"], file=sys.stderr)
            results[name] = {"buffers": n, "alive": alive,
                             "decades": decades, "runs": rows}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if a.out:
        with open(a.out, "w") as fh:
            json.dump(results, fh, indent=1, sort_keys=True)
    print(report(results))
    return 0


ORDERS = ("size", "lifetime", "area", "conflicts")
HNAMES = ["first_fit:" + o for o in ORDERS] + ["best_fit:" + o for o in ORDERS] + \
         ["greedy_by_size", "greedy_by_conflicts", "hill_climb"]


def summary(results):
    """Two tables: ratios side by side, then CPU and wall times."""
    L = ["| trace | buffers | alive at once | size decades | first_fit "
         "size / lifetime / area / conflicts | best_fit size / lifetime / "
         "area / conflicts | greedy_by_size | greedy_by_conflicts | "
         "hill_climb | best heuristic | auto |",
         "|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, res in sorted(results.items()):
        rows = res["runs"]

        def f(k):
            q = ratio(rows[k]) if k in rows else None
            return "%.4f" % q if q else "—"
        qs = [ratio(rows[k]) for k in HNAMES if k in rows and ratio(rows[k])]
        qa = ratio(rows["auto"])
        L.append("| %s | %d | %d | %.1f | %s | %s | %s | %s | %s | %s | **%s** |"
                 % (name, res["buffers"], res.get("alive", 0),
                    res.get("decades", 0),
                    " / ".join(f("first_fit:" + o) for o in ORDERS),
                    " / ".join(f("best_fit:" + o) for o in ORDERS),
                    f("greedy_by_size"), f("greedy_by_conflicts"),
                    f("hill_climb"), "%.4f" % min(qs) if qs else "—",
                    "%.4f" % qa if qa else "exit %d" % rows["auto"]["exit"]))
    L += ["", "| trace | CPU s: first_fit size / lifetime / area / conflicts "
          "| CPU s: best_fit size / lifetime / area / conflicts | CPU s: "
          "greedy_by_size / _conflicts | auto (default): wall, CPU | "
          "--time-limit 1: wall, CPU | --time-limit 3: wall, CPU | peak MiB "
          "first_fit / auto |", "|---|---|---|---|---|---|---|---|"]
    for name, res in sorted(results.items()):
        rows = res["runs"]

        def c(k):
            return "%.2f" % rows[k]["cpu"] if k in rows else "—"

        def w(k):
            r = rows[k]
            bad = [e for e in r.get("exits", [r["exit"]]) if e]
            return "%.2f s, %.2f s%s" % (r["wall"], r["cpu"],
                                         " (exit %s)" % bad if bad else "")
        L.append("| %s | %s | %s | %s / %s | %s | %s | %s | %.0f / %.0f |" % (
            name, " / ".join(c("first_fit:" + o) for o in ORDERS),
            " / ".join(c("best_fit:" + o) for o in ORDERS),
            c("greedy_by_size"), c("greedy_by_conflicts"), w("auto"),
            w("auto --time-limit 1"), w("auto --time-limit 3"),
            rows["first_fit:size"]["rss_mib"], rows["auto"]["rss_mib"]))
    return "\n".join(L)


def report(results):
    lines = [summary(results), "", "Every run:"]
    for name, res in sorted(results.items()):
        rows = res["runs"]
        lines.append("\n%s (%d buffers):\n" % (name, res["buffers"]))
        lines.append("| run | ratio | wall s | CPU s | peak MiB |")
        lines.append("|---|---|---|---|---|")
        for key, r in rows.items():
            q = ratio(r)
            lines.append("| %s | %s | %.2f | %.2f | %.0f |" % (
                key, "%.4f" % q if q else "exit %d" % r["exit"], r["wall"],
                r["cpu"], r["rss_mib"]))
        for alg in ("first_fit", "best_fit"):
            qs = [ratio(rows[k]) for k in rows if k.startswith(alg + ":")]
            qs = [q for q in qs if q]
            if qs:
                lines.append("| %s order=all (min of the four) | %.4f | | | |"
                             % (alg, min(qs)))
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
