#!/usr/bin/env bash
# Runs on the GPU machine (through `device`, carrying .deps/device from scripts/device/pack-deps.sh):
# builds fem with the CUDA backend, without VTK or Kokkos, then
#  - the GPU tests of the elastodynamic verbs (tests/gpu/test_cuda_waves.cpp): block_matrix in
#    sliced ELL, wave_step, wave_source and gather against the OpenMP reference in single and
#    double precision, a recorded (CUDA graph) pair of steps against the same verbs run one by
#    one, and the step's effective bandwidth against a device-to-device copy,
#  - that bandwidth again with the matrix read by streaming loads (FEM_CUDA_WAVE_LOADS=stream,
#    backends/cuda/src/tuning.hpp) instead of the read-only path,
#  - the copy bandwidth on its own (scripts/device/copy_bandwidth.cu),
# and prints a summary. Logs go to $OUT (or ./gpu-out).
#   bash scripts/device/wave-check.sh
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
out=${OUT:-gpu-out}
mkdir -p "$out"
deps=$PWD/.deps/device
export LD_LIBRARY_PATH=$deps/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
stamp() { echo "== $(date -u +%H:%M:%S) $*"; }
summary=()
result() {  # name exit-status log: one summary line
  if [ "$2" -eq 0 ]; then summary+=("PASS  $1"); else summary+=("FAIL  $1 (exit $2, $3)"); fi
}

{ git log -1 --format='commit %h %s' 2>/dev/null || echo "commit: not a git checkout"; } | tee "$out/commit.txt"
git status --short 2>/dev/null | head -40 > "$out/worktree.txt"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"
echo "cpu cores: $(nproc), $(date -u +%Y-%m-%d)"
build="build-waves-gpu"
generator="Unix Makefiles"
command -v ninja > /dev/null && generator=Ninja
stamp configure
cmake -S . -B $build -G "$generator" -DCMAKE_BUILD_TYPE=Release -DFEM_WITH_VTK=OFF \
  -DFEM_WITH_KOKKOS=OFF -DFEM_WITH_CUDA=ON -DCMAKE_PREFIX_PATH="$deps" > "$out/configure.log" 2>&1 ||
  { tail -40 "$out/configure.log"; exit 1; }
stamp build
# fem_tests_gpu depends on the command line program and every plugin (backends, elements,
# materials): the OpenMP reference is loaded as a plugin too.
cmake --build $build -j 16 --target fem_tests_gpu > "$out/build.log" 2>&1 ||
  { grep -E "error|Error" "$out/build.log" | head -40; exit 1; }
bin=$build/bin

stamp "GPU tests of the wave verbs (cuda vs openmp, recorded steps, bandwidth)"
# FEM_CUDA_WAVE_REPORT: block_matrix() says how it stored each matrix (slices, padding, bytes).
FEM_CUDA_WAVE_REPORT=1 timeout 400 $bin/fem_tests_gpu --gtest_filter='*Wave*' \
  > "$out/gpu-waves.log" 2>&1
status=$?
grep -E "vs openmp, waves|cuda waves, bandwidth|cuda wave matrix|^\[  (PASSED|FAILED|SKIPPED) |FAILED  \]|Failure|Expected|Which is" \
  "$out/gpu-waves.log" | head -80
if grep -q "^\[  SKIPPED \]" "$out/gpu-waves.log"; then
  echo "tests were skipped (no GPU or no CUDA backend?): see $out/gpu-waves.log"
  [ $status -eq 0 ] && status=3
fi
result "fem_tests_gpu --gtest_filter='*Wave*'" $status gpu-waves.log

stamp "the step's bandwidth with streaming matrix loads (FEM_CUDA_WAVE_LOADS=stream)"
FEM_CUDA_WAVE_LOADS=stream FEM_CUDA_WAVE_REPORT=1 timeout 200 $bin/fem_tests_gpu \
  --gtest_filter='*CudaWaveVerbs.StepBandwidth*' > "$out/gpu-waves-stream.log" 2>&1
status=$?
grep -E "cuda waves, bandwidth|FAILED  \]|Failure" "$out/gpu-waves-stream.log"
result "bandwidth with streaming loads" $status gpu-waves-stream.log

stamp "device-to-device copy bandwidth"
nvcc -O2 -arch=sm_90 -o $build/copy_bandwidth scripts/device/copy_bandwidth.cu > "$out/copy-bandwidth.log" 2>&1 &&
  $build/copy_bandwidth | tee -a "$out/copy-bandwidth.log"
result "copy bandwidth" $? copy-bandwidth.log

stamp summary
printf '%s\n' "${summary[@]}" | tee "$out/summary.txt"
printf '%s\n' "${summary[@]}" | grep -q '^FAIL' && exit 1
exit 0
