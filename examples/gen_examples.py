#!/usr/bin/env python3
# Owns writing the committed example problems (examples/*.json) from the
# network descriptions in examples/netgen/.
"""Regenerate the committed example problems.

    python3 examples/gen_examples.py            # writes examples/*.json
    python3 examples/gen_examples.py --out DIR  # writes them elsewhere

Deterministic: the same code always writes the same bytes, and
examples/check_examples.py compares the committed files against it.
"""

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from netgen import dumps_problem, problem_lower_bounds  # noqa: E402
from netgen.problems import EXAMPLES  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=HERE, help="directory (default: examples/)")
    a = ap.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    for name in sorted(EXAMPLES):
        p = EXAMPLES[name]()
        text = dumps_problem(p)
        path = os.path.join(a.out, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        for gb in problem_lower_bounds(p):
            print("%s: group %d pools %s: %d buffers, lower bound %d "
                  "(with overlap rules %d)" % (
                      name, gb["group"], ",".join(gb["pools"]), gb["buffers"],
                      gb["lower_bound"], gb["lower_bound_overlap"]))
        print("%s: %d buffers, %d overlap rules, %d bytes" % (
            path, len(p["buffers"]), len(p.get("overlaps", [])), len(text)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
