#!/usr/bin/env python3
"""multi_gen.py — a several-pool problem of any size for exact's decomposition:
SRAM with a limit, a small TCM and unbounded DRAM, candidate lists, explicit
conflict edges and live ranges of a schedule (one connected conflict graph).

    python3 bench/exact/multi_gen.py --buffers 20000 --seed 1 --out /tmp/m.json
    python3 bench/exact/multi_gen.py --buffers 20000 --segment 100 --out /tmp/s.json
    python3 bench/exact/multi_gen.py --buffers 200 --pools 4 --edges 0 --out /tmp/f.json

--pools 2 drops the TCM (its buffers list ["sram", "dram"]); --pools 4 adds
an "l2" tier of 4x the SRAM between SRAM and DRAM (listed before "dram" in
every candidate list that has both). --edges sets the fraction of buffers
with an explicit conflict edge (default 0.1); --no-cands leaves every
buffer's candidate list out (every pool, file order: the fastest first).
The defaults write the same bytes as before these options.
"""
import argparse
import json
import random


def widen(cands, npools):
    """The candidate list for this many pools (the 3-pool list given)."""
    if npools == 2:
        cands = [c for c in cands if c != "tcm"] or ["sram", "dram"]
    if npools == 4 and "dram" in cands and len(cands) > 1:
        cands = cands[:-1] + ["l2", "dram"]
    return cands


def generate(n, seed, sram, segment=0, npools=3, edges=0.1, cands_on=True):
    rnd = random.Random(seed)
    pools = [
        {"name": "sram", "size_limit": sram, "alignment": 16},
        {"name": "tcm", "size_limit": sram // 8, "alignment": 8},
        {"name": "dram", "alignment": 32},
    ]
    if npools == 2:
        pools = [pools[0], pools[2]]
    elif npools == 4:
        pools = [pools[1], pools[0],
                 {"name": "l2", "size_limit": sram * 4, "alignment": 16},
                 pools[2]]
    buffers = []
    step = 0
    while len(buffers) < n:
        if segment and buffers and len(buffers) % segment == 0:
            step += 300  # a time cut: no live range or edge crosses it
        for _ in range(rnd.randint(1, 3)):
            if len(buffers) == n:
                break
            i = len(buffers)
            r = rnd.random()
            if r < 0.05:
                life = rnd.randint(20, 200)  # a long-lived tensor
            else:
                life = rnd.randint(1, 4)
            size = rnd.choice([1, 2, 4, 8, 16, 32, 64]) * 1024 * rnd.randint(1, 4)
            k = rnd.random()
            if k < 0.15 and life <= 4:
                cands = ["sram"]  # an NPU scratch: short, at most 64 KiB
                size = min(size, 64 * 1024)
            elif k < 0.25:
                cands = ["dram"]
            elif k < 0.40:
                cands = ["tcm", "sram", "dram"]
            else:
                cands = ["sram", "dram"]
            b = {"name": "t%d" % i, "size": size,
                 "alignment": rnd.choice([8, 16, 32]),
                 "live": [step, step + life]}
            if cands_on:
                b["pools"] = widen(cands, npools)
            buffers.append(b)
        step += 1
    # Edges: pairs that must not share memory although not alive together
    # (a DMA still reading, a debug dump), between nearby buffers.
    conflicts = set()
    for i in range(n):
        if rnd.random() < edges:
            j = min(n - 1, i + rnd.randint(1, 12))
            if segment:
                j = min(j, i // segment * segment + segment - 1)
            if j != i:
                conflicts.add((i, j))
    return {"usmp": 1, "pools": pools, "buffers": buffers,
            "conflicts": [["t%d" % a, "t%d" % b] for a, b in sorted(conflicts)]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--buffers", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--sram", type=int, default=512 * 1024)
    ap.add_argument("--segment", type=int, default=0,
                    help="a time cut every this many buffers (0: none)")
    ap.add_argument("--pools", type=int, choices=[2, 3, 4], default=3)
    ap.add_argument("--edges", type=float, default=0.1,
                    help="fraction of buffers with a conflict edge")
    ap.add_argument("--no-cands", action="store_true",
                    help="no candidate lists: every pool, file order")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    with open(a.out, "w") as f:
        json.dump(generate(a.buffers, a.seed, a.sram, a.segment, a.pools,
                           a.edges, not a.no_cands), f)


if __name__ == "__main__":
    main()
