"""`pip install --no-build-isolation .` into a throwaway virtual environment (with the system's
site packages for NumPy, setuptools and wheel; nothing from the network), then the installed
module runs a case and the example script from outside the source tree. Slow: pip builds fem
(ctest label pip-install; FEM_PIP_BUILD_DIR keeps the CMake build between runs)."""

import os
import subprocess
import sys
import tempfile
import unittest

import support


class PipInstall(unittest.TestCase):
    def test_install_into_a_virtual_environment(self):
        with tempfile.TemporaryDirectory() as tmp:
            venv = os.path.join(tmp, "venv")
            subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", venv],
                           check=True)
            python = os.path.join(venv, "bin", "python")
            env = dict(os.environ)
            env.pop("PYTHONPATH", None)  # the build tree's package must not be the one found
            env.setdefault("FEM_CMAKE_ARGS", "-DFEM_WITH_CUDA=OFF -DFEM_WITH_KOKKOS=OFF")
            p = subprocess.run([python, "-m", "pip", "install", "--no-build-isolation",
                                "--no-index", "--no-deps", support.SOURCE_DIR],
                               capture_output=True, text=True, env=env, cwd=tmp)
            # The build's own errors are in the middle of pip's output: show them first.
            errors = [line for line in (p.stdout + p.stderr).splitlines()
                      if "error" in line.lower() or "FAILED" in line][:40]
            self.assertEqual(p.returncode, 0, "\n".join(errors) + "\n...\n" + p.stderr[-3000:])
            check = (
                "import fem, os, sys\n"
                "assert fem.__file__.startswith(sys.prefix), fem.__file__\n"
                "r = fem.run(sys.argv[1], set={'mesh.divisions': 3, 'solver.end_time': 0.2})\n"
                "assert r.displacement.shape[1:] == (64, 3), r.displacement.shape\n"
                "assert r.summary['status'] == 'completed'\n"
                "print('installed at', os.path.dirname(fem.__file__))\n")
            p = subprocess.run([python, "-c", check, support.CUBE], capture_output=True,
                               text=True, env=env, cwd=tmp)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            self.assertIn(venv, p.stdout)
            script = os.path.join(support.SOURCE_DIR, "docs", "examples", "cube_from_python.py")
            p = subprocess.run([python, script, "--divisions", "3", "--end-time", "0.2"],
                               capture_output=True, text=True, env=env, cwd=tmp)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            # The system's Python did not get fem.
            p = subprocess.run([sys.executable, "-c", "import fem"], capture_output=True,
                               text=True, env=env, cwd=tmp)
            self.assertNotEqual(p.returncode, 0)


if __name__ == "__main__":
    unittest.main()
