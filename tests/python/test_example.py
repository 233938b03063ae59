"""docs/examples/cube_from_python.py runs and prints what it says."""

import os
import subprocess
import sys
import unittest

import support


class Example(unittest.TestCase):
    def test_cube_from_python(self):
        script = os.path.join(support.SOURCE_DIR, "docs", "examples", "cube_from_python.py")
        p = subprocess.run([sys.executable, script, "--divisions", "3", "--end-time", "0.3"],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = p.stdout.splitlines()
        self.assertTrue(lines[0].startswith("cube_compression: 64 nodes, 27 elements"), lines)
        forces = [abs(float(line.split(" with ")[1].split(" N")[0])) for line in lines
                  if line.startswith("E = ")]
        self.assertEqual(len(forces), 3)
        # A stiffer material needs more force for the same prescribed displacement.
        self.assertTrue(forces[0] < forces[1] < forces[2], forces)
        self.assertIn("unknown key 'safty_factor'", lines[-1])
        self.assertIn("exit code 2", lines[-1])


if __name__ == "__main__":
    unittest.main()
