#!/usr/bin/env python3
# Owns the held-out check of `auto`: networks and streams the benchmark does
# not tune on, with sizes jittered, written as MiniMalloc CSV.
"""Write 40 problems `auto` was not tuned on, then (with --run) plan each.

    python3 bench/workloads/variants.py [--out DIR] [--run USMP]

Ten bases: MobileNetV2 (224 px alone, 20 images 2 in flight, 160 px 50
images 3 in flight), ResNet-50 at 160 px without im2col (10 images, 2 and 4
in flight), BERT at 384 tokens (4 sequences, 2 in flight), a 6-layer BERT at
64 tokens (alone, and 30 sequences 3 in flight), two training steps (one
micro-batch of 2 x 64 tokens; three of 1 x 128).  Each base is written as is
and with every size multiplied by a factor drawn from [0.5, 1.5] and rounded
down to a multiple of 16 (at least 16), by seeds 1, 2 and 3: sizes that do
not tile the way a network's powers of two do, so a plan that reaches the
bound is rarer.  --run USMP plans each with `USMP plan FILE` (auto, its
default budget) and prints the ratio to the lower bound, the wall time, and
the geometric mean and worst ratio.  Deterministic; stdlib only.
"""

import argparse
import math
import os
import random
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "examples"))

import gen  # noqa: E402
from netgen.graph import Graph  # noqa: E402
from netgen.nets import bert_encoder, mobilenet_v2, resnet50  # noqa: E402
from netgen.train import bert_training_step  # noqa: E402


def _unit(build):
    g = Graph(elem_bytes=1)
    build(g)
    return g


def _mnv2(hw):
    def build(g):
        g.output(mobilenet_v2(g, g.input("input", (hw, hw, 3)), hw=hw))
    return build


def _r50_160(g):
    x = g.input("input", (160, 160, 3))
    g.output(resnet50(g, x, hw=160, im2col=False))


def _bert(seq, layers=None):
    def build(g):
        g.output(bert_encoder(g, S=seq, layers=layers))
    return build


STREAMS = [  # name, one copy, copies, in flight
    ("mnv2_x1", _mnv2(224), 1, 1),
    ("mnv2_x20_if2", _mnv2(224), 20, 2),
    ("mnv2_160_x50_if3", _mnv2(160), 50, 3),
    ("r50_160_x10_if2", _r50_160, 10, 2),
    ("r50_160_x10_if4", _r50_160, 10, 4),
    ("bert384_x4_if2", _bert(384), 4, 2),
    ("bert64_x30_if3", _bert(64, 6), 30, 3),
    ("bert64_x1", _bert(64, 6), 1, 1),
]
TRAINING = [  # name, micro-batches, batch, tokens
    ("train_mb1_b2_s64", 1, 2, 64),
    ("train_mb3_b1_s128", 3, 1, 128),
]


def bases():
    for name, build, copies, inflight in STREAMS:
        gen.INFLIGHT = inflight
        yield name, gen.replicate(_unit(build), copies, "c%d.")
    for name, m, batch, seq in TRAINING:
        yield name, gen.graph_arrays(bert_training_step(m, batch=batch,
                                                        seq=seq))


def jittered(w, seed):
    rng = random.Random(seed)
    out = gen.Workload()
    out.lo, out.hi = w.lo, w.hi
    out.size = [max(16, int(s * rng.uniform(0.5, 1.5)) // 16 * 16)
                for s in w.size]
    return out


def run(usmp, paths):
    ratios = []
    for path in paths:
        t0 = time.monotonic()
        p = subprocess.run([usmp, "plan", path, "-o", os.devnull],
                           capture_output=True, text=True)
        wall = time.monotonic() - t0
        m = re.search(r"ratio ([0-9.]+)", p.stderr)
        if p.returncode or not m:
            sys.exit("%s: usmp failed (exit %d): %s"
                     % (path, p.returncode, p.stderr.strip()))
        ratios.append(float(m.group(1)))
        print("%-26s %s %6.2f s" % (os.path.basename(path)[:-4], m.group(1),
                                    wall))
    gm = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    print("geometric mean %.5f, worst %.4f, %d problems"
          % (gm, max(ratios), len(ratios)))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(HERE, "out", "variants"))
    ap.add_argument("--run", metavar="USMP", help="plan each with this usmp")
    a = ap.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    paths = []
    for name, w in bases():
        for tag, ww in [("", w)] + [("_j%d" % s, jittered(w, s))
                                    for s in (1, 2, 3)]:
            path = os.path.join(a.out, name + tag + ".csv")
            gen.write_csv(path, ww)
            paths.append(path)
    print("wrote %d problems to %s" % (len(paths), a.out))
    if a.run:
        run(a.run, paths)


if __name__ == "__main__":
    main()
