# test_usmp.py — tests of the Python binding against the real library: plans
# checked by an independent Python verifier, errors with messages, the TVM hook.
"""Run with python/run_tests.sh BUILDDIR, or with USMP_LIBRARY and
USMP_PLUGIN_PATH set: python3 -m unittest discover -s python/tests"""

import json
import os
import random
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "examples"))

import usmp  # noqa: E402
import tvm_hook  # noqa: E402

# The repository's top (USMP_SOURCE_ROOT when set, as the meson tests set it).
SOURCE_ROOT = os.environ.get("USMP_SOURCE_ROOT") or os.path.join(HERE, "..", "..")
EXAMPLES = os.path.join(SOURCE_ROOT, "examples")
MINIMALLOC = os.path.join(SOURCE_ROOT, "tests", "data", "minimalloc")


# ---- an independent verifier ----------------------------------------------

def check_plan(test, spec, plan):
    """Check `plan` against `spec`, a plain description of the problem:
    {"pools": {name: (limit or None, alignment)}, "buffers": {name: dict(
    size, alignment, live, pools, fixed)}, "conflicts": [(a, b)],
    "overlaps": [(src, dst, max_lead)]}."""
    pools, bufs = spec["pools"], spec["buffers"]
    test.assertEqual(set(plan.placements), set(bufs))
    for name, b in bufs.items():
        pool, off = plan.placements[name]
        test.assertIn(pool, pools, name)
        if b.get("pools"):
            test.assertIn(pool, b["pools"], "%s outside its candidates" % name)
        limit, palign = pools[pool]
        test.assertEqual(off % max(b.get("alignment", 1), palign), 0,
                         "%s misaligned at %d" % (name, off))
        if limit is not None:
            test.assertLessEqual(off + b["size"], limit, name)
        if b.get("fixed"):
            test.assertEqual((pool, off), tuple(b["fixed"]), name)
    edges = {frozenset(e) for e in spec.get("conflicts", ())}
    rules = {(s, d): lead for s, d, lead in spec.get("overlaps", ())}
    names = sorted(bufs)
    for i, a in enumerate(names):
        for c in names[i + 1:]:
            la, lc = bufs[a].get("live"), bufs[c].get("live")
            live = la and lc and la[0] < lc[1] and lc[0] < la[1]
            if not live and frozenset((a, c)) not in edges:
                continue
            pa, oa = plan.placements[a]
            pc, oc = plan.placements[c]
            if pa != pc:
                continue
            if oa + bufs[a]["size"] <= oc or oc + bufs[c]["size"] <= oa:
                continue
            if (a, c) in rules and oc <= oa + rules[(a, c)]:
                continue
            if (c, a) in rules and oa <= oc + rules[(c, a)]:
                continue
            test.fail("%s [%d,+%d) and %s [%d,+%d) overlap in %s while in "
                      "conflict" % (a, oa, bufs[a]["size"], c, oc,
                                    bufs[c]["size"], pa))
    for pool, size in plan.pool_sizes.items():
        tops = [plan.placements[n].offset + bufs[n]["size"] for n in bufs
                if plan.placements[n].pool == pool]
        test.assertEqual(size, max(tops, default=0), pool)


def build(spec):
    """A usmp.Problem from a spec (see check_plan)."""
    p = usmp.Problem()
    for name, (limit, align) in spec["pools"].items():
        p.add_pool(name, size_limit=limit, alignment=align,
                   targets=spec.get("targets", {}).get(name, ()))
    for name, b in spec["buffers"].items():
        p.add_buffer(name, b["size"], alignment=b.get("alignment", 1),
                     live=b.get("live"), pools=b.get("pools"),
                     fixed=b.get("fixed"))
    for a, b in spec.get("conflicts", ()):
        p.add_conflict(a, b)
    for s, d, lead in spec.get("overlaps", ()):
        p.add_overlap(s, d, lead)
    return p


# Two 16-byte buffers, alive together at step 1, in one unbounded pool.
LEFT_RIGHT = {"pools": {"default": (None, 1)},
              "buffers": {"left": {"size": 16, "live": (0, 2)},
                          "right": {"size": 16, "live": (1, 3)}}}


def write_plan(plan, path):
    """Write plan to path as JSON; the file, parsed."""
    plan.write(path)
    with open(path) as f:
        return json.load(f)


def write_json(path, doc):
    with open(path, "w") as f:
        json.dump(doc, f)


def random_spec(seed, n=60, pools=None):
    rng = random.Random(seed)
    spec = {"pools": pools or {"default": (None, 1)}, "buffers": {},
            "conflicts": []}
    for i in range(n):
        begin = rng.randrange(0, 40)
        spec["buffers"]["t%d" % i] = {
            "size": rng.choice([16, 100, 256, 1000, 4096, 777]),
            "alignment": rng.choice([1, 4, 16, 64]),
            "live": (begin, begin + rng.randrange(1, 8)),
        }
    names = list(spec["buffers"])
    for _ in range(n // 4):
        a, b = rng.sample(names, 2)
        spec["conflicts"].append((a, b))
    return spec


def peak_alive(spec):
    """Largest total size alive at one time (no rules, one pool)."""
    events = {}
    for b in spec["buffers"].values():
        for t in range(*b["live"]):
            events[t] = events.get(t, 0) + b["size"]
    return max(events.values(), default=0)


# ---- tests -----------------------------------------------------------------

class LibraryTest(unittest.TestCase):
    def test_version_and_abi_are_reported(self):
        self.assertRegex(usmp.version(), r"^\d+\.\d+\.\d+")
        major, minor = usmp.abi_version()
        self.assertEqual(major, 1)
        self.assertGreaterEqual(minor, 1)


class LayoutTest(unittest.TestCase):
    # The ctypes mirrors must match the C layout (LP64), as pinned by
    # tests/test_layout.c; a drift would corrupt every call using them.
    def test_ctypes_structs_match_the_c_layout(self):
        import ctypes
        from usmp import _lib
        if ctypes.sizeof(ctypes.c_void_p) != 8:
            self.skipTest("layout pinned for LP64")
        sizes = {_lib.RegistryOptions: 16, _lib.PluginInfo: 48,
                 _lib.AlgorithmInfo: 40, _lib.ParamInfo: 32,
                 _lib.Selection: 32, _lib.PlanOptions: 64,
                 _lib.PartInfo: 144}
        for struct, size in sizes.items():
            self.assertEqual(ctypes.sizeof(struct), size, struct.__name__)
        self.assertEqual(_lib.PlanOptions.time_limit.offset, 40)
        self.assertEqual(_lib.PlanOptions.cancel.offset, 48)
        self.assertEqual(_lib.PlanOptions.log_ctx.offset, 56)
        self.assertEqual(_lib.PartInfo.overrun_cause.offset, 128)
        self.assertEqual(_lib.PartInfo.overrun_by.offset, 120)
        self.assertEqual(_lib.PartInfo.size.offset, 40)
        self.assertEqual(_lib.PartInfo.rule.offset, 72)
        self.assertEqual(_lib.PartInfo.source.offset, 80)
        self.assertEqual(_lib.PartInfo.time_ms.offset, 64)
        self.assertEqual(_lib.PartInfo.spill.offset, 88)
        self.assertEqual(_lib.PartInfo.spill_largest.offset, 100)
        self.assertEqual(_lib.PartInfo.spill_forced.offset, 104)


class ProblemTest(unittest.TestCase):
    def test_pools_and_buffers_are_indexed_in_insertion_order(self):
        p = usmp.Problem()
        self.assertEqual(p.add_pool("sram", 1024), 0)
        self.assertEqual(p.add_pool("dram"), 1)
        self.assertEqual(p.add_buffer("a", 10), 0)
        self.assertEqual(p.add_buffer("b", 20, pools=["dram"]), 1)
        self.assertEqual(p.pools, ["sram", "dram"])
        self.assertEqual(p.buffers, ["a", "b"])
        self.assertEqual(p.find_buffer("b"), 1)
        self.assertEqual(p.find_pool("dram"), 1)

    def test_lower_bound_is_the_peak_of_live_sizes(self):
        spec = random_spec(1)
        spec["conflicts"] = []
        p = build(spec)
        self.assertEqual(p.lower_bounds(), [peak_alive(spec)])

    def test_pools_no_buffer_shares_form_separate_groups(self):
        p = usmp.Problem()
        p.add_pool("a")
        p.add_pool("b")
        p.add_buffer("x", 100, live=(0, 2), pools=["a"])
        p.add_buffer("y", 300, live=(0, 2), pools=["b"])
        self.assertEqual(p.group_count, 2)
        self.assertNotEqual(p.pool_group("a"), p.pool_group("b"))
        self.assertEqual(sorted(p.lower_bounds()), [100, 300])

    def test_read_parses_a_json_problem_file(self):
        path = os.path.join(EXAMPLES, "mobilenet_v2.json")
        self.assertTrue(os.path.isfile(path), "%s is missing" % path)
        p = usmp.Problem.read(path)
        self.assertGreater(p.buffer_count, 10)
        self.assertGreater(p.lower_bounds()[0], 0)

    def test_parse_and_write_round_trip(self):
        spec = random_spec(2, n=12)
        p = build(spec)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "p.json")
            p.write(path)
            q = usmp.Problem.read(path)
            with open(path) as f:
                r = usmp.Problem.parse(f.read(), name="p.json")
        self.assertEqual(q.buffers, p.buffers)
        self.assertEqual(r.lower_bounds(), p.lower_bounds())

    def test_csv_problem_reads_with_capacity(self):
        csv = "id,lower,upper,size\n0,0,2,100\n1,1,3,200\n2,3,5,50\n"
        p = usmp.Problem.parse(csv, name="t.csv", format="csv",
                               capacity=1000)
        self.assertEqual(p.buffer_count, 3)
        self.assertEqual(p.lower_bounds(), [300])


class ErrorTest(unittest.TestCase):
    def test_duplicate_pool_raises_invalid_error_naming_it(self):
        p = usmp.Problem()
        p.add_pool("sram")
        with self.assertRaises(usmp.InvalidError) as cm:
            p.add_pool("sram")
        self.assertEqual(cm.exception.status, 1)
        self.assertIn("sram", cm.exception.message)
        self.assertIsInstance(cm.exception, ValueError)

    def test_zero_size_buffer_is_refused(self):
        p = usmp.Problem()
        with self.assertRaises(usmp.InvalidError) as cm:
            p.add_buffer("empty", 0)
        self.assertIn("empty", str(cm.exception))

    def test_bad_live_range_is_refused(self):
        p = usmp.Problem()
        p.add_buffer("a", 8)
        with self.assertRaises(usmp.InvalidError) as cm:
            p.set_live("a", 5, 5)
        self.assertTrue(cm.exception.message)

    def test_unknown_buffer_name_raises_not_found(self):
        p = usmp.Problem()
        with self.assertRaises(usmp.NotFoundError) as cm:
            p.set_live("ghost", 0, 1)
        self.assertIn("ghost", cm.exception.message)
        self.assertIsInstance(cm.exception, LookupError)

    def test_malformed_json_names_the_field(self):
        bad = '{"usmp": 1, "buffers": [{"name": "x", "size": "12k"}]}'
        with self.assertRaises(usmp.InvalidError) as cm:
            usmp.Problem.parse(bad, name="model.json")
        self.assertIn("model.json", cm.exception.message)
        self.assertIn("size", cm.exception.message)

    def test_missing_file_raises_io_error(self):
        with self.assertRaises(usmp.UsmpIOError) as cm:
            usmp.Problem.read("/nonexistent/problem.json")
        self.assertIn("/nonexistent/problem.json", cm.exception.message)

    def test_unknown_algorithm_raises_not_found(self):
        p = build(random_spec(3, n=5))
        with self.assertRaises(usmp.NotFoundError) as cm:
            usmp.plan(p, algorithm="no_such_algorithm")
        self.assertIn("no_such_algorithm", cm.exception.message)

    def test_bad_knob_value_is_refused_naming_the_knob(self):
        p = build(random_spec(3, n=5))
        with self.assertRaises(usmp.UsmpError) as cm:
            usmp.plan(p, algorithm="hill_climb", params={"attempts": -3})
        self.assertIn("attempts", cm.exception.message)

    def test_unknown_knob_is_refused(self):
        p = build(random_spec(3, n=5))
        with self.assertRaises(usmp.UsmpError) as cm:
            usmp.plan(p, algorithm="first_fit", params=["colour=blue"])
        self.assertIn("colour", cm.exception.message)

    def test_infeasible_problem_raises_infeasible_error(self):
        p = usmp.Problem()
        p.add_pool("tiny", size_limit=100)
        p.add_buffer("a", 80, live=(0, 2))
        p.add_buffer("b", 80, live=(1, 3))
        with self.assertRaises(usmp.InfeasibleError) as cm:
            usmp.plan(p, algorithm="first_fit")
        self.assertEqual(cm.exception.status, 2)
        self.assertTrue(cm.exception.message)


class PlanTest(unittest.TestCase):
    def test_python_verifier_catches_an_overlap(self):
        # The checker the other tests rely on must be able to fail.
        spec = {"pools": {"default": (None, 1)},
                "buffers": {"a": {"size": 16, "live": (0, 2)},
                            "b": {"size": 16, "live": (1, 3)}}}

        class Fake:
            placements = {"a": usmp.Placement("default", 0),
                          "b": usmp.Placement("default", 8)}
            pool_sizes = {"default": 24}
        with self.assertRaises(AssertionError):
            check_plan(self, spec, Fake)

    def test_heuristics_return_valid_plans_on_random_problems(self):
        for seed in range(5):
            spec = random_spec(100 + seed)
            p = build(spec)
            for algo in ("first_fit", "best_fit", "greedy_by_size",
                         "hill_climb", "auto"):
                with self.subTest(seed=seed, algorithm=algo):
                    plan = usmp.plan(p, algorithm=algo, time_limit=2.0)
                    check_plan(self, spec, plan)
                    self.assertGreaterEqual(plan.size, p.lower_bounds()[0])
                    plan.verify()

    def test_multi_pool_fixed_and_limits_are_honoured(self):
        spec = {
            "pools": {"sram": (4096, 16), "dram": (None, 64)},
            "buffers": {
                "in": {"size": 1024, "live": (0, 2),
                       "pools": ["sram", "dram"], "fixed": ("sram", 0)},
                "a": {"size": 2048, "live": (1, 3), "pools": ["sram", "dram"]},
                "b": {"size": 2048, "live": (2, 4), "pools": ["sram", "dram"]},
                "c": {"size": 3000, "live": (1, 4), "pools": ["sram", "dram"]},
                "lut": {"size": 256, "alignment": 128},
            },
            "conflicts": [("lut", "a")],
        }
        for algo in ("first_fit", "best_fit", "auto"):
            with self.subTest(algorithm=algo):
                plan = usmp.plan(build(spec), algorithm=algo)
                check_plan(self, spec, plan)
                self.assertLessEqual(plan.pool_sizes["sram"], 4096)

    def test_overlap_rule_lets_an_in_place_op_share_memory(self):
        spec = {"pools": {"default": (None, 1)},
                "buffers": {"x": {"size": 1000, "live": (0, 2)},
                            "y": {"size": 1000, "live": (1, 3)}},
                "overlaps": [("x", "y", 0)]}
        p = build(spec)
        self.assertEqual(p.lower_bounds(), [1000])
        plan = usmp.plan(p, algorithm="first_fit")
        check_plan(self, spec, plan)
        self.assertEqual(plan.size, 1000)

    def test_targets_split_the_problem_into_parts(self):
        p = usmp.Problem()
        p.add_pool("npu_sram", 1 << 18, 16, targets=["ethos-u55"])
        p.add_pool("dtcm", 1 << 16, 8, targets=["cortex-m55"])
        for i in range(4):
            p.add_buffer("n%d" % i, 1000, live=(i, i + 2), pools=["npu_sram"])
            p.add_buffer("c%d" % i, 500, live=(i, i + 2), pools=["dtcm"])
        r = usmp.Registry()
        r.bind("ethos-u*", "best_fit")
        r.bind("*", "first_fit", {"order": "lifetime"})
        plan = r.plan(p)
        parts = {part.target: part for part in plan.parts}
        self.assertEqual(set(parts), {"ethos-u55", "cortex-m55"})
        self.assertEqual(parts["ethos-u55"].algorithm, "best_fit")
        self.assertEqual(parts["cortex-m55"].algorithm, "first_fit")
        self.assertIn("order=lifetime", parts["cortex-m55"].params)
        self.assertEqual(parts["ethos-u55"].buffer_count, 4)
        for part in plan.parts:
            self.assertGreaterEqual(part.size, part.lower_bound)

    def test_plan_written_to_json_reads_back_and_verifies(self):
        spec = random_spec(7, n=20)
        p = build(spec)
        plan = usmp.plan(p, algorithm="best_fit")
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "plan.json")
            doc = write_plan(plan, path)
            again = usmp.Plan.read(p, path)
        again.verify()
        self.assertEqual(again.placements, plan.placements)
        self.assertEqual(len(doc["buffers"]), 20)

    def test_tampered_plan_fails_verification(self):
        p = build(LEFT_RIGHT)
        plan = usmp.plan(p, algorithm="first_fit")
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "plan.json")
            doc = write_plan(plan, path)
            for b in doc["buffers"]:
                b["offset"] = 8 if b["name"] == "right" else 0
            write_json(path, doc)
            try:
                bad = usmp.Plan.read(p, path)
            except usmp.InvalidPlanError as e:  # refused at read time
                self.assertIn("left", e.message)
                return
        with self.assertRaises(usmp.InvalidPlanError) as cm:
            bad.verify()
        self.assertIn("left", cm.exception.message)
        self.assertIn("right", cm.exception.message)

    def test_a_plan_files_claims_are_the_librarys(self):
        # docs/formats.md, "What a plan file claims"
        p = build(LEFT_RIGHT)
        plan = usmp.plan(p, algorithm="first_fit")
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "plan.json")
            doc = write_plan(plan, path)
            for b in doc["buffers"]:  # 48 bytes, 16 above the bound
                b["offset"] = 32 if b["name"] == "right" else 0
            doc["pools"][0]["size"] = 48
            doc["parts"][0].update(size=48, proven_bound=48, optimal=True)
            write_json(path, doc)
            kept = usmp.Plan.read(p, path)
            doc["parts"][0].update(proven_bound=64)
            write_json(path, doc)
            false = usmp.Plan.read(p, path)
        kept.verify()  # a claim it cannot check: dropped
        self.assertFalse(kept.parts[0].optimal)
        self.assertEqual(kept.parts[0].proven_bound, 32)
        self.assertEqual(kept.parts[0].size, 48)
        with self.assertRaises(usmp.InvalidPlanError) as cm:
            false.verify()
        self.assertIn("parts[0].proven_bound: 64", cm.exception.message)

    def test_mobilenet_example_plans_near_its_bound(self):
        path = os.path.join(EXAMPLES, "mobilenet_v2.json")
        self.assertTrue(os.path.isfile(path), "%s is missing" % path)
        p = usmp.Problem.read(path)
        plan = usmp.plan(p, algorithm="best_fit:order=all")
        plan.verify()
        total_bound = sum(part.lower_bound for part in plan.parts)
        self.assertGreaterEqual(plan.size, total_bound)
        self.assertLess(plan.size, 2 * total_bound)


class CancelTest(unittest.TestCase):
    CSV = os.path.join(MINIMALLOC, "A.1048576.csv")

    def test_cancel_set_before_planning_stops_exact_search(self):
        self.assertTrue(os.path.isfile(self.CSV), "%s is missing" % self.CSV)
        p = usmp.Problem.read(self.CSV, capacity=1048576)
        flag = usmp.Cancel()
        flag.set()
        self.assertTrue(flag.is_set())
        try:
            plan = usmp.plan(p, algorithm="exact", time_limit=60, cancel=flag)
        except usmp.StoppedError as e:
            self.assertIn("stopped", e.message)
        else:  # an anytime algorithm may hand back what it had
            plan.verify()
            self.assertLessEqual(plan.pool_sizes["default"], 1048576)

    def test_cleared_flag_does_not_stop_planning(self):
        flag = usmp.Cancel()
        flag.set()
        flag.clear()
        spec = random_spec(5, n=30)
        plan = usmp.plan(build(spec), algorithm="best_fit", cancel=flag)
        check_plan(self, spec, plan)


class RegistryTest(unittest.TestCase):
    def setUp(self):
        self.r = usmp.Registry()

    def test_lists_builtin_auto_and_plugin_algorithms(self):
        algos = {a.name: a for a in self.r.algorithms}
        self.assertIn("auto", algos)
        self.assertIsNone(algos["auto"].plugin)
        self.assertIn("first_fit", algos, self.r.diagnostics)
        ff = algos["first_fit"]
        self.assertEqual(ff.plugin, "fit")
        self.assertIn("explicit_conflicts", ff.capabilities)
        order = [k for k in ff.params if k.name == "order"]
        self.assertEqual(len(order), 1)
        self.assertEqual(order[0].type, "str")
        self.assertTrue(order[0].help)
        self.assertTrue(any(pl.name == "fit" and pl.path.endswith("fit.so")
                            for pl in self.r.plugins))

    def test_hill_climb_knobs_carry_types_and_defaults(self):
        hc = self.r.algorithm("hill_climb")
        knobs = {k.name: k for k in hc.params}
        self.assertEqual(knobs["seed"].type, "u64")
        self.assertEqual(knobs["attempts"].type, "u32")
        self.assertEqual(knobs["attempts"].default, "500")

    def test_select_reports_the_rule_and_its_source(self):
        self.r.bind("ethos-u*", "best_fit", {"order": "area"})
        sel = self.r.select("ethos-u55")
        self.assertEqual(sel.algorithm, "best_fit")
        self.assertEqual(sel.source, "api")
        self.assertIn("ethos-u*", sel.rule)
        self.assertIn("order=area", sel.params)
        self.r.clear_bindings()
        self.assertNotEqual(self.r.select("ethos-u55").source, "api")

    def test_bind_rules_parses_the_env_syntax(self):
        self.r.bind_rules("npu*=first_fit:order=size;*=best_fit")
        self.assertEqual(self.r.select("npu0").algorithm, "first_fit")
        self.assertEqual(self.r.select("cpu").algorithm, "best_fit")

    def test_binding_an_unknown_knob_is_refused(self):
        with self.assertRaises(usmp.UsmpError) as cm:
            self.r.bind("*", "first_fit", {"nope": 1})
        self.assertIn("nope", cm.exception.message)

    def test_registry_without_default_dirs_has_only_builtins(self):
        r = usmp.Registry(use_env=False, default_dirs=False)
        self.assertEqual([a.plugin for a in r.algorithms
                          if a.plugin is not None], [])
        self.assertIn("auto", [a.name for a in r.algorithms])


class TvmHookTest(unittest.TestCase):
    def make(self, seed, n=40, sram_hint=-1, sram_only_every=3):
        rng = random.Random(seed)
        sram = tvm_hook.PoolInfo("sram", size_hint_bytes=sram_hint)
        dram = tvm_hook.PoolInfo("dram")
        bufs = [tvm_hook.BufferInfo("b%d" % i, rng.choice([64, 512, 3000]),
                                    [sram] if i % sram_only_every == 0
                                    else [sram, dram],
                                    alignment=rng.choice([1, 16]))
                for i in range(n)]
        # Liveness as TVM would derive it: random intervals, as a graph.
        spans = [(s, s + rng.randrange(1, 6))
                 for s in (rng.randrange(30) for _ in bufs)]
        for i, a in enumerate(bufs):
            a.set_conflicts(bufs[j] for j in range(n) if j != i and
                            spans[i][0] < spans[j][1] and
                            spans[j][0] < spans[i][1])
        return bufs, sram, dram

    def check(self, bufs, result):
        self.assertEqual(set(result), set(bufs))
        for b in bufs:
            alloc = result[b]
            self.assertIsInstance(alloc, tvm_hook.PoolAllocation)
            self.assertIn(alloc.pool_info, b.pool_candidates)
            self.assertEqual(alloc.byte_offset % b.alignment, 0)
            hint = alloc.pool_info.size_hint_bytes
            if hint != -1:
                self.assertLessEqual(alloc.byte_offset + b.size_bytes, hint)
            for c in b.conflicts:
                other = result[c]
                if other.pool_info is not alloc.pool_info:
                    continue
                self.assertTrue(
                    alloc.byte_offset + b.size_bytes <= other.byte_offset or
                    other.byte_offset + c.size_bytes <= alloc.byte_offset,
                    "%s and %s overlap" % (b.name_hint, c.name_hint))

    def test_hook_returns_valid_allocations(self):
        for algo in ("first_fit", "best_fit", "greedy_by_conflicts", None):
            with self.subTest(algorithm=algo):
                bufs, _, _ = self.make(11)
                self.check(bufs, tvm_hook.usmp_algorithm(bufs, 0,
                                                         algorithm=algo))

    def test_hook_spills_past_a_size_hint(self):
        bufs, sram, dram = self.make(12, sram_hint=8192,
                                     sram_only_every=1000)
        result = tvm_hook.usmp_algorithm(bufs, algorithm="first_fit")
        self.check(bufs, result)
        self.assertTrue(any(a.pool_info is dram for a in result.values()))

    def test_hook_raises_when_nothing_fits(self):
        sram = tvm_hook.PoolInfo("sram", size_hint_bytes=100)
        a = tvm_hook.BufferInfo("a", 80, [sram])
        b = tvm_hook.BufferInfo("b", 80, [sram])
        a.set_conflicts([b])
        b.set_conflicts([a])
        with self.assertRaises(usmp.InfeasibleError):
            tvm_hook.usmp_algorithm([a, b], algorithm="first_fit")

    def test_hook_refuses_a_conflict_with_an_unknown_buffer(self):
        sram = tvm_hook.PoolInfo("sram")
        a = tvm_hook.BufferInfo("a", 8, [sram])
        stray = tvm_hook.BufferInfo("stray", 8, [sram])
        a.set_conflicts([stray])
        with self.assertRaises(usmp.InvalidError) as cm:
            tvm_hook.usmp_algorithm([a])
        self.assertIn("stray", cm.exception.message)


if __name__ == "__main__":
    unittest.main()
