#!/usr/bin/env python3
# Owns the fit plugin's old-versus-new speed table: two usmp builds run side
# by side on the same problems, whole process, with `usmp verify` beside.
"""Compare first_fit/best_fit of two usmp builds, whole process, in one run.

    python3 bench/fit/compare.py --old OLD/usmp --new NEW/usmp
        [--algos first_fit,best_fit] [--runs 3] [--old-runs N]
        [--skip-old ALGO:FILE,...] [--out RAW.json] FILE...

For each FILE (a MiniMalloc CSV; .csv.gz is decompressed to a temporary
file first) and algorithm: `/usr/bin/time -v USMP plan FILE -a ALGO -q
--no-time-limit -o plan.json` with the old and the new build alternately
(--runs times each; --old-runs overrides the old build's count, e.g. 1 for
runs of minutes), then `usmp verify FILE plan.json` of the new plan
(--runs times, its exit status must be 0), and a comparison of the two
plans (all but their "time_ms" fields). Prints a Markdown table of medians: wall and CPU (user + system)
seconds and peak RSS, old and new, verify CPU, and whether the plans are
identical. --skip-old ALGO:BASENAME runs only the new build there. Stdlib
only.
"""

import argparse
import gzip
import json
import os
import re
import shutil
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
        m = re.search(re.escape(name) + r":\s*(\S+)", err)
        return m.group(1) if m else "0"

    wall = field("Elapsed (wall clock) time (h:mm:ss or m:ss)")
    parts = [float(x) for x in wall.split(":")]
    secs = 0.0
    for x in parts:
        secs = secs * 60 + x
    cpu = float(field("User time (seconds)")) + \
        float(field("System time (seconds)"))
    rss = int(field("Maximum resident set size (kbytes)")) / 1024.0
    return p.returncode, secs, cpu, rss


def plain(path, tmp):
    if not path.endswith(".gz"):
        return path
    out = os.path.join(tmp, os.path.basename(path)[:-3])
    with gzip.open(path, "rb") as f, open(out, "wb") as g:
        shutil.copyfileobj(f, g)
    return out


def med(xs):
    return statistics.median(xs) if xs else None


def one(args, path, algo, tmp, skip_old):
    plans = {}
    res = {"old": [], "new": []}
    runs = {"old": 0 if skip_old else (args.old_runs or args.runs),
            "new": args.runs}
    for i in range(max(runs.values())):
        for b in ("old", "new"):
            if i >= runs[b]:
                continue
            usmp = getattr(args, b)
            plan = os.path.join(tmp, "%s.json" % b)
            rc, wall, cpu, rss = timed([usmp, "plan", path, "-a", algo, "-q",
                                        "--no-time-limit", "-o", plan])
            if rc != 0:
                sys.exit("%s %s %s: exit %d" % (b, path, algo, rc))
            res[b].append((wall, cpu, rss))
            with open(plan) as f:  # the same but for the timings
                plans[b] = re.sub(r'"time_ms": [0-9.e+-]+', "", f.read())
    ver = []
    for _ in range(args.runs):
        rc, wall, cpu, rss = timed([args.new, "verify", path,
                                    os.path.join(tmp, "new.json")])
        if rc != 0:
            sys.exit("verify %s %s: exit %d" % (path, algo, rc))
        ver.append(cpu)
    row = {"file": os.path.basename(path), "algo": algo,
           "verify_cpu": med(ver),
           "same": plans.get("old") == plans["new"] if "old" in plans
           else None}
    for b in ("old", "new"):
        for k, j in (("wall", 0), ("cpu", 1), ("rss", 2)):
            row["%s_%s" % (b, k)] = med([r[j] for r in res[b]])
        row["%s_runs" % b] = len(res[b])
    return row


def fmt(x, unit=""):
    return "—" if x is None else ("%.2f%s" % (x, unit))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", required=True)
    ap.add_argument("--new", required=True)
    ap.add_argument("--algos", default="first_fit,best_fit")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--old-runs", type=int, default=0)
    ap.add_argument("--skip-old", default="")
    ap.add_argument("--out")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    skip = set(x for x in args.skip_old.split(",") if x)
    rows = []
    tmp = tempfile.mkdtemp(prefix="fitcmp")
    try:
        print("| problem | algorithm | CPU old → new | wall old → new | "
              "RSS old → new (MiB) | verify CPU | new / verify | plans |")
        print("|---|---|---|---|---|---|---|---|")
        for f in args.files:
            path = plain(f, tmp)
            for algo in args.algos.split(","):
                key = "%s:%s" % (algo, os.path.basename(path))
                r = one(args, path, algo, tmp, key in skip)
                rows.append(r)
                ratio = r["new_cpu"] / r["verify_cpu"] \
                    if r["verify_cpu"] else None
                same = {True: "identical", False: "DIFFERENT",
                        None: "old not run"}[r["same"]]
                print("| %s | %s | %s → %s s | %s → %s s | %s → %s | %s s | "
                      "%s | %s |" % (
                          r["file"], algo, fmt(r["old_cpu"]),
                          fmt(r["new_cpu"]), fmt(r["old_wall"]),
                          fmt(r["new_wall"]), fmt(r["old_rss"]),
                          fmt(r["new_rss"]), fmt(r["verify_cpu"]),
                          fmt(ratio, "×"), same), flush=True)
            if path != f:
                os.unlink(path)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
