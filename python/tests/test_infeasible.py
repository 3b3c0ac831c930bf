# test_infeasible.py — the Python binding's InfeasibleError: the library's
# certificate in the message and as an Infeasibility, spill advice included.
"""Run with python/run_tests.sh BUILDDIR (see test_usmp.py)."""

import ctypes
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))

import usmp  # noqa: E402
from usmp import _lib  # noqa: E402


def sram_dram(sram_limit):
    """Three buffers alive at step 3 need 1216 bytes of "sram" only."""
    p = usmp.Problem()
    p.add_pool("sram", size_limit=sram_limit)
    p.add_pool("dram", size_limit=65536)
    for name, size, live in (("in", 256, (0, 2)), ("w1", 512, (1, 4)),
                             ("act", 384, (2, 5)), ("w2", 320, (3, 6)),
                             ("out", 128, (5, 7))):
        p.add_buffer(name, size, live=live, pools=["sram"])
    p.add_buffer("big", 4096, live=(0, 7), pools=["dram"])
    return p


class InfeasibleTest(unittest.TestCase):
    def test_layout_matches_the_c_struct(self):
        if ctypes.sizeof(ctypes.c_void_p) != 8:
            self.skipTest("layout pinned for LP64")
        self.assertEqual(ctypes.sizeof(_lib.Infeasibility), 104)
        self.assertEqual(_lib.Infeasibility.step.offset, 32)
        self.assertEqual(_lib.Infeasibility.buffers.offset, 56)
        self.assertEqual(_lib.Infeasibility.move_buffers.offset, 80)
        self.assertEqual(_lib.Infeasibility.algorithm.offset, 96)

    def test_step_certificate_and_spill_advice(self):
        for algo in ("first_fit", "auto"):
            with self.assertRaises(usmp.InfeasibleError) as cm:
                usmp.plan(sram_dram(1024), algorithm=algo)
            e = cm.exception
            self.assertIn('at step 3 the buffers live that may use only '
                          'pool "sram" need 1216 bytes', e.message)
            self.assertIn('Spill advice: let "w2" (320 bytes) use pool '
                          '"dram"', e.message)
            why = e.infeasibility
            self.assertEqual(why.kind, "step")
            self.assertEqual(why.algorithm, algo)
            self.assertEqual((why.pool, why.limit, why.bound), ("sram", 1024,
                                                                1216))
            self.assertEqual((why.step, why.total), (3, 1216))
            self.assertEqual(why.buffers, ["w1", "act", "w2"])
            self.assertEqual(why.moves, [("w2", "dram")])

    def test_unproven_says_a_plan_may_exist(self):
        # 8 bytes fit (exact plans it); first_fit finds no plan.
        def problem():
            p = usmp.Problem()
            p.add_pool("sram", size_limit=8)
            for name, size, live in (("b0", 4, (3, 5)), ("b1", 3, (2, 3)),
                                     ("b2", 1, (3, 6)), ("b3", 2, (1, 4)),
                                     ("b4", 2, (4, 7)), ("b5", 3, (0, 3))):
                p.add_buffer(name, size, live=live)
            return p
        with self.assertRaises(usmp.InfeasibleError) as cm:
            usmp.plan(problem(), algorithm="first_fit")
        why = cm.exception.infeasibility
        self.assertEqual(why.kind, "unproven")
        self.assertEqual((why.pool, why.limit, why.bound), ("sram", 8, 8))
        self.assertEqual(why.moves, [])
        self.assertIn("so a plan may exist: try -a exact",
                      cm.exception.message)
        plan = usmp.plan(problem(), algorithm="exact")
        self.assertLessEqual(plan.pool_sizes["sram"], 8)

    def test_other_errors_carry_no_infeasibility(self):
        p = usmp.Problem()
        p.add_pool("sram", size_limit=64)
        p.add_buffer("a", 16, live=(0, 2))
        p.add_buffer("b", 16)
        p.add_conflict("a", "b")
        # exact_window lacks the conflict-edges capability: unsupported.
        with self.assertRaises(usmp.UnsupportedError) as cm:
            usmp.plan(p, algorithm="exact_window")
        self.assertFalse(hasattr(cm.exception, "infeasibility"))


if __name__ == "__main__":
    unittest.main()
