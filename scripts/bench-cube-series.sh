#!/usr/bin/env bash
# Throughput of the seed-000 cube series (5..45 elements per edge) for hex8r and tet4 in single and
# double precision on one backend. Each run is cut to about STEPS steps (throughput per step does
# not depend on the simulated time) and writes no VTK; timings are the backend's element and node
# passes only. Prints a Markdown table for docs/benchmarks.md.
#
#   scripts/bench-cube-series.sh [backend] [steps]       e.g. scripts/bench-cube-series.sh openmp 400
set -euo pipefail
cd "$(dirname "$0")/.."
backend=${1:-openmp}
steps=${2:-400}
fem=${FEM:-build/bin/fem}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "| elements per edge | element | elements | precision | steps run | full-run steps | element-steps/s | full 5 s run (est.) |"
echo "|---|---|---|---|---|---|---|---|"
for n in 5 15 25 35 45; do
  for element in hex8r tet4; do
    cells=hex8; [ "$element" = tet4 ] && cells=tet4
    for precision in single double; do
      args=(cases/cube_compression.yaml --backend "$backend" --precision "$precision"
            --set mesh.divisions="$n" --set mesh.cells="$cells" --set blocks.0.element="$element"
            --set output.vtk=false --set output.histories='[]')
      # Full-run step count from `fem check`, then a run cut to about $steps steps.
      full=$("$fem" check "${args[@]}" | sed -n 's/.* \([0-9]*\) steps$/\1/p')
      end=$(python3 -c "print(5.0 * min(1.0, $steps / $full))")
      "$fem" run -q "${args[@]}" --end-time "$end" --output "$out/run" > /dev/null
      python3 - "$out/run/summary.json" "$n" "$element" "$precision" "$full" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
n, element, precision, full = sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
rate = s["throughput"]["element_steps_per_s"]
elements = s["model"]["elements"]
steps = s["time"]["steps"]
est = elements * full / rate
print(f"| {n} | {element} | {elements} | {precision} | {steps} | {full} | {rate:.3g} | {est:.1f} s |")
PY
    done
  done
done
