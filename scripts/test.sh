#!/usr/bin/env bash
# The second README command: build everything (warnings are errors) and run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-dependencies.sh
build_dir=${FEM_BUILD_DIR:-build-test}
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DFEM_WARNINGS_AS_ERRORS=ON
cmake --build "$build_dir"
ctest --test-dir "$build_dir" --output-on-failure -j "$(nproc)"
# Say why GPU tests were skipped (ctest itself prints only "Skipped").
if ctest --test-dir "$build_dir" -L gpu 2>&1 | grep -q "Skipped"; then
  reason=$(ctest --test-dir "$build_dir" -L gpu -V 2>&1 | grep -m1 -E "no CUDA backend here|built without the CUDA backend" | sed 's/^[0-9]*: //')
  echo "GPU tests skipped on this machine: ${reason:-see ctest -L gpu -V}"
fi
