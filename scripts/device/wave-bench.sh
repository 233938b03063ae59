#!/usr/bin/env bash
# Runs on the GPU machine after scripts/device/wave-check.sh has built build-waves-gpu (or builds
# it): the elastodynamic solver on CASE (default cases/wave_block.yaml) at the sizes in SIZES
# (cells along x and y, and 25/120 of that along z, the case's proportions; for a plane case
# such as cases/wave_plane.yaml, n along x and n/2 along y), on CUDA in single and double precision
# and on OpenMP (all cores; OPENMP= skips it), without files, to STEPS_TIME of simulated time. Prints each run's dofs, time steps, dof updates/s and effective
# bandwidth (the bytes of docs/waves.md), and keeps the logs in $OUT.
# PRECISIONS (default "single double") picks the CUDA runs; EXTRA adds options to each `fem run`
# (e.g. "--set solver.node_ordering=rcm"), LABEL a suffix to the runs' names; scripts/device/host_bandwidth.cpp
# measures the host's bandwidth for the OpenMP ones.
#   SIZES="240 480" bash scripts/device/wave-bench.sh
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
out=${OUT:-gpu-out}
mkdir -p "$out"
deps=$PWD/.deps/device
export LD_LIBRARY_PATH=$deps/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
build="build-waves-gpu"
bash scripts/device/build-waves.sh "$out" || exit 1
fem=$build/bin/fem
steps_time=${STEPS_TIME:-1.0e-5}
case_file=${CASE:-cases/wave_block.yaml}
plane=
grep -q "generator: rectangle" "$case_file" && plane=1

run() {  # label backend precision nx nz threads
  local label=$1 backend=$2 precision=$3 nx=$4 nz=$5
  local log="$out/wave-$label.log" divisions="[$nx,$nx,$nz]"
  [ -n "$plane" ] && divisions="[$nx,$((nx / 2))]"
  SPDLOG_LEVEL=debug OMP_NUM_THREADS=${6:-16} timeout 560 $fem run "$case_file" --set backend="$backend" \
    --set precision="$precision" --set "mesh.divisions=$divisions" --set output.vtk=false \
    --set 'output.receivers=[]' --set solver.end_time="$steps_time" ${EXTRA:-} > "$log" 2>&1
  local status=$?
  local dofs steps rate bw setup
  dofs=$(grep -oE "dofs [0-9]+" "$log" | head -1 | cut -d' ' -f2)
  steps=$(grep -oE "^completed [0-9]+" "$log" | cut -d' ' -f2)
  rate=$(grep -oE "[0-9.e+]+ dof updates/s" "$log" | cut -d' ' -f1)
  bw=$(grep -oE "effective bandwidth [0-9.e+]+ GB/s" "$log" | cut -d' ' -f3)
  setup=$(grep -oE "setup [0-9.]+ s" "$log" | head -1 | cut -d' ' -f2)
  printf '%-28s exit %d  dofs %s  steps %s  setup %s s  %s dof/s  %s GB/s\n' "$label" $status \
    "$dofs" "$steps" "$setup" "$rate" "$bw" | tee -a "$out/wave-bench.txt"
  grep -E "elastodynamic setup" "$log" | sed 's/^/    /'
  [ $status -ne 0 ] && tail -5 "$log"
}

echo "$(nvidia-smi --query-gpu=name --format=csv,noheader), $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ)" |
  tee "$out/wave-bench.txt"
if [ -n "${OPENMP-1}" ]; then  # the host's STREAM-like bandwidth, for the OpenMP runs
  g++ -O3 -march=native -fopenmp scripts/device/host_bandwidth.cpp -o $build/host_bandwidth &&
    OMP_NUM_THREADS=$(nproc) OMP_PROC_BIND=spread $build/host_bandwidth | tee -a "$out/wave-bench.txt"
fi
PRECISIONS=${PRECISIONS:-single double}
for n in ${SIZES:-240}; do
  nz=$((n * 25 / 120))
  for p in $PRECISIONS; do run "cuda-$p-$n${LABEL:-}" cuda "$p" "$n" "$nz"; done
  [ -n "${OPENMP-1}" ] && run "openmp-single-$n${LABEL:-}" openmp single "$n" "$nz"
done
