#!/usr/bin/env python3
# Owns the measure of how crowded a planned trace is around a placement:
# buffers alive at a step and pieces of their union in offset (RESULTS.md).
"""Buffers alive and pieces of their union, at random steps of a plan.

    python3 bench/fit/density.py PROBLEM.csv PLAN.csv [--steps 20] [--seed 1]

PROBLEM.csv is a MiniMalloc CSV (`id,lower,upper,size`, half-open
ranges), PLAN.csv a `usmp plan --format csv` plan of it (`...,offset`).
Prints the peak number of buffers alive at once, and, averaged over
`--steps` steps drawn at random, the buffers alive at a step and the
pieces of the union of their [offset, offset + size) (touching or
overlapping buffers make one piece). Stdlib only.
"""

import argparse
import csv
import random


def read(problem, plan):
    with open(plan, newline="") as f:
        rows = csv.reader(f)
        head = next(rows)
        col = head.index("offset")
        off = {r[0]: int(r[col]) for r in rows}
    out = []
    with open(problem, newline="") as f:
        rows = csv.reader(f)
        next(rows)
        for r in rows:
            a = off[r[0]]
            out.append((int(r[1]), int(r[2]), a, a + int(r[3])))
    return out


def peak(bufs):
    ev = sorted([(lo, 1) for lo, _, _, _ in bufs] +
                [(hi, -1) for _, hi, _, _ in bufs])
    best = cur = 0
    for _, d in ev:  # an end sorts before a begin at the same step
        cur += d
        best = max(best, cur)
    return best


def pieces(ivs):
    ivs.sort()
    n, end = 0, -1
    for a, b in ivs:
        if a > end:
            n += 1
        end = max(end, b)
    return n


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("problem")
    ap.add_argument("plan")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    bufs = read(args.problem, args.plan)
    end = max(hi for _, hi, _, _ in bufs)
    rng = random.Random(args.seed)
    alive = union = 0
    for _ in range(args.steps):
        t = rng.randrange(end)
        ivs = [(a, b) for lo, hi, a, b in bufs if lo <= t < hi]
        alive += len(ivs)
        union += pieces(ivs)
    print("%s: peak alive %d; at %d random steps, alive %.0f, union "
          "pieces %.0f (means)" % (args.problem, peak(bufs), args.steps,
                                   alive / args.steps, union / args.steps))


if __name__ == "__main__":
    main()
