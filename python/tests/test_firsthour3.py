"""A TinyML engineer's first hour through the binding: a CSV of tensor
lifetimes against a 256 KiB arena, the miss, byte counts, plans read back."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import usmp

# Twelve tensors; at step 2 "t2", "t1" and "skip" (274432 bytes) are live.
MODEL = "id,lower,upper,size,alignment\n" + "".join(
    "%s,%d,%d,%d,16\n" % row for row in (
        ("t0", 0, 2, 49152), ("t1", 1, 3, 98304), ("t2", 2, 4, 110592),
        ("t3", 3, 5, 49152), ("t4", 4, 6, 49152), ("t5", 5, 7, 24576),
        ("t6", 6, 8, 24576), ("t7", 7, 9, 12288), ("t8", 8, 10, 12288),
        ("t9", 9, 11, 4096), ("t10", 10, 12, 1000), ("skip", 1, 6, 65536)))


class FirstHour3(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.csv = os.path.join(self.dir.name, "model.csv")
        with open(self.csv, "w") as f:
            f.write(MODEL)
        self.reg = usmp.Registry(use_env=False)

    def tearDown(self):
        self.dir.cleanup()

    def test_a_model_over_the_arena_says_by_how_much_and_what_is_live(self):
        p = usmp.Problem.read(self.csv, capacity="256K")
        with self.assertRaises(usmp.InfeasibleError) as cm:
            self.reg.plan(p)
        why = cm.exception.infeasibility
        self.assertEqual((why.kind, why.step, why.limit, why.total),
                         ("step", 2, 262144, 274432))
        self.assertEqual(why.total - why.limit, 12288)
        self.assertEqual(why.buffers, ["t2", "t1", "skip"])
        self.assertIn('more than its limit (262144 bytes) by 12288 bytes; '
                      'the largest of the 3 is "t2" (110592 bytes), then '
                      '"t1" (98304 bytes), "skip" (65536 bytes)',
                      cm.exception.message)

    def test_byte_counts_are_the_clis(self):
        for text, value in (("256K", 262144), ("256KiB", 262144),
                            ("256kB", 262144), ("1M", 1 << 20),
                            ("1g", 1 << 30), ("300000", 300000)):
            p = usmp.Problem.read(self.csv, capacity=text)
            q = usmp.Problem.read(self.csv, capacity=value)
            # the same limit: the same answer, plan or refusal
            self.assertEqual(self._fits(p), self._fits(q), text)
        self.assertTrue(self._fits(usmp.Problem.read(self.csv,
                                                     capacity="268K")))
        self.assertFalse(self._fits(usmp.Problem.read(self.csv,
                                                      capacity="267K")))
        for bad in ("256 K", "256KB!", "K", "-1", "1T", "2.5M", "256B"):
            with self.assertRaises(usmp.InvalidError, msg=bad) as cm:
                usmp.Problem.read(self.csv, capacity=bad)
            self.assertIn("capacity: %r is not a byte count" % bad,
                          cm.exception.message)
        p = usmp.Problem()
        self.assertEqual(p.add_pool("sram", size_limit="256K", alignment=16), 0)

    def _fits(self, p):
        try:
            self.reg.plan(p, algorithm="best_fit")
            return True
        except usmp.InfeasibleError:
            return False

    def test_capacity_for_a_json_problem_is_refused_as_by_the_cli(self):
        path = os.path.join(self.dir.name, "model.json")
        usmp.Problem.read(self.csv).write(path)
        with self.assertRaises(usmp.InvalidError) as cm:
            usmp.Problem.read(path, capacity="256K")
        self.assertIn("capacity applies to CSV problems only",
                      cm.exception.message)
        with self.assertRaises(usmp.InvalidError):
            with open(path) as f:
                usmp.Problem.parse(f.read(), capacity=4096)
        # CSV text through parse, by format or by name
        self.assertEqual(usmp.Problem.parse(MODEL, format="csv",
                                            capacity="1M").buffer_count, 12)
        self.assertEqual(usmp.Problem.parse(MODEL, name="m.csv", format="auto",
                                            capacity="1M").buffer_count, 12)

    def test_header_typo_names_the_column_it_misspells(self):
        with open(self.csv, "w") as f:
            f.write(MODEL.replace("upper", "uper", 1))
        with self.assertRaises(usmp.InvalidError) as cm:
            usmp.Problem.read(self.csv, capacity="256K")
        self.assertIn('model.csv:1: unknown column "uper": did you mean '
                      '"upper"?', cm.exception.message)

    def test_plan_json_reads_back_and_only_time_ms_differs_between_runs(self):
        p = usmp.Problem.read(self.csv, capacity="300K")
        files = []
        for k in range(2):
            plan = self.reg.plan(p, algorithm="best_fit")
            files.append(os.path.join(self.dir.name, "plan%d.json" % k))
            plan.write(files[-1])
        offsets = {n: pl.offset for n, pl in plan.placements.items()}
        self.assertEqual(len(offsets), 12)
        back = usmp.Plan.read(p, files[0])
        self.assertEqual({n: pl.offset for n, pl in back.placements.items()},
                         offsets)
        back.verify()

        def strip(x):
            if isinstance(x, dict):
                return {k: strip(v) for k, v in x.items() if k != "time_ms"}
            if isinstance(x, list):
                return [strip(v) for v in x]
            return x
        docs = []
        for name in files:
            with open(name) as f:
                docs.append(json.load(f))
        self.assertIn("time_ms", docs[0])
        self.assertEqual(strip(docs[0]), strip(docs[1]))
        svg = os.path.join(self.dir.name, "plan.svg")
        plan.write_svg(svg)
        with open(svg) as f:
            text = f.read()
        self.assertTrue(text.startswith("<?xml") or text.startswith("<svg"))
        for name in offsets:
            self.assertIn(name, text)


class LibraryNotFound(unittest.TestCase):
    def test_a_package_without_its_library_says_where_it_looked(self):
        src = os.path.dirname(os.path.abspath(usmp.__file__))
        with tempfile.TemporaryDirectory() as d:
            shutil.copytree(src, os.path.join(d, "pkg", "usmp"),
                            ignore=shutil.ignore_patterns("_paths.py",
                                                          "__pycache__"))
            env = {k: v for k, v in os.environ.items()
                   if k not in ("USMP_LIBRARY", "LD_LIBRARY_PATH")}
            env["PYTHONPATH"] = os.path.join(d, "pkg")
            r = subprocess.run([sys.executable, "-c",
                                "import usmp; usmp.Problem()"],
                               env=env, capture_output=True, text=True,
                               cwd=d)
            if r.returncode == 0:
                self.skipTest("libusmp.so.1 is on the loader's path")
            self.assertIn("cannot load libusmp: set USMP_LIBRARY to its path "
                          "(a build directory's src/libusmp.so.1", r.stderr)
            self.assertIn(os.path.join(d, "build", "src", "libusmp.so.1")
                          + ": no such file", r.stderr)


if __name__ == "__main__":
    unittest.main()
