#!/usr/bin/env bash
# The seed-000 series on the GPU machine: full 5 s simulations of the cube at 5..45 elements per
# edge on the CUDA backend (no VTK output; histories on), for docs/performance.md beside the
# paper's Table 3. Expects build-gpu from gpu-check.sh.
set -uo pipefail
cd "$(dirname "$0")/../.."
export LD_LIBRARY_PATH=$PWD/.deps/device/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
fem=build-gpu/bin/fem
echo "| elements per edge | element | elements | precision | steps | time-step loop | total wall | element-steps/s |"
echo "|---|---|---|---|---|---|---|---|"
for n in 5 15 25 35 45; do
  for spec in "hex8r hex8" "tet4 tet4"; do
    set -- $spec
    for precision in single double; do
      "$fem" run cases/cube_compression.yaml -q --backend cuda --precision $precision \
        --set mesh.divisions=$n --set mesh.cells=$2 --set blocks.0.element=$1 \
        --set output.vtk=false --output build-gpu/series > build-gpu/series.log 2>&1 || { cat build-gpu/series.log; continue; }
      python3 - build-gpu/series/summary.json "$n" "$1" "$precision" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
t = s["timing"]
loop = t["element_pass_s"] + t["node_pass_s"] + t["fused_step_s"]
print(f"| {sys.argv[2]} | {sys.argv[3]} | {s['model']['elements']} | {sys.argv[4]} | {s['time']['steps']} | "
      f"{loop:.3f} s | {t['total_s']:.2f} s | {s['throughput']['element_steps_per_s']:.3g} |")
PY
    done
  done
done
