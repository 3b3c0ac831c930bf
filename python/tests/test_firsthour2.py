"""The spill of each part (usmp_part_info's spill fields) through Part."""
import unittest

import usmp


class PartSpill(unittest.TestCase):
    def test_part_names_the_spill_its_largest_buffer_and_the_forced_bytes(self):
        p = usmp.Problem()
        p.add_pool("sram", 100)
        p.add_pool("dram")
        for name, size, live in (("a", 64, (0, 2)), ("b", 64, (0, 2)),
                                 ("c", 200, (1, 3)), ("d", 32, (2, 4))):
            p.add_buffer(name, size, live=live, pools=["sram", "dram"])
        part = usmp.Registry(use_env=False).plan(
            p, algorithm="first_fit").parts[0]
        self.assertEqual((part.spill, part.spill_count, part.spill_largest,
                          part.spill_forced), (264, 2, "c", 200))

    def test_no_spill_is_zero_and_none(self):
        p = usmp.Problem()
        p.add_pool("sram", 1024)
        p.add_buffer("a", 64, live=(0, 2), pools=["sram"])
        part = usmp.Registry(use_env=False).plan(p).parts[0]
        self.assertEqual((part.spill, part.spill_count, part.spill_largest,
                          part.spill_forced), (0, 0, None, 0))


if __name__ == "__main__":
    unittest.main()
