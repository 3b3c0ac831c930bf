#!/usr/bin/env python3
# Owns the measure of how far a placement order may stray from the fit
# plugin's size order and still give the same plan (see RESULTS.md).
"""How far from the priority order can first_fit/best_fit place a buffer?

    python3 bench/fit/order_freedom.py [--samples 200] [--seed 1] FILE...

FILE: a MiniMalloc CSV (id,lower,upper,size; .csv.gz read as gzip). The
priority order is fit's order=size: size descending, ties by row order.

A buffer's offset depends only on the placed buffers that overlap it in
time, so any order in which, for every overlapping pair, the larger comes
first gives the same plan. Within such orders buffer i is forced before
buffer j (rank i < rank j) when a chain i = k0, k1, ..., km = j of buffers
exists with ranks increasing and each overlapping the next. Walking the
ranks up from i and growing the union of the live ranges of the buffers so
reached (one interval, as they overlap in a chain) finds the first rank
g after which that union covers the whole trace: every buffer ranked more
than g after i overlaps it, so comes after i in every such order. The
same walk down the ranks gives g' (every buffer ranked more than g' before
i comes before it). So every order with the same plan puts buffer i at a
position within [rank - g', rank + g] of the priority order: it may only
shuffle buffers that are about g + g' apart in rank. Prints the median,
90th percentile and maximum of g, g' and g + g' over buffers drawn at
random (those whose walk never covers the trace, near the ends of the
ranking, are left out). Stdlib only.
"""
import argparse
import csv
import gzip
import random


def load(path):
    """Live ranges [lower, upper) in priority order."""
    opener = gzip.open if path.endswith(".gz") else open
    rows = []
    with opener(path, "rt") as f:
        reader = csv.reader(f)
        next(reader)
        for i, rec in enumerate(reader):
            rows.append((-int(rec[3]), i, int(rec[1]), int(rec[2])))
    rows.sort()
    return [r[2] for r in rows], [r[3] for r in rows]


def reach(begin, end, tmin, tmax, r0, step):
    """Ranks walked from r0 (step +1 or -1) until the chain's union covers
    [tmin, tmax), or None."""
    lo, hi = begin[r0], end[r0]
    k = r0 + step
    while 0 <= k < len(begin):
        if begin[k] < hi and lo < end[k]:
            lo = min(lo, begin[k])
            hi = max(hi, end[k])
            if lo <= tmin and hi >= tmax:
                return abs(k - r0)
        k += step
    return None


def summary(values):
    v = sorted(x for x in values if x is not None)
    if not v:
        return "-"
    return "median %d, p90 %d, max %d" % (v[len(v) // 2],
                                          v[int(len(v) * 0.9)], v[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    for path in args.files:
        begin, end = load(path)
        n = len(begin)
        if n < 2:
            print("%s: %d buffers, nothing to measure" % (path, n))
            continue
        tmin, tmax = min(begin), max(end)
        rng = random.Random(args.seed)
        picks = [rng.randrange(n) for _ in range(args.samples)]
        up = [reach(begin, end, tmin, tmax, r, 1) for r in picks]
        down = [reach(begin, end, tmin, tmax, r, -1) for r in picks]
        band = [a + b for a, b in zip(up, down)
                if a is not None and b is not None]
        print("%s: %d buffers; g: %s; g': %s; g + g': %s" %
              (path, n, summary(up), summary(down), summary(band)))


if __name__ == "__main__":
    main()
