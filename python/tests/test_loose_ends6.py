"""Loose ends 6 through the binding: errors and diagnostics about the
plugin path say Registry(plugin_path=...), the argument the caller passed,
not the C option the library names."""
import os
import tempfile
import unittest

import usmp


class LooseEnds6(unittest.TestCase):
    def test_plugin_path_messages_name_the_argument(self):
        with tempfile.TemporaryDirectory() as d:
            missing = os.path.join(d, "no-such-dir")
            r = usmp.Registry(plugin_path=missing, use_env=False)
            p = usmp.Problem()
            p.add_pool("sram")
            p.add_buffer("x", 16, live=(0, 2))
            with self.assertRaises(usmp.NotFoundError) as cm:
                r.plan(p, algorithm="acme_lf")
            msg = cm.exception.message
            self.assertIn("(Registry(plugin_path=...))", msg)
            self.assertIn("entries of Registry(plugin_path=...) that gave "
                          "no plugin: %s: plugin directory not found" % missing,
                          msg)
            self.assertNotIn("usmp_registry_options", msg)
            self.assertEqual(str(cm.exception), msg)
            # select and bind report through the registry's own message
            with self.assertRaises(usmp.NotFoundError) as cm:
                r.select("npu", "acme_lf")
            self.assertIn("entries of Registry(plugin_path=...)",
                          cm.exception.message)
            self.assertNotIn("usmp_registry_options", cm.exception.message)
            with self.assertRaises(usmp.NotFoundError) as cm:
                r.bind("npu*", "acme_lf")
            self.assertNotIn("usmp_registry_options", cm.exception.message)
            # the registry's diagnostics say it as well
            self.assertEqual(r.diagnostics,
                             ["%s: plugin directory not found (an entry of "
                              "Registry(plugin_path=...))" % missing])
            r.close()


if __name__ == "__main__":
    unittest.main()
