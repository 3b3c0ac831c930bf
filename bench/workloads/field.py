#!/usr/bin/env python3
# Owns the field-shaped stress problems for `auto`: thousands of buffers alive
# at once, sizes over eight decades, as real compiler traces have them.
"""Write stress problems shaped like production XLA traces (MiniMalloc CSV).

    python3 bench/workloads/field.py [--out DIR] [--shapes S,S,...] [--seed N]

Shapes (N buffers; sizes log-uniform from 1 B to 10^8 B, i.e. eight
decades, as an integer number of bytes):

alive_N        every buffer alive at once: begins in [0, T), ends in
               (T, 2T], T = N; the lower bound is the sum of the sizes.
xla_N_K        N buffers over T = N steps with about K alive at a time:
               begin uniform in [0, T), lifetime exponential with mean
               K * T / N (at least 1, clipped at T), and K / 10 buffers
               alive over the whole trace (parameters, outputs): one in
               fifty at N = 5 K, so the peak stays near K as N grows.

N and K take k/m suffixes: alive_100k, xla_50k_10k, xla_500k_10k.  The
default writes alive_100k and xla_50k_10k, the two shapes the issue
"auto in the field" names.  Files are DIR/SHAPE.csv (default out/, next to
gen.py's output); `id,lower,upper,size`, half-open ranges, ids = buffer
indices, one unbounded pool, alignment 1.  Deterministic for a seed;
stdlib only.
"""

import argparse
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from gen import parse_size  # noqa: E402

DECADES = 8


def log_uniform_size(rng):
    return max(1, int(10 ** rng.uniform(0, DECADES)))


def all_alive(n, rng):
    t = n
    return [(rng.randrange(t), t + 1 + rng.randrange(t), log_uniform_size(rng))
            for _ in range(n)]


def xla_like(n, k, rng):
    t = n
    mean = max(1.0, k * t / n)
    # one buffer in `whole` is alive throughout: K / 10 of them in all
    whole = max(1, round(10 * n / k))
    out = []
    for _ in range(n):
        if rng.randrange(whole) == 0:
            lo, hi = 0, t
        else:
            lo = rng.randrange(t)
            life = max(1, min(t, int(rng.expovariate(1.0 / mean)) + 1))
            hi = min(t, lo + life)
            if hi <= lo:
                lo, hi = t - 1, t
        out.append((lo, hi, log_uniform_size(rng)))
    return out


def build(shape, seed):
    rng = random.Random("%s/%d" % (shape, seed))
    parts = shape.split("_")
    if parts[0] == "alive" and len(parts) == 2:
        return all_alive(parse_size(parts[1]), rng)
    if parts[0] == "xla" and len(parts) == 3:
        return xla_like(parse_size(parts[1]), parse_size(parts[2]), rng)
    raise ValueError("unknown shape %r (expected alive_N or xla_N_K)" % shape)


def write_csv(path, bufs):
    with open(path, "w") as f:
        f.write("id,lower,upper,size\n")
        for i, (lo, hi, size) in enumerate(bufs):
            f.write("%d,%d,%d,%d\n" % (i, lo, hi, size))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(HERE, "out"))
    ap.add_argument("--shapes", default="alive_100k,xla_50k_10k")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    for shape in a.shapes.split(","):
        shape = shape.strip()
        if not shape:
            continue
        try:
            bufs = build(shape, a.seed)
        except ValueError as e:
            print("field.py: %s" % e, file=sys.stderr)
            return 2
        path = os.path.join(a.out, shape + ".csv")
        write_csv(path, bufs)
        print("%s: %d buffers" % (path, len(bufs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
