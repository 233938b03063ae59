#!/usr/bin/env bash
# Runs on the GPU machine (carrying .deps/device and .deps/kokkos-cuda, see kokkos-check.sh):
# builds fem with the CUDA backend and the Kokkos backend on a CUDA-enabled Kokkos 4 (no VTK),
# then the co-rotational voxel solver on Kokkos' Cuda space:
#  - tests/voxel (its backend test runs kokkos and cuda against openmp),
#  - cases/seed004/cube.yaml at SIZES voxels a side (default "64 126") on kokkos and cuda, single
#    and double, STEPS steps (default 40): steps per second, side by side.
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
if [ ! -f $build/CMakeCache.txt ]; then
  stamp configure
  cmake -S . -B $build -G "$generator" -DCMAKE_BUILD_TYPE=Release -DFEM_WITH_VTK=OFF \
    -DFEM_WITH_CUDA=ON -DFEM_WITH_KOKKOS=ON -DCMAKE_PREFIX_PATH="$deps;$kokkos" \
    > "$out/configure.log" 2>&1 || { tail -40 "$out/configure.log"; exit 1; }
  grep "fem: Kokkos" "$out/configure.log"
fi
stamp build
cmake --build $build -j "$(nproc)" --target fem_tests_voxel > "$out/build.log" 2>&1 ||
  { grep -E "error|Error" "$out/build.log" | head -40; exit 1; }
stamp "voxel tests"
timeout 300 $build/bin/fem_tests_voxel > "$out/voxel-tests.log" 2>&1
grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED  \]|Failure|Backends" "$out/voxel-tests.log" | head -20
steps=${STEPS:-40}
for n in ${SIZES:-64 126}; do
  size=$(awk -v n="$n" 'BEGIN { printf "%.6g", n * 0.0028 }')
  for p in single double; do
    for b in kokkos cuda; do
      log="$out/voxels-$b-$p-$n.log"
      timeout 300 $build/bin/fem run cases/seed004/cube.yaml --set backend=$b --set precision=$p \
        --set "mesh.divisions=[$n,$n,$n]" --set "mesh.size=[$size,$size,$size]" \
        --set "node_sets.top.plane.point=[0,0,$size]" --set output.vtk=false \
        --set solver.multigrid.residual_every=0 \
        --set solver.end_time="$(awk -v s="$steps" 'BEGIN { print s * 0.05 }')" > "$log" 2>&1
      printf '%-6s %-6s %4d^3  exit %d  %s steps/s\n' $b $p "$n" $? \
        "$(grep -oE '\([0-9.e+]+ steps/s\)' "$log" | tr -d '(' | cut -d' ' -f1)"
    done
  done
done
stamp done
