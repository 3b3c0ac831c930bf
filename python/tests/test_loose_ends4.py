"""Loose ends 4 through the binding: a buffer's size takes the byte counts
a pool's size_limit and a CSV capacity take ("16K", "1MiB"); a plan read
from a file says so in Part.source."""
import os
import tempfile
import unittest

import usmp


class LooseEnds4(unittest.TestCase):
    def test_buffer_size_takes_byte_counts_like_size_limit(self):
        p = usmp.Problem()
        p.add_pool("sram", size_limit="256K")
        for i, (text, value) in enumerate((("16K", 16384), ("16KiB", 16384),
                                           ("1M", 1 << 20), ("1MB", 1 << 20),
                                           ("100", 100), (4096, 4096))):
            b = p.add_buffer("b%d" % i, text, live=(i, i + 1))
            self.assertEqual(p.buffer_info(b).size, value, text)
        n = p.buffer_count
        for bad in ("16 K", "-1", "1.5K", "16T", ""):
            with self.assertRaises(usmp.InvalidError, msg=bad) as cm:
                p.add_buffer("bad", bad)
            self.assertIn("size: %r is not a byte count" % bad,
                          cm.exception.message)
        # a refused size adds nothing, like a bad live range
        self.assertEqual(p.buffer_count, n)
        with self.assertRaises(TypeError):
            p.add_buffer("bad", 1.5)
        with self.assertRaises(TypeError):  # alignment stays an int, as a pool's
            p.add_buffer("bad", 16, alignment="16")

    def test_a_read_plans_parts_have_source_file(self):
        p = usmp.Problem()
        p.add_pool("sram")
        p.add_buffer("x", 16, live=(0, 2))
        p.add_buffer("y", 8, live=(1, 3))
        with tempfile.TemporaryDirectory() as d:
            for fmt in ("json", "csv"):
                path = os.path.join(d, "plan." + fmt)
                made = usmp.plan(p, algorithm="best_fit")
                self.assertEqual(made.parts[0].source, "options")
                made.write(path, fmt)
                back = usmp.Plan.read(p, path)
                self.assertEqual(len(back.parts), 1, fmt)
                part = back.parts[0]
                self.assertEqual((part.source, part.rule), ("file", ""), fmt)
                self.assertEqual((part.size, part.lower_bound),
                                 (24, 24), fmt)


if __name__ == "__main__":
    unittest.main()
