"""Part.overrun_by and overrun_cause: the member that made auto run over the
limit and why (usmp_part_info.overrun_by, overrun_cause), "" when none."""
import os
import unittest

import usmp

# 19 buffers whose first plan (48 bytes) is above the lower bound (41), so
# auto runs its volunteers (the same problem as tests/test_loose_ends.c).
CRAFTED = [("v06", 6, 12, 1), ("v08", 9, 11, 11), ("v00", 0, 2, 1),
           ("v15", 9, 11, 11), ("v11", 0, 6, 1), ("v13", 2, 6, 13),
           ("v04", 14, 20, 8), ("v09", 11, 12, 2), ("v10", 14, 16, 8),
           ("v01", 3, 5, 16), ("v12", 11, 15, 1), ("v18", 4, 10, 11),
           ("v14", 13, 16, 8), ("v07", 7, 9, 2), ("v05", 0, 1, 7),
           ("v17", 1, 4, 11), ("v16", 14, 15, 16), ("v03", 12, 14, 11),
           ("v02", 5, 12, 7)]


def crafted():
    p = usmp.Problem()
    p.add_pool("default")
    for name, lower, upper, size in CRAFTED:
        p.add_buffer(name, size, live=(lower, upper))
    return p


def build_dir():
    # run_tests.sh points USMP_LIBRARY at BUILD/src/libusmp.so.1
    lib = os.environ.get("USMP_LIBRARY", "")
    return os.path.dirname(os.path.dirname(lib)) if lib else ""


class Overrun(unittest.TestCase):
    def test_a_plan_on_time_names_no_one(self):
        part = usmp.Registry(use_env=False).plan(crafted(),
                                                 time_limit=5).parts[0]
        self.assertEqual(part.overrun_by, "")
        self.assertEqual(part.overrun_cause, "")

    def test_a_volunteer_killed_for_time_is_named(self):
        fixture = os.path.join(build_dir(), "tests", "plugins", "loose_ends",
                               "hang_volunteer.so")
        if not os.path.exists(fixture):
            self.skipTest("no fixture plugins in this build: " + fixture)
        shipped = os.path.join(build_dir(), "plugins")
        r = usmp.Registry(plugin_path=[shipped, fixture], use_env=False,
                          default_dirs=False)
        part = r.plan(crafted(), time_limit=0.1).parts[0]
        self.assertEqual(part.overrun_by, "le_hang")
        self.assertEqual(part.overrun_cause, "stopped")
        self.assertGreater(part.time_ms, 100.0)

    def test_a_member_returning_late_is_named(self):
        fixture = os.path.join(build_dir(), "tests", "plugins", "loose_ends2",
                               "late_volunteer.so")
        if not os.path.exists(fixture):
            self.skipTest("no fixture plugins in this build: " + fixture)
        shipped = os.path.join(build_dir(), "plugins")
        r = usmp.Registry(plugin_path=[shipped, fixture], use_env=False,
                          default_dirs=False)
        part = r.plan(crafted(), time_limit=0.2, isolate=False).parts[0]
        self.assertEqual(part.overrun_by, "le2_late")
        self.assertEqual(part.overrun_cause, "late")
        self.assertGreater(part.time_ms, 250.0)


if __name__ == "__main__":
    unittest.main()
