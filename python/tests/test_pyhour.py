"""A TVM engineer's first hour with the binding, from Python objects: numpy
style integers, plans in `with` blocks, arguments in the wrong order or of
the wrong type, and what Python shows of each object."""
import copy
import errno
import gc
import inspect
import math
import os
import pickle
import tempfile
import unittest

import usmp


class NpInt:
    """Like numpy.int64: an integer through __index__, not an int."""

    def __init__(self, v):
        self.v = v

    def __index__(self):
        return self.v


def two_pools():
    p = usmp.Problem()
    p.add_pool("sram", size_limit=1024, alignment=16, targets=["npu"])
    p.add_pool("dram", targets=["npu"])
    p.add_buffer("a", 256, live=(0, 2), pools=["sram", "dram"])
    p.add_buffer("b", 256, live=(1, 3), pools=["sram", "dram"])
    return p


class PyHour(unittest.TestCase):
    def setUp(self):
        self.reg = usmp.Registry(use_env=False)

    def tearDown(self):
        self.reg.close()

    def test_integers_with_index_are_taken_as_ints(self):
        p = usmp.Problem()
        p.add_pool("sram", size_limit=NpInt(4096), alignment=NpInt(16))
        b = p.add_buffer("x", NpInt(64), alignment=NpInt(16),
                         live=(NpInt(0), NpInt(2)), pools=[NpInt(0)],
                         fixed=(NpInt(0), NpInt(128)))
        p.add_buffer("y", NpInt(32), live=(NpInt(1), NpInt(3)))
        p.add_overlap(NpInt(0), "y", max_lead=NpInt(0))
        self.assertEqual(p.buffer_info(NpInt(b)),
                         usmp.BufferInfo("x", 64, 16, (0, 2), ["sram"],
                                         ("sram", 128)))
        self.assertEqual(p.pool_info(NpInt(0)).size_limit, 4096)
        # a float stays refused: 16.5 bytes is no size
        with self.assertRaises(TypeError):
            p.add_buffer("z", 16.5)

    def test_a_fixed_placement_the_pool_refuses_adds_nothing(self):
        p = usmp.Problem()
        p.add_pool("sram", size_limit=1024, alignment=16)
        p.add_pool("dram")
        for fixed, msg in ((("sram", 3), "not a multiple of the pool's "
                            "alignment 16: fix it at 0 or 16"),
                           (("sram", 4096), r"fixed placement \[4096, 4160\) "
                            r"exceeds the size limit 1024 of pool \"sram\"")):
            with self.assertRaisesRegex(usmp.InvalidError, msg):
                p.add_buffer("w", 64, live=(0, 4), pools=["sram"],
                             fixed=fixed)
            self.assertEqual(p.buffers, [])
        # as meant, it is added (no "name already used")
        self.assertEqual(p.add_buffer("w", 64, live=(0, 4), pools=["sram"],
                                      fixed=("sram", 128)), 0)
        self.assertEqual(p.buffer_info("w").fixed, ("sram", 128))

    def test_copy_makes_a_problem_of_its_own(self):
        p = two_pools()
        p.add_buffer("w", 64, live=(0, 4), pools=["sram"], fixed=("sram", 512))
        p.add_conflict("a", "w")
        p.add_overlap("a", "b", max_lead=16)
        for q in (copy.copy(p), copy.deepcopy(p), p.copy()):
            self.assertIsNot(q, p)
            self.assertEqual(q.buffers, p.buffers)
            self.assertEqual([q.buffer_info(b) for b in q.buffers],
                             [p.buffer_info(b) for b in p.buffers])
            self.assertEqual([q.pool_info(j) for j in range(q.pool_count)],
                             [p.pool_info(j) for j in range(p.pool_count)])
            self.assertEqual((q.conflicts, q.overlaps),
                             (p.conflicts, p.overlaps))
            del q
            gc.collect()
        # the original outlives its copies (a shared handle was freed with
        # the first copy collected: "out of memory", then a double free)
        self.assertEqual(self.reg.plan(p, algorithm="best_fit").size, 576)

    def test_registries_and_plans_refuse_copies_and_pickles(self):
        pl = self.reg.plan(two_pools(), algorithm="best_fit")
        for obj in (self.reg, pl):
            for make in (copy.copy, copy.deepcopy, pickle.dumps):
                with self.assertRaisesRegex(TypeError, "cannot be (copied|"
                                            "pickled)"):
                    make(obj)
        with self.assertRaisesRegex(TypeError, "cannot be pickled"):
            pickle.dumps(two_pools())
        pl.verify()

    def test_messages_name_the_python_arguments_not_the_c_ones(self):
        p = usmp.Problem()
        with self.assertRaisesRegex(usmp.InvalidError, r"size_limit must be "
                                    r"positive \(size_limit=None for a pool "
                                    r"without a limit\)$"):
            p.add_pool("sram", size_limit=0)
        p = two_pools()
        with self.assertRaises(usmp.InvalidError) as cm:
            self.reg.plan(p, algorithm="best_fit", params={"order": "zzz"})
        self.assertIn('rule "best_fit" of plan(algorithm=...)',
                      str(cm.exception))
        self.assertNotIn("(-a)", str(cm.exception))
        d = tempfile.mkdtemp()
        with usmp.Registry(plugin_path=d, use_env=False,
                           default_dirs=False) as bare:
            with self.assertRaises(usmp.NotFoundError) as cm:
                bare.plan(p, algorithm="exact")
        self.assertIn("Registry(plugin_path=...)", str(cm.exception))
        self.assertNotIn("usmp_registry_options", str(cm.exception))
        # a clash of fixed buffers, an InfeasibleError, says so too
        q = usmp.Problem()
        q.add_pool("sram")
        q.add_buffer("x", 64, live=(0, 2), fixed=("sram", 0))
        q.add_buffer("y", 64, live=(0, 2), fixed=("sram", 0))
        with self.assertRaises(usmp.InfeasibleError) as cm:
            self.reg.plan(q)
        self.assertIn("add_buffer(fixed=...)", str(cm.exception))
        self.assertNotIn("usmp_problem", str(cm.exception))

    def test_closing_the_default_registry_does_not_break_usmp_plan(self):
        p = two_pools()
        with usmp.default_registry() as r:
            self.assertEqual(r.plan(p, algorithm="best_fit").size, 512)
        with self.assertRaisesRegex(usmp.InvalidError, "registry is closed"):
            r.plan(p)
        self.assertEqual(usmp.plan(p, algorithm="best_fit").size, 512)
        self.assertIsNot(usmp.default_registry(), r)

    def test_write_takes_the_format_of_the_suffix(self):
        p = usmp.Problem()
        p.add_pool("default", size_limit=4096)  # CSV names its pool so
        p.add_buffer("x", 64, live=(0, 2))
        p.add_buffer("y", 64, live=(1, 3))
        d = tempfile.mkdtemp()
        plan = self.reg.plan(p, algorithm="best_fit")
        plan.write(os.path.join(d, "plan.csv"))
        p.write(os.path.join(d, "model.csv"))
        plan.write(os.path.join(d, "plan.json"))
        with open(os.path.join(d, "plan.csv")) as f:
            self.assertTrue(f.read().startswith("id,"))
        with open(os.path.join(d, "model.csv")) as f:
            self.assertTrue(f.read().startswith("id,"))
        with open(os.path.join(d, "plan.json")) as f:
            self.assertTrue(f.read().lstrip().startswith("{"))
        back = usmp.Plan.read(p, os.path.join(d, "plan.csv"))
        self.assertEqual(back.placements, plan.placements)
        with self.assertRaisesRegex(usmp.InvalidError, r"plan.svg: write\(\) "
                                    r"writes a plan as JSON or CSV; "
                                    r"write_svg\(path\) draws it"):
            plan.write(os.path.join(d, "plan.svg"))
        self.assertFalse(os.path.exists(os.path.join(d, "plan.svg")))

    def test_a_problem_grown_after_its_plan_says_so(self):
        p = two_pools()
        plan = self.reg.plan(p, algorithm="best_fit")
        p.add_buffer("c", 64, live=(0, 1))
        msg = (r"^the problem changed after this plan was made: it has 2 "
               r"pools and 3 buffers, the plan 2 and 2: plan it again$")
        with self.assertRaisesRegex(usmp.InvalidPlanError, msg):
            plan.verify()
        d = tempfile.mkdtemp()
        with self.assertRaisesRegex(usmp.InvalidError, msg):
            plan.write(os.path.join(d, "plan.json"))
        with self.assertRaisesRegex(usmp.InvalidError, msg):
            plan.write_svg(os.path.join(d, "plan.svg"))
        self.reg.plan(p, algorithm="best_fit").verify()

    def test_a_part_has_the_ratio_usmp_plan_prints(self):
        part = self.reg.plan(two_pools(), algorithm="best_fit").parts[0]
        self.assertEqual((part.size, part.lower_bound, part.ratio),
                         (512, 512, 1.0))
        self.assertEqual(part._replace(size=600, lower_bound=400).ratio, 1.5)
        self.assertEqual(part._replace(size=0, lower_bound=0).ratio, 1.0)
        self.assertIsInstance(part, tuple)
        self.assertEqual(len(part), len(usmp.Part._fields))

    def test_a_missing_file_is_a_file_not_found_error(self):
        d = tempfile.mkdtemp()
        missing = os.path.join(d, "model.json")
        with self.assertRaises(FileNotFoundError) as cm:
            usmp.Problem.read(missing)
        e = cm.exception
        self.assertIsInstance(e, usmp.UsmpIOError)
        self.assertEqual((e.errno, e.filename, e.status),
                         (errno.ENOENT, missing, 6))
        self.assertEqual(str(e), "%s: cannot open: %s"
                         % (missing, os.strerror(errno.ENOENT)))
        back = pickle.loads(pickle.dumps(e))  # as multiprocessing sends it
        self.assertIsInstance(back, FileNotFoundError)
        self.assertEqual((str(back), back.errno), (str(e), errno.ENOENT))
        p = two_pools()
        plan = self.reg.plan(p, algorithm="best_fit")
        with self.assertRaises(FileNotFoundError):
            plan.write(os.path.join(d, "no", "plan.json"))
        with self.assertRaises(IsADirectoryError) as cm:
            usmp.Plan.read(p, d)
        self.assertIsInstance(cm.exception, usmp.UsmpIOError)
        self.assertEqual(type(cm.exception).__name__, "UsmpIOError")

    def test_an_empty_candidate_list_is_refused(self):
        p = two_pools()
        with self.assertRaisesRegex(usmp.InvalidError, r'^buffer "c": '
                                    r"pools=\[\] names no pool \(leave pools "
                                    r"out, or None, for every pool\)$"):
            p.add_buffer("c", 64, pools=[])
        self.assertEqual(p.buffers, ["a", "b"])
        p.add_buffer("c", 64)
        self.assertIsNone(p.buffer_info("c").pools)

    def test_a_plan_is_a_context_manager(self):
        p = two_pools()
        with self.reg.plan(p, algorithm="best_fit") as pl:
            self.assertEqual(pl.placements["a"].pool, "sram")
        with self.assertRaisesRegex(usmp.InvalidError, "plan is closed"):
            pl.verify()
        with usmp.Plan.read(p, self._written(p)) as back:
            back.verify()
        with self.assertRaisesRegex(usmp.InvalidError, "plan is closed"):
            back.verify()

    def _written(self, p):
        d = tempfile.mkdtemp()
        path = os.path.join(d, "plan.json")
        self.reg.plan(p, algorithm="best_fit").write(path)
        return path

    def test_plan_read_with_its_arguments_swapped_is_a_type_error(self):
        p = two_pools()
        path = self._written(p)
        with self.assertRaisesRegex(TypeError, r"Plan.read: expected a "
                                    r"usmp.Problem first, got '"):
            usmp.Plan.read(path, p)

    def test_a_bad_time_limit_is_named_as_the_python_argument(self):
        p = two_pools()
        for bad in (-1, -0.5, float("nan")):
            with self.assertRaises(usmp.InvalidError) as cm:
                self.reg.plan(p, time_limit=bad)
            msg = str(cm.exception)
            self.assertIn("time_limit=", msg)
            self.assertIn("math.inf", msg)
            self.assertNotIn("usmp_plan_options", msg)
            self.assertNotIn("INFINITY", msg)
        # the valid ones still plan
        self.assertEqual(self.reg.plan(p, algorithm="best_fit",
                                       time_limit=math.inf).size, 512)
        self.assertEqual(self.reg.plan(p, time_limit=None).size, 512)

    def test_a_string_argument_of_another_type_is_named(self):
        p = usmp.Problem()
        with self.assertRaisesRegex(TypeError, r"^name: expected a string, "
                                    r"got 5$"):
            p.add_pool(5)
        p.add_pool("sram")
        with self.assertRaisesRegex(TypeError, r"^name: expected a string"):
            p.add_buffer(None, 16)
        with self.assertRaisesRegex(TypeError, r"^target: expected a str"):
            p.add_pool_target("sram", 3)
        with self.assertRaisesRegex(TypeError, r"^algorithm: expected a str"):
            self.reg.plan(p, algorithm=3)
        with self.assertRaisesRegex(TypeError, r"^pattern: expected a str"):
            self.reg.bind(None, "best_fit")
        self.assertEqual(p.buffers, [])

    def test_objects_say_what_they_hold(self):
        p = two_pools()
        self.assertEqual(repr(p), "<usmp.Problem 2 pools, 2 buffers>")
        self.assertEqual(len(p), 2)
        n = len(self.reg.algorithms)
        self.assertRegex(repr(self.reg), r"^<usmp.Registry %d algorithms, "
                         r"\d+ plugins?>$" % n)
        p.close()
        self.assertEqual(repr(p), "<usmp.Problem closed>")
        self.reg.close()
        self.assertEqual(repr(self.reg), "<usmp.Registry closed>")

    def test_every_public_class_and_method_has_a_docstring(self):
        missing = []
        for name in usmp.__all__:
            obj = getattr(usmp, name)
            if not (inspect.isclass(obj) or inspect.isfunction(obj)):
                continue
            doc = obj.__doc__ or ""
            # a namedtuple's own docstring only repeats its fields
            if not doc.strip() or doc.startswith(name + "("):
                missing.append(name)
            if not inspect.isclass(obj):
                continue
            for m, v in inspect.getmembers(obj):
                if m.startswith("_") or not (callable(v) or
                                             isinstance(v, property)):
                    continue
                if m in ("count", "index") and issubclass(obj, tuple):
                    continue
                if isinstance(v, property):
                    v = v.fget
                if not (getattr(v, "__doc__", None) or "").strip():
                    missing.append(name + "." + m)
        self.assertEqual(missing, [])


if __name__ == "__main__":
    unittest.main()
