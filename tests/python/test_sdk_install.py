"""The module installed with the SDK (`cmake --install`) works from a moved prefix: it finds libfem
through its RPATH and libfem the plugins beside itself."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import support

BINARY_DIR = os.environ.get("FEM_BINARY_DIR", "")
CMAKE = os.environ.get("CMAKE_COMMAND", "cmake")


class SdkInstall(unittest.TestCase):
    @unittest.skipUnless(BINARY_DIR, "FEM_BINARY_DIR is not set (ctest sets it)")
    def test_import_from_a_moved_prefix(self):
        with tempfile.TemporaryDirectory() as tmp:
            first, moved = os.path.join(tmp, "first"), os.path.join(tmp, "moved")
            p = subprocess.run([CMAKE, "--install", BINARY_DIR, "--prefix", first],
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stdout[-2000:] + p.stderr[-2000:])
            shutil.move(first, moved)
            packages = [os.path.join(root) for root, dirs, _ in os.walk(moved)
                        if "fem" in dirs and os.path.exists(os.path.join(root, "fem",
                                                                         "__init__.py"))]
            self.assertEqual(len(packages), 1, packages)
            env = dict(os.environ, PYTHONPATH=packages[0])
            check = ("import fem, sys\n"
                     "assert fem.__file__.startswith(sys.argv[2]), fem.__file__\n"
                     "r = fem.run(sys.argv[1], set={'mesh.divisions': 2, "
                     "'solver.end_time': 0.1})\n"
                     "print(r.displacement.shape[1:], r.summary['status'])\n")
            p = subprocess.run([sys.executable, "-c", check, support.CUBE, moved],
                               capture_output=True, text=True, env=env, cwd=tmp)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            self.assertIn("(27, 3) completed", p.stdout)


if __name__ == "__main__":
    unittest.main()
