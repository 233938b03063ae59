#!/usr/bin/env bash
# Runs on the GPU machine's 16 cores (through `device`, carrying .deps/device): the OpenMP backend
# with fem's barrier spin count (GOMP_SPINCOUNT=1000, what fem sets when neither GOMP_SPINCOUNT
# nor OMP_WAIT_POLICY is, apps/fem/openmp_waiting.hpp) against libgomp's default (300000), on
# the quickstart's case and on a 162,000-element tet4 cube, two runs each, back to back. Builds
# without CUDA, Kokkos and VTK. Logs go to $OUT (or ./gpu-out).
set -uo pipefail
build=${FEM_COMPARE_BUILD:-build-cpu}
cd "$(dirname "$0")/../.."
source scripts/device/build-lib.sh
start=$SECONDS
device_build -DFEM_WITH_CUDA=OFF -DFEM_BUILD_TESTS=OFF
echo "== built in $((SECONDS - start)) s; $(nproc) cores"
for spec in "quickstart:" "tet4-162k:--set mesh.divisions=30 --set mesh.cells=tet4 --set blocks.0.element=tet4 --end-time 0.05"; do
  name=${spec%%:*}
  for repeat in 1 2; do
    for spin in fem 300000; do
      env=(); [ "$spin" = fem ] || env=(GOMP_SPINCOUNT=$spin)
      t0=$(date +%s.%N)
      # shellcheck disable=SC2086
      env "${env[@]}" $build/bin/fem run cases/cube_compression.yaml -q --backend openmp \
        --set output.vtk=false ${spec#*:} --output $build/run > "$out/run-$name-$spin-$repeat.log" 2>&1
      t1=$(date +%s.%N)
      rate=$(grep -oE "throughput: [0-9.e+]+" "$out/run-$name-$spin-$repeat.log" | awk '{print $2}')
      printf '%-10s spin %-7s run %s: %6.2f s wall, %s element-steps/s\n' "$name" "$spin" "$repeat" \
        "$(awk "BEGIN {print $t1 - $t0}")" "${rate:-FAILED}"
    done
  done
done | tee "$out/waiting.txt"
echo "== total $((SECONDS - start)) s"
