#!/usr/bin/env python3
# Owns the NPU-shaped multi-pool problems: a small SRAM that the activations
# prefer, DRAM to spill to, residual blocks and in-place adds.
"""Generate NPU-shaped problems with a spill pool, as usmp JSON.

    python3 bench/workloads/npu_spill.py --out DIR [--sram 256k,512k,1m,2m]
        [--buffers 50,100,200] [--seeds 3] [--rules] [--shape chain|peak]

Each problem is a MobileNetV2-like chain of inverted-residual blocks run on
an NPU (expand, depthwise, project; every second block adds its input),
int8, with sizes drawn from the activation sizes of such a network at
224x224 and jittered by a seeded generator. Pools: "sram" (the given size,
alignment 16) and "dram" (16 MiB, alignment 32). Activations list
["sram", "dram"] (SRAM first, DRAM when it does not fit); one weight-stream
scratch buffer per block lists only "sram"; the network input and output
are fixed in DRAM. With --rules each residual add may work in place over
its projection input (rule project -> add, max_lead 0). The file name says
the SRAM size, buffer count, seed and whether rules are on.

--shape peak (file names npu_peak_...) puts in-place operators at the SRAM
peak, as graphs with unfused activations and an in-place depthwise kernel
have: each block is expand, a separate ReLU6 over the expand output (rule
expand -> act, max_lead 0), depthwise over the activation (rule act -> dw,
max_lead -(W + 1) * C rounded up to 16: a 3x3 kernel still needs one row
and one pixel of its input behind the write position), project, and every
second block the add (rule project -> add, max_lead 0). The peak of a
block, its input plus two expanded tensors, drops to its input, one
expanded tensor and the halo when the rules are used. Without --rules the
same buffers are written with no rules. --shape chain (the default) writes
the files it always has: the same arguments give the same bytes.
"""
import argparse
import json
import os
import random

SIZES = [12544, 18816, 25088, 37632, 47040, 75264, 112896, 150528, 200704,
         301056, 401408]


def parse_size(t):
    t = t.strip().lower()
    mult = 1
    if t.endswith("k"):
        mult, t = 1024, t[:-1]
    elif t.endswith("m"):
        mult, t = 1024 * 1024, t[:-1]
    return int(t) * mult


def halo(size):
    """Bytes of one row and one pixel of an int8 HxWxC tensor of this size
    (H = W from the sizes above: 56, 28, 14 or 7), rounded up to 16."""
    h = 56 if size >= 280000 else 28 if size >= 100000 else \
        14 if size >= 35000 else 7
    c = max(1, size // (h * h))
    return ((h + 1) * c + 15) // 16 * 16


def problem(sram, nbuf, seed, rules, shape="chain"):
    r = random.Random(seed * 1000003 + nbuf)
    pools = [{"name": "sram", "size_limit": sram, "alignment": 16},
             {"name": "dram", "size_limit": 16 * 1024 * 1024,
              "alignment": 32}]
    bufs, overlaps = [], []
    t = 0

    def add(name, size, begin, end, pools_, **kw):
        b = {"name": name, "size": size, "alignment": 16,
             "live": [begin, end], "pools": pools_}
        b.update(kw)
        bufs.append(b)
        return b

    add("input", 150528, 0, 2, ["dram"], fixed={"pool": "dram", "offset": 0})
    prev = "input"
    prev_end = bufs[-1]
    level = r.randrange(4, len(SIZES))
    block = 0
    while len(bufs) < nbuf - 1:
        # one inverted-residual block: expand, depthwise, project (+ add)
        level = max(0, min(len(SIZES) - 1, level + r.choice([-1, 0, 0, 1])))
        small = SIZES[max(0, level - 3)]
        big = SIZES[level]
        jit = lambda s: max(16, int(s * r.uniform(0.8, 1.2)) // 16 * 16)
        residual = block % 2 == 1
        t += 1
        prev_end["live"][1] = max(prev_end["live"][1], t + 1)
        add(f"b{block}.expand", jit(big), t, t + 2, ["sram", "dram"])
        add(f"b{block}.scratch", jit(small // 2), t, t + 1, ["sram"])
        t += 1
        src = bufs[-2]
        if shape == "peak":
            # a separate ReLU6 over the expand output, in place
            act = add(f"b{block}.act", src["size"], t, t + 2,
                      ["sram", "dram"])
            if rules:
                overlaps.append({"src": src["name"], "dst": act["name"],
                                 "max_lead": 0})
            src = act
            t += 1
        dw = add(f"b{block}.dw", jit(big), t, t + 2, ["sram", "dram"])
        if shape == "peak" and rules:
            overlaps.append({"src": src["name"], "dst": dw["name"],
                             "max_lead": -halo(src["size"])})
        t += 1
        proj = add(f"b{block}.project", jit(small), t, t + 2,
                   ["sram", "dram"])
        if residual:
            # the add reads the block input and the projection at t + 1
            prev_end["live"][1] = max(prev_end["live"][1], t + 2)
            t += 1
            out = add(f"b{block}.add", proj["size"], t, t + 2,
                      ["sram", "dram"])
            if rules:
                overlaps.append({"src": proj["name"], "dst": out["name"],
                                 "max_lead": 0})
            prev_end = out
        else:
            prev_end = proj
        block += 1
    t += 1
    prev_end["live"][1] = max(prev_end["live"][1], t + 1)
    add("output", 4000, t, t + 1, ["dram"],
        fixed={"pool": "dram", "offset": 150528 // 32 * 32})
    p = {"usmp": 1, "pools": pools, "buffers": bufs}
    if overlaps:
        p["overlaps"] = overlaps
    return p


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--sram", default="256k,512k,1m,2m")
    ap.add_argument("--buffers", default="50,100,200")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--rules", action="store_true")
    ap.add_argument("--shape", choices=["chain", "peak"], default="chain")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    for s in a.sram.split(","):
        for n in a.buffers.split(","):
            for seed in range(a.seeds):
                p = problem(parse_size(s), int(n), seed, a.rules, a.shape)
                tag = "peak_" if a.shape == "peak" else ""
                name = (f"npu_{tag}{s}_{n}_{seed}"
                        f"{'_rules' if a.rules else ''}.json")
                with open(os.path.join(a.out, name), "w") as f:
                    json.dump(p, f, indent=0)


if __name__ == "__main__":
    main()
