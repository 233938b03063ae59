#!/usr/bin/env bash
# The second README command: build everything (warnings are errors) and run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each phase's wall time, so that a slow CI run says where its minutes went.
phase_start=$SECONDS
phase_done() {
  echo "[test.sh] $1: $((SECONDS - phase_start)) s (total $((SECONDS / 60)) min)"
  phase_start=$SECONDS
}
scripts/install-dependencies.sh
scripts/check-format.sh
phase_done "dependencies and format"
# The builds below compile mostly the same sources with the same flags in folders side by side:
# with ccache (installed above; CMakeLists.txt uses it) and paths taken relative to the checkout,
# the later builds find the first one's objects.
export CCACHE_BASEDIR=$PWD
build_dir=${FEM_BUILD_DIR:-build-test}
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DFEM_WARNINGS_AS_ERRORS=ON
cmake --build "$build_dir"
phase_done "build"
# pybind11-dev and NumPy are installed above, so the Python module (and its tests) must be there.
compgen -G "$build_dir/python/fem/_fem*.so" >/dev/null || {
  echo "the Python module was not built (see 'fem: Python module' in the configure output)" >&2
  exit 1
}
# CalculiX and hypre are installed above, so their tests must run here, not skip.
# (The Python module's tests, label python, run with the rest; pip install, label pip-install,
# builds fem once more and runs last, below.)
FEM_TEST_REQUIRE_CALCULIX=1 FEM_TEST_REQUIRE_HYPRE=1 ctest --test-dir "$build_dir" --output-on-failure -j "$(nproc)" -LE pip-install
phase_done "tests"
# Without MPI and METIS fem still builds and runs as one process (docs/parallel.md): the library,
# the program and the suites that touch the parallel code, built with -DFEM_WITH_MPI=OFF (and
# without Kokkos, which the build above covers).
cmake -S . -B "$build_dir-nompi" -G Ninja -DCMAKE_BUILD_TYPE=Release -DFEM_WARNINGS_AS_ERRORS=ON \
  -DFEM_WITH_MPI=OFF -DFEM_WITH_KOKKOS=OFF
cmake --build "$build_dir-nompi" --target fem_tests_parallel fem_tests_cli fem_tests_physics
ctest --test-dir "$build_dir-nompi" -L "parallel|cli|physics" --output-on-failure -j "$(nproc)"
phase_done "build and tests without MPI"
# The plugin SDK: install into a temporary prefix, move it, build plugins/ against it, run its
# tests and cases on every backend here. Kokkos is installed above, so openmp and kokkos must
# both run and agree.
FEM_TEST_REQUIRE_BACKENDS=kokkos scripts/test-plugins.sh "$build_dir"
phase_done "plugin SDK"
# The fuzzing harnesses (fuzz/, docs/fuzzing.md): built with clang, AddressSanitizer and
# UndefinedBehaviorSanitizer in build-fuzz, each run 6 s on its saved corpus (under a minute in
# all); a crash, sanitizer report, leak, hang or oversized allocation fails CI.
scripts/fuzz.sh
phase_done "fuzzing"
# `pip install --no-build-isolation .` into a throwaway virtual environment (docs/python.md).
ctest --test-dir "$build_dir" -L pip-install --output-on-failure
phase_done "pip install"
if command -v ccache >/dev/null; then
  ccache --show-stats | grep -iE "^ *(hits|misses|cacheable calls)" || true
fi
# Say why GPU tests were skipped (ctest itself prints only "Skipped").
gpu_log=$(ctest --test-dir "$build_dir" -L gpu -V 2>&1 || true)
if grep -q "Skipped" <<<"$gpu_log"; then
  reason=$(grep -E "no CUDA backend here|built without the CUDA backend" <<<"$gpu_log" | head -n 1 | sed 's/^[0-9]*: //' || true)
  echo "GPU tests skipped on this machine: ${reason:-see ctest -L gpu -V}"
fi
