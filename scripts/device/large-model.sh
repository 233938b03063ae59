#!/usr/bin/env bash
# Runs on the GPU machine (through `device`, carrying .deps/device): builds fem with CUDA (no MPI,
# VTK or tests; build-lib.sh) in build-large, then runs the compression cube as tet4 at each of
# $DIVISIONS (default 230: 73,002,000 elements, 12,326,391 nodes, issue 19's largest) for a few
# steps on the CUDA backend, single precision, deterministic, no VTK output, and prints the
# exit code, the wall-time lines, the setup's phases (the debug log) and its split
# (summary.json). SANITIZE=1 runs them under compute-sanitizer (memcheck).
# EXTRA: more fem options; REPEAT: runs per size (default 1); BUILD=dir BUILT=1: use the fem
# already built in dir (a GPU test build, say) instead of building. Logs go to $OUT (or ./gpu-out).
set -uo pipefail
cd "$(dirname "$0")/../.."
build=${BUILD:-build-large}
source scripts/device/build-lib.sh
stamp() { echo "== $(date -u +%H:%M:%S) $*"; }
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
if [ "${BUILT:-0}" != 1 ]; then
  stamp build
  device_build -DFEM_WITH_CUDA=ON -DFEM_WITH_MPI=OFF -DFEM_BUILD_TESTS=OFF
fi
fem=$PWD/$build/bin/fem
prefix=()
[ "${SANITIZE:-0}" = 1 ] && prefix=(compute-sanitizer --tool memcheck --show-backtrace device)
for n in ${DIVISIONS:-230}; do
 for run in $(seq "${REPEAT:-1}"); do
  stamp "tet4 cube, $n divisions, run $run"
  SPDLOG_LEVEL=debug /usr/bin/time -v "${prefix[@]}" "$fem" run cases/cube_compression.yaml --backend cuda \
    --set mesh.divisions="$n" --set mesh.cells=tet4 --set blocks.0.element=tet4 \
    --set output.vtk=false --set output.every_time=1 --end-time "${END_TIME:-0.002}" \
    --output "$build/cube$n" ${EXTRA:-} > "$out/cube$n.log" 2>&1
  echo "exit code $?"
  grep -E "elements|wall time|throughput|error|Error|hint|Maximum resident|Elapsed|debug: (model|explicit|frame|end of run)" \
    "$out/cube$n.log" | head -60
  grep -o '"setup[a-z_]*": [0-9.e+-]*' "$build/cube$n/summary.json" 2>/dev/null
 done
done
