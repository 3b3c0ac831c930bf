#!/usr/bin/env python3
# Owns the large benchmark workloads: CNN and transformer inference and a
# training step, scaled to ~1k..1M buffers, written as JSON and MiniMalloc CSV.
"""Generate large, realistic usmp workloads for the benchmark.

    python3 bench/workloads/gen.py [--out DIR] [--sizes 1k,10k,100k,1m]
                                   [--families cnn,transformer,training]
                                   [--json-max N]

Families (shapes from examples/netgen, sources in examples/README.md):

cnn          ResNet-50 (He et al. 2015, Table 1), int8 inference, 224x224,
             with a whole-matrix im2col scratch buffer per conv that is not
             1x1/stride 1 (GEMM-based CPU runtimes).  Scaled by a stream of
             images; 4 images are in flight at once (their ops interleave,
             each image starting a quarter of a network after the previous).
transformer  BERT-base (Devlin et al. 2018: L=12, H=768, A=12, FF 3072),
             int8 inference, 128 tokens: Q/K/V, per-head scores, softmax and
             context, concat, output projection, add, LayerNorm, FF1, GELU,
             FF2, add, LayerNorm.  Scaled by a stream of requests, 4 in
             flight, interleaved like the images.
training     One fine-tuning step of the same encoder in fp32: forward ops
             keep what their backward needs (activations live until their
             backward op reads them), backward ops make activation and
             weight gradients, gradients accumulate over micro-batches of
             4 x 128 tokens, one optimizer step at the end.  Scaled by the
             number of micro-batches.

Each workload is written as MiniMalloc CSV (id,lower,upper,size; half-open
ranges; ids are buffer indices) and, up to --json-max buffers, as usmp JSON
with buffer names and the overlap rules (element-wise / row-wise ops whose
input dies there).  Both have one unbounded pool and alignment 1, so they
describe the same problem apart from the rules.  out/manifest.json records,
per workload, the buffer count, steps and the lower bound (largest total
size alive at once) computed here; with rules, also the bound less what the
rules could share, as docs/design.md ("Lower bound") defines it.

Deterministic: the same arguments give the same bytes.  Stdlib only.
"""

import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "examples"))

from netgen.graph import Graph, dumps_problem  # noqa: E402
from netgen.nets import resnet50, bert_encoder  # noqa: E402
from netgen.train import bert_training_step  # noqa: E402

INFLIGHT = 4


def parse_size(s):
    s = s.strip().lower()
    mult = 1
    if s.endswith("k"):
        mult, s = 1000, s[:-1]
    elif s.endswith("m"):
        mult, s = 1000000, s[:-1]
    n = int(float(s) * mult)
    if n <= 0:
        raise ValueError("size must be positive: %r" % s)
    return n


def label(n):
    if n >= 1000000 and n % 1000000 == 0:
        return "%dm" % (n // 1000000)
    if n >= 1000 and n % 1000 == 0:
        return "%dk" % (n // 1000)
    return str(n)


class Workload:
    """Flat arrays: names, lower, upper, size; rules as index triples."""

    def __init__(self):
        self.names = []
        self.lo = []
        self.hi = []
        self.size = []
        self.rules = []    # (src index, dst index, max_lead)
        self.steps = 0
        self.note = ""


def graph_arrays(g):
    w = Workload()
    idx = {}
    for i, t in enumerate(g.tensors):
        b, e = g.live(t)
        w.names.append(t.name)
        w.lo.append(b)
        w.hi.append(e)
        w.size.append(t.size)
        idx[t] = i
    w.rules = [(idx[s], idx[d], lead) for s, d, lead in g.rules()]
    w.steps = g.step
    return w


def replicate(unit, copies, prefix):
    """`copies` instances of a one-input graph, INFLIGHT at a time: copy i's
    op j runs at the rank of key (i * lag + j, i), lag = ceil(ops/INFLIGHT).
    A copy's input arrives at its first op, its output lives to its last."""
    u = graph_arrays(unit)
    n = u.steps
    lag = max(1, -(-n // INFLIGHT))
    keys = sorted((i * lag + j, i, j) for i in range(copies) for j in range(n))
    gstep = [[0] * n for _ in range(copies)]
    for r, (_, i, j) in enumerate(keys):
        gstep[i][j] = r
    w = Workload()
    m = len(u.size)
    for i in range(copies):
        gs = gstep[i]
        p = prefix % i
        for k in range(m):
            w.names.append(p + u.names[k])
            w.lo.append(gs[u.lo[k]])
            w.hi.append(gs[u.hi[k] - 1] + 1)
            w.size.append(u.size[k])
        base = i * m
        w.rules.extend((base + s, base + d, lead) for s, d, lead in u.rules)
    w.steps = copies * n
    return w


def unit_cnn():
    g = Graph(elem_bytes=1)
    x = g.input("input", (224, 224, 3))
    g.output(resnet50(g, x))
    return g


def unit_transformer():
    g = Graph(elem_bytes=1)
    g.output(bert_encoder(g, S=128))
    return g


def make_cnn(target):
    unit = unit_cnn()
    per = len(unit.tensors)
    k = max(1, round(target / per))
    w = replicate(unit, k, "img%d.")
    w.note = "ResNet-50 int8 224x224, %d images, up to %d in flight" % (k, INFLIGHT)
    return w


def make_transformer(target):
    unit = unit_transformer()
    per = len(unit.tensors)
    k = max(1, round(target / per))
    w = replicate(unit, k, "seq%d.")
    w.note = ("BERT-base int8, 128 tokens, %d sequences, up to %d in flight"
              % (k, INFLIGHT))
    return w


def make_training(target):
    one = len(bert_training_step(1).tensors)
    two = len(bert_training_step(2).tensors)
    per = two - one                     # buffers of one more micro-batch
    m = max(1, 1 + round((target - one) / per))
    g = bert_training_step(m)
    w = graph_arrays(g)
    w.note = ("BERT-base fp32 training step, %d micro-batch(es) of 4x128 "
              "tokens, gradient accumulation" % m)
    return w


FAMILIES = {"cnn": make_cnn, "transformer": make_transformer,
            "training": make_training}


def sweep(lo, hi, size, share=None):
    """max over t of (sum of sizes alive at t - share[t])."""
    ev = []
    for a, b, s in zip(lo, hi, size):
        ev.append((a, s))
        ev.append((b, -s))
    if share:
        ev.extend((t, 0) for t in share)   # every time with a share counts
    ev.sort()
    best = cur = 0
    k, n = 0, len(ev)
    while k < n:
        t = ev[k][0]
        while k < n and ev[k][0] == t:
            cur += ev[k][1]
            k += 1
        v = cur - (share.get(t, 0) if share else 0)
        if v > best:
            best = v
    return best


def bounds(w):
    plain = sweep(w.lo, w.hi, w.size)
    if not w.rules:
        return plain, plain
    share = {}
    for s, d, lead in w.rules:
        sh = min(w.size[s], w.size[d]) if lead >= 0 else \
            max(0, min(w.size[d] + lead, w.size[s]))
        for t in range(max(w.lo[s], w.lo[d]), min(w.hi[s], w.hi[d])):
            share[t] = share.get(t, 0) + sh
    ov = max(sweep(w.lo, w.hi, w.size, share), max(w.size))
    return plain, ov


def max_live_count(w):
    ev = sorted([(a, 1) for a in w.lo] + [(b, -1) for b in w.hi])
    best = cur = 0
    for _, d in ev:
        cur += d
        best = max(best, cur)
    return best


def write_csv(path, w):
    with open(path, "w", encoding="ascii") as f:
        f.write("id,lower,upper,size\n")
        f.writelines("%d,%d,%d,%d\n" % r for r in
                     zip(range(len(w.size)), w.lo, w.hi, w.size))


def write_json(path, w):
    p = {"usmp": 1,
         "buffers": [{"name": nm, "size": s, "live": [a, b]} for nm, a, b, s
                     in zip(w.names, w.lo, w.hi, w.size)]}
    if w.rules:
        p["overlaps"] = [{"src": w.names[s], "dst": w.names[d],
                          "max_lead": lead} for s, d, lead in w.rules]
    with open(path, "w", encoding="utf-8") as f:
        f.write(dumps_problem(p))


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Generate usmp benchmark workloads (see module doc).")
    ap.add_argument("--out", default=os.path.join(HERE, "out"))
    ap.add_argument("--sizes", default="1k,10k,100k,1m",
                    help="approximate buffer counts, e.g. 1k,10k,100k,1m")
    ap.add_argument("--families", default="cnn,transformer,training")
    ap.add_argument("--json-max", type=int, default=150000,
                    help="write JSON too when buffers <= this (default 150000)")
    a = ap.parse_args(argv)
    try:
        sizes = [parse_size(s) for s in a.sizes.split(",") if s.strip()]
    except ValueError as e:
        ap.error(str(e))
    fams = [f.strip() for f in a.families.split(",") if f.strip()]
    for f in fams:
        if f not in FAMILIES:
            ap.error("unknown family %r (have: %s)" % (f, ", ".join(FAMILIES)))
    os.makedirs(a.out, exist_ok=True)
    man_path = os.path.join(a.out, "manifest.json")
    manifest = {}
    if os.path.exists(man_path):
        try:
            with open(man_path, encoding="utf-8") as f:
                manifest = json.load(f)
        except ValueError:
            manifest = {}
    print("%-22s %9s %9s %8s %16s %16s %6s" % (
        "workload", "buffers", "steps", "maxlive", "lower_bound",
        "lb_with_rules", "secs"))
    for fam in fams:
        for n in sizes:
            t0 = time.time()
            w = FAMILIES[fam](n)
            name = "%s_%s" % (fam, label(n))
            files = {}
            csv = name + ".csv"
            write_csv(os.path.join(a.out, csv), w)
            files["csv"] = csv
            if len(w.size) <= a.json_max:
                js = name + ".json"
                write_json(os.path.join(a.out, js), w)
                files["json"] = js
            plain, ov = bounds(w)
            ent = {"family": fam, "target": n, "description": w.note,
                   "buffers": len(w.size), "steps": w.steps,
                   "overlap_rules": len(w.rules),
                   "max_live_buffers": max_live_count(w),
                   "total_bytes": sum(w.size),
                   "lower_bound": plain, "lower_bound_overlap": ov,
                   "files": files}
            manifest[name] = ent
            print("%-22s %9d %9d %8d %16d %16d %6.1f" % (
                name, ent["buffers"], ent["steps"], ent["max_live_buffers"],
                plain, ov, time.time() - t0))
            sys.stdout.flush()
    with open(man_path, "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")
    print("manifest: %s" % man_path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
