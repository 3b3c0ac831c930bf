"""Python values at the binding's edge: a negative pool or buffer index, a
live range or fixed placement of the wrong length, a Decimal time limit."""
import decimal
import unittest

import usmp


def small():
    p = usmp.Problem()
    p.add_pool("sram", size_limit=1024)
    p.add_buffer("a", 16, live=(0, 2))
    return p


class PythonValues(unittest.TestCase):
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

    def test_a_decimal_time_limit_is_taken_as_seconds(self):
        p = small()
        with usmp.Registry(use_env=False) as r:
            with r.plan(p, algorithm="first_fit",
                        time_limit=decimal.Decimal("2.5")) as plan:
                self.assertEqual(plan.parts[0].time_limit, 2.5)
            with self.assertRaisesRegex(usmp.InvalidError,
                                        r"^time_limit=Decimal\('-1'\): give "
                                        r"seconds"):
                r.plan(p, time_limit=decimal.Decimal("-1"))
            with self.assertRaisesRegex(TypeError, r"^time_limit must be a "
                                        r"number of seconds, got '2'$"):
                r.plan(p, time_limit="2")


if __name__ == "__main__":
    unittest.main()
