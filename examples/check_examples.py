#!/usr/bin/env python3
# Owns the consistency checks of the committed example problems: they equal
# what the generator makes now, and their shapes, ranges and rules are sane.
"""Check the committed example problems (TAP output, exit 1 on failure).

    python3 examples/check_examples.py [--dir DIR]

Regenerates every example in memory and compares it byte for byte with the
committed file, then checks sizes against hand-computed layer shapes, the
structure of the problems (names, live ranges, candidates, rules), the
lower bounds, and that a plain first-fit placement fits the pool limits.
"""

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from netgen import dumps_problem, problem_lower_bounds  # noqa: E402
from netgen.problems import EXAMPLES  # noqa: E402


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def check(self, cond, what, detail=""):
        self.n += 1
        if cond:
            print("ok %d - %s" % (self.n, what))
        else:
            self.failed += 1
            print("not ok %d - %s" % (self.n, what))
            if detail:
                for line in str(detail).splitlines():
                    print("#   " + line)
        return cond

    def done(self):
        print("1..%d" % self.n)
        return 1 if self.failed else 0


def first_diff(a, b):
    al, bl = a.splitlines(), b.splitlines()
    for i, (x, y) in enumerate(zip(al, bl)):
        if x != y:
            return "line %d:\n committed: %s\n generated: %s" % (i + 1, x, y)
    return "length differs: %d vs %d lines" % (len(al), len(bl))


def by_name(p):
    return {b["name"]: b for b in p["buffers"]}


def candidates(p, b):
    if "fixed" in b:
        return [b["fixed"]["pool"]]
    return b.get("pools") or [q["name"] for q in p.get("pools", [])] or ["default"]


def first_fit(p):
    """Place fixed buffers, then the rest by decreasing size at the lowest
    offset that fits, trying candidate pools in order; live-range conflicts
    only (no overlap rules).  Returns (placements, pool high-water marks)
    or raises ValueError naming the buffer that did not fit."""
    pools = {q["name"]: q for q in p.get("pools", [])} or {"default": {}}
    placed = {q: [] for q in pools}   # pool -> [(lo, hi, off, end)]
    where = {}
    order = sorted(range(len(p["buffers"])),
                   key=lambda i: ("fixed" not in p["buffers"][i],
                                  -p["buffers"][i]["size"], i))
    for i in order:
        b = p["buffers"][i]
        lo, hi = b["live"]
        ok = False
        for q in candidates(p, b):
            pool = pools[q]
            al = max(b.get("alignment", 1), pool.get("alignment", 1))
            limit = pool.get("size_limit")
            busy = sorted((o, e) for (l2, h2, o, e) in placed[q]
                          if l2 < hi and lo < h2)
            if "fixed" in b:
                off = b["fixed"]["offset"]
                if any(o < off + b["size"] and off < e for o, e in busy):
                    raise ValueError("%s: fixed placement overlaps" % b["name"])
            else:
                off = 0
                for o, e in busy:
                    if off + b["size"] <= o:
                        break
                    if e > off:
                        off = (e + al - 1) // al * al
            if limit is not None and off + b["size"] > limit:
                continue
            placed[q].append((lo, hi, off, off + b["size"]))
            where[b["name"]] = (q, off)
            ok = True
            break
        if not ok:
            raise ValueError("%s (%d bytes) fits no candidate pool" %
                             (b["name"], b["size"]))
    hw = {q: max([e for (_, _, _, e) in placed[q]], default=0) for q in placed}
    return where, hw


def check_structure(t, name, p):
    bufs = p["buffers"]
    names = [b["name"] for b in bufs]
    t.check(len(set(names)) == len(names), "%s: buffer names are unique" % name)
    t.check(all(isinstance(b["size"], int) and b["size"] > 0 for b in bufs),
            "%s: every size is a positive integer" % name)
    bad = [b["name"] for b in bufs
           if not (0 <= b["live"][0] < b["live"][1])]
    t.check(not bad, "%s: every live range is [begin, end) with begin < end"
            % name, bad[:5])
    pools = {q["name"]: q for q in p.get("pools", [])}
    bad = [b["name"] for b in bufs if any(c not in pools for c in candidates(p, b))]
    t.check(not bad, "%s: candidate pools exist" % name, bad[:5])
    bad = [b["name"] for b in bufs
           if b.get("alignment", 1) & (b.get("alignment", 1) - 1)]
    t.check(not bad, "%s: alignments are powers of two" % name, bad[:5])
    idx = by_name(p)
    bad = []
    for r in p.get("overlaps", []):
        s, d = idx.get(r["src"]), idx.get(r["dst"])
        if s is None or d is None or s["size"] != d["size"] or r["max_lead"] != 0:
            bad.append(r)
            continue
        # src dies at the op that produces dst: they share exactly one step
        if not (s["live"][1] == d["live"][0] + 1):
            bad.append(r)
        if not set(candidates(p, s)) & set(candidates(p, d)):
            bad.append(r)
    t.check(not bad, "%s: overlap rules pair same-size buffers where src "
            "dies at the op writing dst" % name, bad[:3])
    try:
        _, hw = first_fit(p)
        t.check(True, "%s: a first-fit placement fits the pools (%s)" % (
            name, ", ".join("%s %d" % kv for kv in sorted(hw.items()))))
    except ValueError as e:
        t.check(False, "%s: a first-fit placement fits the pools" % name, e)


def check_mobilenet(t, p):
    b = by_name(p)
    n = "mobilenet_v2.json"
    t.check(b["input"]["size"] == 224 * 224 * 3, n + ": input 224x224x3 int8")
    t.check(b["conv1.out"]["size"] == 112 * 112 * 32,
            n + ": first conv output is 112*112*32 bytes")
    t.check(b["block1.expand.out"]["size"] == 112 * 112 * 96,
            n + ": block1 expansion (t=6 of 16 channels) is 112*112*96")
    t.check(b["block16.project.out"]["size"] == 7 * 7 * 320,
            n + ": last bottleneck output is 7*7*320")
    t.check(b["conv_last.out"]["size"] == 7 * 7 * 1280,
            n + ": last 1x1 conv output is 7*7*1280")
    t.check(b["fc.out"]["size"] == 1000 and b["softmax.out"]["size"] == 1000,
            n + ": classifier and softmax have 1000 outputs")
    t.check(b["block1.dw.scratch"]["size"] == 4 * 124 * 9,
            n + ": depthwise scratch is CMSIS-NN's MVE size 4*124*3*3")
    adds = [x for x in b if x.endswith(".add.out")]
    t.check(len(adds) == 10, n + ": 10 residual adds (stride-1, same channels)",
            adds)
    t.check(len(p.get("overlaps", [])) == 21,
            n + ": 21 overlap rules (2 per add, 1 for softmax)")
    last = max(x["live"][1] for x in p["buffers"])
    t.check(b["softmax.out"]["live"][1] == last and b["input"]["live"][0] == 0,
            n + ": input live from step 0, output until the end")
    lb = problem_lower_bounds(p)
    peak = 112 * 112 * 96 + 56 * 56 * 96 + 4 * 124 * 9
    t.check(len(lb) == 1 and lb[0]["lower_bound"] == peak,
            n + ": lower bound is block1 expand + dw output + dw scratch = %d"
            % peak, lb)


def check_board(t, p):
    n = "board_m55_u55.json"
    b = by_name(p)
    lb = problem_lower_bounds(p)
    groups = sorted(tuple(g["pools"]) for g in lb)
    t.check(groups == [("dtcm", "dram"), ("sram_npu",)],
            n + ": NPU and CPU buffers form two independent groups", groups)
    npu = [x for x in p["buffers"] if x["name"].startswith("npu.")]
    t.check(all(x.get("pools") == ["sram_npu"] for x in npu),
            n + ": every npu.* buffer may only live in sram_npu")
    cpu = [x for x in p["buffers"] if not x["name"].startswith("npu.")]
    t.check(all(set(candidates(p, x)) <= {"dtcm", "dram"} for x in cpu),
            n + ": every CPU buffer lives in dtcm or dram")
    pools = {q["name"]: q for q in p["pools"]}
    t.check("ethos-u55" not in pools["dtcm"]["targets"],
            n + ": the NPU does not reach the DTCM")
    t.check(b["npu.input"]["size"] == 224 * 224 * 3 and
            b["camera.frame0"]["size"] == 640 * 480 * 2,
            n + ": NPU input 224x224x3, camera frame VGA YUYV")
    t.check(b["pre.rgb"]["size"] > pools["dtcm"]["size_limit"],
            n + ": the resized RGB image does not fit the DTCM (must spill)")
    g_npu = [g for g in lb if g["pools"] == ["sram_npu"]][0]
    lim = pools["sram_npu"]["size_limit"]
    t.check(g_npu["lower_bound"] <= lim < g_npu["lower_bound"] * 1.10,
            n + ": sram_npu holds the NPU bound with < 10%% to spare "
            "(%d of %d)" % (g_npu["lower_bound"], lim))


def check_generator(t):
    """The generator's own rules, on small graphs."""
    from netgen import Graph
    g = Graph(elem_bytes=1)
    a = g.input("a", (4,))
    (b,) = g.op("op0", [a], [("b", (4,))])
    (c, unread) = g.op("op1", [b], [("c", (4,)), ("unread", (2,))],
                       [("op1.scratch", (8,))])
    (d,) = g.op("op2", [b, c], [("d", (4,))], stream=[(b, 0), (c, 0)])
    (e,) = g.op("op3", [d], [("e", (4,))], stream=[(d, 0)])
    (f,) = g.op("op4", [d, e], [("f", (4,))])
    g.output(f)
    p = g.problem()
    live = {x["name"]: tuple(x["live"]) for x in p["buffers"]}
    t.check(live["a"] == (0, 1) and live["b"] == (0, 3),
            "netgen: live from the producing step to one past the last reader",
            live)
    t.check(live["unread"] == (1, 2) and live["op1.scratch"] == (1, 2),
            "netgen: unread tensors and scratch live one step", live)
    t.check(live["f"] == (4, 5), "netgen: outputs live until the end", live)
    rules = [(r["src"], r["dst"]) for r in p.get("overlaps", [])]
    t.check(rules == [("b", "d"), ("c", "d")],
            "netgen: a rule only where src dies at the streaming op "
            "(d is read again by op4, so no d->e rule)", rules)

    from netgen.train import bert_training_step
    cfg = {"layers": 1, "hidden": 64, "heads": 2, "ff": 256, "vocab": 100,
           "positions": 16}
    g = bert_training_step(micro_batches=2, batch=1, seq=8, cfg=cfg)
    p = g.problem()
    bufs = {x["name"]: x for x in p["buffers"]}
    steps = {n: i for i, n in enumerate(g.op_names)}
    bad = [n for n in ("mb0.L0.q.out", "mb0.L0.h0.probs", "mb0.L0.gelu.out",
                       "mb0.L0.ff1.out", "mb0.L0.ln1.out", "mb0.L0.ln1.stats")
           if bufs[n]["live"][1] <= steps["mb0.L0.ln2.bwd"]]
    t.check(not bad, "training: saved activations stay live into the "
            "backward pass", bad)
    pre = {n.split(".")[0] for n in bufs if not n.startswith("grad.")}
    grads = [x for n, x in bufs.items() if n.startswith("grad.")]
    end = len(g.op_names)
    t.check(grads and all(x["live"][1] == end for x in grads) and
            pre == {"mb0", "mb1", "loss"},
            "training: weight gradients live until the optimizer step")
    t.check(all(x["live"][0] < steps["mb1.load"] for x in grads),
            "training: micro-batch 1 accumulates into micro-batch 0's "
            "weight gradients (makes none of its own)")
    w = bufs["grad.L0.ff1.weight"]["size"]
    t.check(w == 64 * 256 * 4, "training: a weight gradient is fp32 and "
            "parameter-sized (%d)" % w)

    wl = os.path.join(HERE, "..", "bench", "workloads", "gen.py")
    if os.path.exists(wl):
        import importlib.util
        spec = importlib.util.spec_from_file_location("wl_gen", wl)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        from netgen import Graph as G2
        u = G2(elem_bytes=1)
        x = u.input("x", (8,))
        (y,) = u.op("o0", [x], [("y", (8,))])
        (z,) = u.op("o1", [y], [("z", (8,))], stream=[(y, 0)])
        u.output(z)
        w = mod.replicate(u, 5, "c%d.")
        ok = all(w.lo[i] < w.hi[i] for i in range(len(w.lo)))
        t.check(ok and w.steps == 10 and len(w.rules) == 5,
                "bench gen: replicated copies keep valid ranges and rules")
        w = mod.make_transformer(1)
        plain, _ = mod.bounds(w)
        q = {"usmp": 1, "buffers": [{"name": n, "size": s, "live": [a, b]}
             for n, a, b, s in zip(w.names, w.lo, w.hi, w.size)]}
        t.check(plain == problem_lower_bounds(q)[0]["lower_bound"],
                "bench gen: its lower bound agrees with netgen's (%d)" % plain)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", default=HERE, help="where the committed files are")
    a = ap.parse_args(argv)
    t = Tap()
    for name in sorted(EXAMPLES):
        path = os.path.join(a.dir, name)
        p = EXAMPLES[name]()
        text = dumps_problem(p)
        try:
            with open(path, encoding="utf-8") as f:
                committed = f.read()
        except OSError as e:
            t.check(False, "%s: committed file is readable" % name, e)
            continue
        same = committed == text
        t.check(same, "%s: committed file equals the regenerated one" % name,
                "" if same else first_diff(committed, text) +
                "\n(run examples/gen_examples.py and review the diff)")
        t.check(len(committed.encode()) < 200 * 1024,
                "%s: smaller than 200 KB (%d bytes)" % (name, len(committed)))
        try:
            cp = json.loads(committed)
        except ValueError as e:
            t.check(False, "%s: committed file is valid JSON" % name, e)
            continue
        t.check(cp == p, "%s: parses back to the generated problem" % name)
        check_structure(t, name, cp)
        if name == "mobilenet_v2.json":
            check_mobilenet(t, cp)
        elif name == "board_m55_u55.json":
            check_board(t, cp)
    check_generator(t)
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
