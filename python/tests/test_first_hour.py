# test_first_hour.py — what a first-time user of the binding needs to see:
# which rule chose each part's algorithm (Part.rule, Part.source).
"""Run with python/run_tests.sh BUILDDIR."""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))

import usmp  # noqa: E402


def npu_problem():
    p = usmp.Problem()
    p.add_pool("sram", size_limit=256 * 1024, alignment=16, targets=["ethos-u55"])
    p.add_pool("dram", targets=["ethos-u55"])
    p.add_buffer("conv1.out", 65536, live=(0, 2), pools=["sram", "dram"])
    p.add_buffer("relu1.out", 65536, live=(1, 3), pools=["sram", "dram"])
    p.add_overlap("conv1.out", "relu1.out", max_lead=0)
    return p


class PartRule(unittest.TestCase):
    def test_a_bound_rule_wins_over_the_algorithm_argument_and_says_so(self):
        r = usmp.Registry()
        r.bind("ethos-u*", "best_fit", {"order": "all"})
        part = r.plan(npu_problem(), algorithm="exact").parts[0]
        self.assertEqual(part.algorithm, "best_fit")
        self.assertEqual(part.rule, "ethos-u*=best_fit:order=all")
        self.assertEqual(part.source, "api")

    def test_the_algorithm_argument_and_the_default_are_named(self):
        r = usmp.Registry(use_env=False)  # no USMP_ALGORITHM rules
        part = r.plan(npu_problem(), algorithm="exact").parts[0]
        self.assertEqual((part.algorithm, part.rule, part.source),
                         ("exact", "exact", "options"))
        part = r.plan(npu_problem()).parts[0]
        self.assertTrue(part.algorithm.startswith("auto/"), part.algorithm)
        self.assertEqual(part.source, "default")


if __name__ == "__main__":
    unittest.main()
