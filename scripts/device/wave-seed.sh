#!/usr/bin/env bash
# Runs on the GPU machine (building build-waves-gpu with scripts/device/build-waves.sh): writes
# seed 002's plane models (scripts/models/make.sh, python3) and runs them on CUDA without frames:
# the weld at the seed's size for its 40,000 steps in single and double precision, timed from
# the command line (mesh reading and setup included), then the gear and the geophysical model
# for WAVE_SEED_STEPS steps each in both precisions (throughput). Logs in $OUT.
#   bash scripts/device/wave-seed.sh
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
out=${OUT:-gpu-out}
mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/.deps/device/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
fem=build-waves-gpu/bin/fem
bash scripts/device/build-waves.sh "$out" || exit 1
command -v python3 > /dev/null || { echo "python3 is missing: the seed meshes cannot be written"; exit 1; }
start=$(date +%s.%N)
MODELS="weld gear geophysical" bash scripts/models/make.sh > "$out/make-meshes.log" 2>&1 ||
  { tail -20 "$out/make-meshes.log"; exit 1; }
elapsed() { awk -v a="$(date +%s.%N)" -v b="$1" 'BEGIN { printf "%.2f", a - b }'; }
echo "meshes written in $(elapsed "$start") s"

run() {  # label case precision [more fem run options]
  local label=$1 case_file=$2 precision=$3
  shift 3
  local log="$out/seed-$label.log" t0 status
  t0=$(date +%s.%N)
  SPDLOG_LEVEL=debug timeout 560 $fem run "$case_file" --set backend=cuda --set precision="$precision" \
    --set output.vtk=false --output "$out/seed-$label" "$@" > "$log" 2>&1
  status=$?
  printf '%-24s exit %d  wall %s s (command line, mesh reading and setup included)\n' "$label" \
    $status "$(elapsed "$t0")" | tee -a "$out/wave-seed.txt"
  grep -E "^completed|dofs|wall time|throughput" "$log" | sed 's/^/    /' | tee -a "$out/wave-seed.txt"
  grep -E "elastodynamic setup|read|mesh" "$log" | head -12 | sed 's/^/    /'
  [ $status -ne 0 ] && tail -5 "$log"
}

echo "$(nvidia-smi --query-gpu=name --format=csv,noheader), $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ)" |
  tee "$out/wave-seed.txt"
for p in single double; do run "weld-$p" cases/seed002/weld.yaml "$p"; done
steps=${WAVE_SEED_STEPS:-20000}
for p in single double; do
  run "gear-$p-$steps" cases/seed002/gear.yaml "$p" \
    --set solver.end_time="$(awk -v n="$steps" 'BEGIN { print n * 2.0e-9 }')"
  run "geophysical-$p-$steps" cases/seed002/geophysical.yaml "$p" \
    --set solver.end_time="$(awk -v n="$steps" 'BEGIN { print n * 2.0e-4 }')"
done
