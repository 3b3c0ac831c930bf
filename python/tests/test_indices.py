"""How the binding refuses a negative pool or buffer index, and a live range
or fixed placement of the wrong length."""
import unittest

import usmp


def small():
    p = usmp.Problem()
    p.add_pool("sram", size_limit=1024)
    p.add_buffer("a", 16, live=(0, 2))
    return p


class Indices(unittest.TestCase):
    def test_a_negative_index_says_python_indexing_is_not_taken(self):
        p = small()
        for f in (lambda: p.buffer_info(-1), lambda: p.set_live(-1, 0, 1),
                  lambda: p.pool_info(-2)):
            with self.assertRaisesRegex(usmp.InvalidError,
                                        r"^(buffer|pool) index out of range: "
                                        r"-[12] \(indices count from 0; "
                                        r"negative ones are not taken\)$"):
                f()
        # nothing was changed by the refused call
        self.assertEqual(p.buffer_info(0).live, (0, 2))

    def test_a_pair_of_the_wrong_length_is_a_value_error(self):
        p = small()
        with self.assertRaisesRegex(usmp.InvalidError,
                                    r"^live: expected 2 values \(begin, end\), "
                                    r"got 3: \(0, 1, 2\)$") as cm:
            p.add_buffer("b", 16, live=(0, 1, 2))
        self.assertIsInstance(cm.exception, ValueError)
        with self.assertRaisesRegex(usmp.InvalidError, r"^fixed: expected 2 "
                                    r"values \(pool, offset\), got 1"):
            p.add_buffer("b", 16, fixed=("sram",))
        # a value that is no sequence stays a TypeError
        with self.assertRaisesRegex(TypeError, r"^live: expected \(begin, end\), "
                                    r"got 5$"):
            p.add_buffer("b", 16, live=5)
        with self.assertRaises(TypeError):
            p.add_buffer("b", 16, live="02")
        self.assertEqual(p.buffers, ["a"])


if __name__ == "__main__":
    unittest.main()
