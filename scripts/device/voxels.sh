#!/usr/bin/env bash
# Runs on the GPU machine (through `device`, carrying .deps/device from scripts/device/pack-deps.sh):
# builds fem with the CUDA and OpenMP backends (no VTK or Kokkos) in build-voxels-gpu, then
#  - the co-rotational solver's tests (tests/voxel: the CUDA backend against OpenMP included),
#  - the seed's series on cubes of voxels (cases/seed004/cube.yaml at SIZES voxels a side,
#    default "23 32 45 64 126": 12 k, 33 k, 91 k, 262 k, 2 M voxels; the seed's bunny has 11,900
#    to 269,000), STEPS steps each (default 40), 2 V-cycles a step, no output and no residual
#    measurement, on CUDA in single and double and on OpenMP (all cores, single, 10 steps, up
#    to 64^3; OPENMP= skips):
#    steps per second and the effective bandwidth by the seed's byte count (Table 3: 28,000 bytes
#    per element and step in single, 54,000 in double),
#  - the copy bandwidth of the GPU (scripts/device/copy_bandwidth.cu) to compare with.
# PROFILE=1 times every verb (fem run --time-verbs: a wait after each, so steps/s drop);
# NO_TESTS=1 skips the tests; EXTRA adds options to each `fem run` (e.g.
# "--set solver.multigrid.coarsest_vertices=64").
# Logs go to $OUT (or ./gpu-out).
#   SIZES="64 126 252" bash scripts/device/voxels.sh
set -uo pipefail
source "$(dirname "$0")/voxels-build.sh"
stamp() { echo "== $(date -u +%H:%M:%S) $*"; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"
echo "cpu cores: $(nproc), $(date -u +%Y-%m-%d)"
stamp build  # incremental on a machine still warm from the last call
voxel_build fem_tests_voxel || exit 1
fem=$build/bin/fem
if [ -z "${NO_TESTS:-}" ]; then
  stamp "voxel tests"
  OMP_NUM_THREADS=$(nproc) timeout 300 $build/bin/fem_tests_voxel > "$out/voxel-tests.log" 2>&1
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED  \]|Failure" "$out/voxel-tests.log" | head -30
  echo "$(grep -c "OK \]" "$out/voxel-tests.log") tests ran and passed"
fi
nvcc -O3 -arch=sm_90 scripts/device/copy_bandwidth.cu -o $build/copy_bandwidth 2> /dev/null &&
  $build/copy_bandwidth | tee "$out/copy-bandwidth.txt"

steps=${STEPS:-40}
run() {  # backend precision n [steps]
  local backend=$1 precision=$2 n=$3 steps=${4:-$steps}
  local log="$out/voxels-$backend-$precision-$n.log"
  local size
  size=$(awk -v n="$n" 'BEGIN { printf "%.6g", n * 0.0028 }')
  OMP_NUM_THREADS=$(nproc) timeout 560 $fem run cases/seed004/cube.yaml --set backend="$backend" \
    --set precision="$precision" --set "mesh.divisions=[$n,$n,$n]" \
    --set "mesh.size=[$size,$size,$size]" --set "node_sets.top.plane.point=[0,0,$size]" \
    --set output.vtk=false ${PROFILE:+--time-verbs} ${EXTRA:-} \
    --set solver.multigrid.residual_every=0 \
    --set solver.end_time="$(awk -v s="$steps" 'BEGIN { print s * 0.05 }')" > "$log" 2>&1
  local status=$?
  local rate setup bytes
  rate=$(grep -oE "\([0-9.e+]+ steps/s\)" "$log" | tr -d '(' | cut -d' ' -f1)
  setup=$(grep -oE "setup [0-9.]+ s" "$log" | head -1 | cut -d' ' -f2)
  bytes=28000
  [ "$precision" = double ] && bytes=54000
  awk -v b="$backend" -v p="$precision" -v n="$n" -v r="${rate:-0}" -v s="${setup:-?}" -v by=$bytes -v st=$status \
    'BEGIN { e = n * n * n; printf "%-6s %-6s %4d^3 = %9d voxels  exit %d  setup %s s  %8.2f steps/s  %7.1f GB/s (seed bytes)\n", b, p, n, e, st, s, r, r * e * by / 1e9 }' |
    tee -a "$out/voxels-bench.txt"
  [ $status -ne 0 ] && tail -5 "$log"
  grep "verbs (s)" "$log" | tee -a "$out/voxels-bench.txt"
}
for n in ${SIZES:-23 32 45 64 126}; do
  for p in single double; do run cuda $p "$n"; done
  [ -n "${OPENMP-1}" ] && [ "$n" -le 64 ] && run openmp single "$n" 10
done
exit 0
