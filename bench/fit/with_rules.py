#!/usr/bin/env python3
# Owns the fit plugin's timing on problems where a few buffers have overlap
# rules (or several pools) beside plain ones: two usmp builds side by side.
"""Time first_fit/best_fit of two usmp builds on field-shaped problems with a
few overlap rules or several pools, whole process, in one run.

    python3 bench/fit/with_rules.py --old OLD/usmp --new NEW/usmp
        [--shapes S,S,...] [--algos first_fit,best_fit] [--runs 3]
        [--seed 1] [--keep DIR]

A shape is BASE[+rP|+1rule][@Kpools] (the parts in any order). BASE is a shape of
bench/workloads/field.py (xla_50k_10k, alive_40k, ...). +rP puts P percent
of the buffers under overlap rules, two buffers a rule, each buffer in one
rule at most: the dst of each rule moves to begin at its src's last step
(src.end - 1, keeping its lifetime), as a rule requires, max_lead 0 (an
operator writing its output over the input it has read). +1rule adds one
such rule. @Kpools spreads the problem over K pools, every buffer a
candidate of each in order, pools 0..K-2 limited to 1 GiB, the last
unbounded. The default shapes are xla_50k_10k+r1, alive_40k+1rule, their
plain bases and xla_50k_10k@2pools. Each problem is written as a JSON
problem (DIR, default a temporary directory) and timed by compare.py's
runner: `usmp plan FILE -a ALGO -q --no-time-limit` with the old and the
new build alternately, --runs times each, CPU = user + system, medians;
the two plans must be identical (all but their time fields). Prints a
Markdown table. Deterministic for a seed; stdlib only.
"""

import argparse
import json
import os
import random
import re
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "workloads"))

import compare  # noqa: E402
import field  # noqa: E402

DEFAULT_SHAPES = ("xla_50k_10k+r1,xla_50k_10k,alive_40k+1rule,alive_40k,"
                  "xla_50k_10k@2pools")
POOL_LIMIT = 1 << 30


def parse_shape(shape):
    """(base, rule spec, pools): spec ("pct", P), ("one",) or None."""
    m = re.fullmatch(r"([a-z0-9_]+)((?:[+@][a-z0-9.]+)*)", shape)
    if not m:
        raise ValueError("bad shape %r" % shape)
    rules, pools = None, 1
    for tok in re.findall(r"[+@][a-z0-9.]+", m.group(2)):
        if tok == "+1rule":
            rules = ("one",)
        elif re.fullmatch(r"\+r[0-9.]+", tok):
            rules = ("pct", float(tok[2:]))
        elif re.fullmatch(r"@[1-9][0-9]*pools", tok):
            pools = int(tok[1:-5])
        else:
            raise ValueError("bad part %r of shape %r" % (tok, shape))
    return m.group(1), rules, pools


def add_rules(bufs, spec, rng):
    """Move the dst of each new rule to begin at its src's last step;
    returns the rules as (src, dst) index pairs."""
    if spec is None:
        return []
    n = len(bufs)
    pairs = 1 if spec[0] == "one" else max(1, round(n * spec[1] / 200.0))
    order = list(range(n))
    rng.shuffle(order)
    rules = []
    for i in range(pairs):
        s, d = order[2 * i], order[2 * i + 1]
        slo, shi, _ = bufs[s]
        dlo, dhi, dsize = bufs[d]
        lo = shi - 1
        bufs[d] = (lo, lo + (dhi - dlo), dsize)
        rules.append((s, d))
    return rules


def write_problem(path, bufs, rules, pools):
    names = ["pool%d" % i for i in range(pools)]
    doc = {"usmp": 1,
           "pools": [{"name": nm} if i == pools - 1 else
                     {"name": nm, "size_limit": POOL_LIMIT}
                     for i, nm in enumerate(names)],
           "buffers": [{"name": "b%d" % i, "size": size, "live": [lo, hi]}
                       for i, (lo, hi, size) in enumerate(bufs)],
           "overlaps": [{"src": "b%d" % s, "dst": "b%d" % d, "max_lead": 0}
                        for s, d in rules]}
    with open(path, "w") as f:
        json.dump(doc, f, separators=(",", ":"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", required=True)
    ap.add_argument("--new", required=True)
    ap.add_argument("--shapes", default=DEFAULT_SHAPES)
    ap.add_argument("--algos", default="first_fit,best_fit")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep")
    args = ap.parse_args()
    args.old_runs = 0
    out = args.keep or tempfile.mkdtemp(prefix="fitrules")
    os.makedirs(out, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="fitrules_plans")
    try:
        print("| problem | buffers | rules | algorithm | CPU old → new | "
              "wall old → new | RSS old → new (MiB) | plans |")
        print("|---|---:|---:|---|---|---|---|---|")
        for shape in args.shapes.split(","):
            base, spec, pools = parse_shape(shape.strip())
            bufs = field.build(base, args.seed)
            rng = random.Random("%s/rules/%d" % (shape, args.seed))
            rules = add_rules(bufs, spec, rng)
            path = os.path.join(out, shape.replace("+", "_").replace(
                "@", "_") + ".json")
            write_problem(path, bufs, rules, pools)
            for algo in args.algos.split(","):
                r = compare.one(args, path, algo, tmp, False)
                same = {True: "identical", False: "DIFFERENT"}[r["same"]]
                print("| %s | %d | %d | %s | %s → %s s | %s → %s s | "
                      "%s → %s | %s |" % (
                          shape, len(bufs), len(rules), algo,
                          compare.fmt(r["old_cpu"]),
                          compare.fmt(r["new_cpu"]),
                          compare.fmt(r["old_wall"]),
                          compare.fmt(r["new_wall"]),
                          compare.fmt(r["old_rss"]),
                          compare.fmt(r["new_rss"]), same), flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        if not args.keep:
            shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
