"""Builds the Python module with CMake for `pip install --no-build-isolation .` (pyproject.toml).

The whole project is configured and built (tests left out), then installed with its prefix inside
the package, fem/_sdk (libfem, the plugins, the fem program, the SDK headers), and the module
fem/_fem beside the package's Python files; the module finds libfem through its RPATH and libfem
the plugins beside itself, so the installed package works wherever pip puts it.

Environment: FEM_CMAKE_ARGS (more CMake options, e.g. -DFEM_WITH_CUDA=OFF), FEM_PIP_BUILD_DIR (the
CMake build folder; default: build-pip/cmake in the source tree, kept between installs so that a
second install builds incrementally), CMAKE_BUILD_PARALLEL_LEVEL (build jobs).
"""

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

SOURCE = Path(__file__).resolve().parent
# setuptools' default build folder, build/, is where the README builds fem: keep out of it.
BUILD_BASE = SOURCE / "build-pip"


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        package_dir = Path(self.get_ext_fullpath(ext.name)).resolve().parent
        build_dir = Path(os.environ.get("FEM_PIP_BUILD_DIR", BUILD_BASE / "cmake")).resolve()
        configure = [
            "cmake", "-S", str(SOURCE), "-B", str(build_dir),
            "-DCMAKE_BUILD_TYPE=Release",
            "-DCMAKE_INSTALL_PREFIX=" + str(package_dir / "_sdk"),
            "-DCMAKE_INSTALL_LIBDIR=lib",
            "-DFEM_PYTHON_INSTALL_DIR=" + str(package_dir.parent),
            "-DPython3_EXECUTABLE=" + sys.executable,
            "-DFEM_WITH_PYTHON=ON",
            "-DFEM_BUILD_TESTS=OFF",
        ]
        if shutil.which("ninja") and not (build_dir / "CMakeCache.txt").exists():
            configure += ["-G", "Ninja"]
        configure += shlex.split(os.environ.get("FEM_CMAKE_ARGS", ""))
        subprocess.check_call(configure)
        subprocess.check_call(["cmake", "--build", str(build_dir)])
        subprocess.check_call(["cmake", "--install", str(build_dir)])


BUILD_BASE.mkdir(exist_ok=True)
setup(
    packages=["fem"],
    package_dir={"": "python"},
    ext_modules=[CMakeExtension("fem._fem")],
    cmdclass={"build_ext": CMakeBuild},
    options={"build": {"build_base": str(BUILD_BASE)},
             "egg_info": {"egg_base": str(BUILD_BASE)}},
    zip_safe=False,
)
