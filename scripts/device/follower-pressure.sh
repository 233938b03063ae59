#!/usr/bin/env bash
# Follower pressures in explicit and relaxation runs on the CUDA backend (run on the GPU machine
# through `device`, carrying .deps/device):
#
#   bash scripts/device/follower-pressure.sh
#
# Builds fem with CUDA, runs the pressure tests and the relaxation suite on FEM_TEST_BACKEND=cuda,
# then times the compressed cube (cases/cube_compression.yaml held at its foot, a pressure on its
# top instead of the prescribed displacement) with the pressure dead and following, at 15^3 and
# 60^3 elements: the per-step price of setting the loads from the host (docs/performance.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${BUILD:-build-gpu}
source scripts/device/build-lib.sh
device_build -DFEM_WITH_CUDA=ON -DFEM_WITH_MPI=OFF -- fem fem_tests_implicit fem_tests_relax
status=0
FEM_TEST_BACKEND=cuda "$build/bin/fem_tests_implicit" --gtest_filter='PressureLoads.*' \
  > "$out/pressure-tests.log" 2>&1 || status=1
grep -E "^\[  (PASSED|FAILED) |FAILED  \]" "$out/pressure-tests.log"
FEM_TEST_BACKEND=cuda "$build/bin/fem_tests_relax" > "$out/relax-tests.log" 2>&1 || status=1
grep -E "^\[  (PASSED|FAILED) |FAILED  \]" "$out/relax-tests.log"
for follower in false true; do
  echo "== follower: $follower"
  "$build/bin/fem" bench cases/cube_compression.yaml --backends cuda --reference cuda \
    --precision single --sizes 15,60 --steps 400 --repeats 3 --no-plots \
    --output "$out/bench-$follower" --set 'boundary_conditions=[{set: bottom, fixed: all}]' \
    --set "loads=[{set: top, pressure: 300, follower: $follower, amplitude: loading}]" 2>&1 |
    grep -E "^(backend|cuda|size|fem bench)" || status=1
done
exit $status
