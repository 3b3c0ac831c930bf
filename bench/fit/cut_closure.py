#!/usr/bin/env python3
# Owns the measure of how much of a trace must be placed before an early
# stretch of time is done, in any order with fit's plan (RESULTS.md).
"""What must be placed before the buffers ending by time t, in any order
that gives first_fit/best_fit's plan?

    python3 bench/fit/cut_closure.py [--cuts 0.05,0.5] [--order size] FILE...

FILE: a MiniMalloc CSV (id,lower,upper,size, half-open ranges; .csv.gz
read as gzip). Priority: fit's order (size, lifetime or area descending,
then size descending, then row order).

A buffer's offset depends only on the higher-priority buffers that
overlap it in time, so an order gives the same plan when each
overlapping pair keeps its priority order. The closure of a cut t is the
smallest set that holds every buffer ending at or before t and every
higher-priority buffer overlapping a member; every such order places all
of it before the last buffer ending by t, so no structure kept
for times before t can be dropped earlier. One sweep from the lowest
priority up finds it exactly: a buffer joins when it ends by t or
overlaps a member already found (all of lower priority), a Fenwick tree
over time steps counting the steps some member covers.

Also prints the share of the buffers in the first round of the round
sweep with cuts every m mean lifetimes (m = 1, 4): R_k starts at the k-th
cut; from the lowest priority up a buffer goes to the first round k with
begin < R_k, and every R_j (j >= k) below its end becomes its end. A
round holds a closure of its cut, over-approximated. Stdlib only.
"""
import argparse
import csv
import gzip


def read(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt", newline="") as f:
        rows = csv.reader(f)
        head = next(rows)
        lo, up, sz = (head.index(k) for k in ("lower", "upper", "size"))
        return [(int(r[lo]), int(r[up]), int(r[sz])) for r in rows]


def ranked(bufs, order):
    """Buffer indices, highest priority first."""
    def key(i):
        b, e, s = bufs[i]
        k1 = {"size": s, "lifetime": e - b, "area": s * (e - b)}[order]
        return (-k1, -s, i)
    return sorted(range(len(bufs)), key=key)


def closure(bufs, rank, t):
    tmax = max(e for _, e, _ in bufs)
    n = tmax + 1
    fen = [0] * (n + 1)
    nxt = list(range(n + 2))  # next step not yet covered

    def find(x):
        root = x
        while nxt[root] != root:
            root = nxt[root]
        while nxt[x] != root:
            nxt[x], x = root, nxt[x]
        return root

    def covered_before(i):  # covered steps in [0, i)
        s = 0
        while i > 0:
            s += fen[i]
            i &= i - 1
        return s

    size = 0
    for i in reversed(rank):
        b, e, _ = bufs[i]
        if e > t and covered_before(e) == covered_before(b):
            continue
        size += 1
        x = find(b)
        while x < e:
            j = x + 1
            while j <= n:
                fen[j] += 1
                j += j & -j
            nxt[x] = x + 1
            x = find(x + 1)
    return size


def round0(bufs, rank, width):
    tmax = max(e for _, e, _ in bufs)
    k = max(1, -(-tmax // width))
    r = [(j + 1) * width for j in range(k)]
    r[-1] = max(r[-1], tmax)
    first = 0
    for i in reversed(rank):
        b, e, _ = bufs[i]
        lo, hi = 0, k
        while lo < hi:
            md = (lo + hi) // 2
            if b < r[md]:
                hi = md
            else:
                lo = md + 1
        first += lo == 0
        j = lo
        while j < k and r[j] < e:
            r[j] = e
            j += 1
    return first


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cuts", default="0.05,0.5")
    ap.add_argument("--order", default="size",
                    choices=("size", "lifetime", "area"))
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    for path in a.files:
        bufs = [x for x in read(path) if x[1] > x[0]]
        n = len(bufs)
        rank = ranked(bufs, a.order)
        tmax = max(e for _, e, _ in bufs)
        life = sum(e - b for b, e, _ in bufs) / n
        print(f"{path}: {n} buffers, time 0..{tmax}, mean lifetime "
              f"{life:.0f}, order {a.order}")
        for c in (float(x) for x in a.cuts.split(",")):
            t = int(c * tmax)
            ends = sum(1 for _, e, _ in bufs if e <= t)
            cl = closure(bufs, rank, t)
            print(f"  cut {c:.2f} (t = {t}): {ends} end by t, closure "
                  f"{cl} ({100 * cl / n:.1f} % of the buffers)")
        for m in (1, 4):
            f = round0(bufs, rank, max(1, int(m * life)))
            print(f"  round sweep, cuts every {m} mean lifetime(s): "
                  f"{f} in round 0 ({100 * f / n:.1f} %)")


if __name__ == "__main__":
    main()
