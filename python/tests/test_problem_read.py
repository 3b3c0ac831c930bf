# test_problem_read.py — reading a problem back from Python (ABI 1.3):
# pool_info, buffer_info, conflicts, overlaps; bad indices; an older library.
"""Run with python/run_tests.sh BUILDDIR."""

import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))

import usmp  # noqa: E402
from usmp import _lib  # noqa: E402

BOARD = """{"pools": [{"name": "sram", "size_limit": 262144, "alignment": 16,
                       "targets": ["ethos-u55", "cortex-m55"]},
                      {"name": "dram"}],
 "buffers": [{"name": "conv1.out", "size": 200704, "alignment": 16,
              "live": [0, 3], "pools": ["sram", "dram"]},
             {"name": "relu1.out", "size": 200704, "alignment": 16,
              "live": [2, 5], "pools": ["dram", "sram"]},
             {"name": "weights.scratch", "size": 4096,
              "fixed": {"pool": "dram", "offset": 64}},
             {"name": "anywhere", "size": 8, "live": [-4, -1]}],
 "conflicts": [["weights.scratch", "conv1.out"]],
 "overlaps": [{"src": "conv1.out", "dst": "relu1.out", "max_lead": -32}]}"""


class ProblemReadTest(unittest.TestCase):
    def test_json_reads_back_field_by_field(self):
        p = usmp.Problem.parse(BOARD)
        self.assertEqual(p.pool_info("sram"),
                         usmp.PoolInfo("sram", 262144, 16,
                                       ["ethos-u55", "cortex-m55"]))
        self.assertEqual(p.pool_info(1), usmp.PoolInfo("dram", None, 1, []))
        self.assertEqual(p.buffer_info("relu1.out"),
                         usmp.BufferInfo("relu1.out", 200704, 16, (2, 5),
                                         ["dram", "sram"], None))
        self.assertEqual(p.buffer_info(2),
                         usmp.BufferInfo("weights.scratch", 4096, 1, None,
                                         None, ("dram", 64)))
        self.assertEqual(p.buffer_info("anywhere").pools, None)
        self.assertEqual(p.buffer_info("anywhere").live, (-4, -1))
        self.assertEqual(p.conflicts, [("conv1.out", "weights.scratch")])
        self.assertEqual(p.overlaps, [("conv1.out", "relu1.out", -32)])

    def test_csv_reads_back(self):
        p = usmp.Problem.parse("id,lower,upper,size,offset\na,0,2,10,\n"
                               "b,1,3,20,32\n", name="t.csv", format="csv",
                               capacity=1024)
        self.assertEqual(p.pool_info(0), usmp.PoolInfo("default", 1024, 1, []))
        self.assertEqual(p.buffer_info("b"),
                         usmp.BufferInfo("b", 20, 1, (1, 3), None,
                                         ("default", 32)))

    def test_info_rebuilds_the_problem(self):
        """The info tuples are add_pool's and add_buffer's arguments."""
        p = usmp.Problem.parse(BOARD)
        q = usmp.Problem()
        for i in range(p.pool_count):
            q.add_pool(**p.pool_info(i)._asdict())
        for b in range(p.buffer_count):
            q.add_buffer(**p.buffer_info(b)._asdict())
        for a, b in p.conflicts:
            q.add_conflict(a, b)
        for s, d, lead in p.overlaps:
            q.add_overlap(s, d, lead)
        with tempfile.TemporaryDirectory() as tmp:
            one, two = os.path.join(tmp, "p.json"), os.path.join(tmp, "q.json")
            p.write(one)
            q.write(two)
            with open(one) as f1, open(two) as f2:
                self.assertEqual(f1.read(), f2.read())

    def test_bad_index_raises_not_found_naming_it(self):
        p = usmp.Problem.parse(BOARD)
        with self.assertRaises(usmp.NotFoundError) as e:
            p.buffer_info(9)
        self.assertEqual(e.exception.message,
                         "buffer index 9 out of range (4 buffers)")
        with self.assertRaises(usmp.NotFoundError) as e:
            p.pool_info(2)
        self.assertEqual(e.exception.message,
                         "pool index 2 out of range (2 pools)")
        with self.assertRaises(usmp.NotFoundError):
            p.buffer_info("nope")

    def test_a_library_older_than_1_3_is_named(self):
        p = usmp.Problem.parse(BOARD)
        lib = _lib.lib()
        saved = lib.usmp_abi_minor
        lib.usmp_abi_minor = 2
        try:
            with self.assertRaises(usmp.UnsupportedError) as e:
                p.buffer_info(0)
        finally:
            lib.usmp_abi_minor = saved
        self.assertIn("Problem.buffer_info needs libusmp ABI 1.3 or later; ",
                      e.exception.message)
        self.assertIn("implements 1.2", e.exception.message)
        self.assertEqual(p.buffer_count, 4, "the 1.2 calls still work")


if __name__ == "__main__":
    unittest.main()
