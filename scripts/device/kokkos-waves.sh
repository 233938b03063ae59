#!/usr/bin/env bash
# Runs on the GPU machine (carrying .deps/device and .deps/kokkos-cuda, see kokkos-check.sh):
# builds fem with the CUDA backend and the Kokkos backend on a CUDA-enabled Kokkos 4 (no VTK),
# then the elastodynamic solver on Kokkos' Cuda space:
#  - the CUDA wave verb tests (tests/gpu/test_cuda_waves.cpp, without the bandwidth one),
#  - the Kokkos wave tests (tests/kokkos/test_kokkos_waves.cpp: verbs and whole runs against the
#    OpenMP reference),
#  - fem bench of cases/wave_plane.yaml (plane strain, 1.44 M dofs) and cases/wave_block.yaml
#    (hexahedra, 1.14 M dofs) on openmp, kokkos and cuda: times a step and the backends'
#    agreement, single and double.
# Logs go to $OUT (or ./gpu-out).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
out=${OUT:-gpu-out}
mkdir -p "$out"
deps=$PWD/.deps/device
kokkos=$PWD/.deps/kokkos-cuda
export LD_LIBRARY_PATH=$deps/lib/x86_64-linux-gnu:$kokkos/lib:${LD_LIBRARY_PATH:-}
stamp() { echo "== $(date -u +%H:%M:%S) $*"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
build=build-kokkos
generator="Unix Makefiles"
command -v ninja > /dev/null && generator=Ninja
stamp configure
cmake -S . -B $build -G "$generator" -DCMAKE_BUILD_TYPE=Release -DFEM_WITH_VTK=OFF \
  -DFEM_WITH_CUDA=ON -DFEM_WITH_KOKKOS=ON -DCMAKE_PREFIX_PATH="$deps;$kokkos" \
  > "$out/configure.log" 2>&1 || { tail -40 "$out/configure.log"; exit 1; }
grep "fem: Kokkos" "$out/configure.log"
stamp build
cmake --build $build -j "$(nproc)" --target fem_cli fem_tests_kokkos fem_tests_gpu > "$out/build.log" 2>&1 ||
  { grep -E "error|Error" "$out/build.log" | head -40; exit 1; }
fem=$build/bin/fem
stamp "cuda wave verb tests"
timeout 200 $build/bin/fem_tests_gpu --gtest_filter='*Wave*:-*StepBandwidth*' > "$out/cuda-waves.log" 2>&1
grep -E "vs openmp, waves|^\[  (PASSED|FAILED|SKIPPED) |FAILED  \]|Failure" "$out/cuda-waves.log" | head -20
stamp "kokkos wave tests on the Cuda space"
timeout 300 $build/bin/fem_tests_kokkos --gtest_filter='*Wave*' > "$out/kokkos-waves.log" 2>&1
grep -E "kokkos vs openmp|^\[  (PASSED|FAILED|SKIPPED) |FAILED  \]|Failure" "$out/kokkos-waves.log" | head -30
for case_file in cases/wave_plane.yaml cases/wave_block.yaml; do
  stamp "fem bench $case_file"
  timeout 240 $fem bench "$case_file" --backends openmp,kokkos,cuda --steps 300 \
    --output "$out/bench-$(basename "$case_file" .yaml)" > "$out/bench-$(basename "$case_file" .yaml).log" 2>&1
  grep -vE "^info" "$out/bench-$(basename "$case_file" .yaml).log" | tail -10
done
stamp done
