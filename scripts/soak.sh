#!/usr/bin/env bash
# Soak runs (issue 20, docs/architecture.md "Long runs"), not part of CI:
#  1. STEPS explicit steps (default 10,000,000) of cases/free_vibration.yaml (a small cube
#     vibrating freely, no damping) on each CPU backend built: the peak memory of a run of a
#     tenth of the steps and of the whole, and the spread and drift of the total energy;
#  2. a run that writes FRAMES VTK frames (default 100,000) of a one-cell cube: the .pvd lists
#     every frame and the last one reads back as a mesh (`fem check` on it).
#   scripts/soak.sh                      # both, with build/bin/fem
#   STEPS=1000000 FRAMES=1000 BACKENDS=openmp FEM=build-x/bin/fem scripts/soak.sh
set -euo pipefail
cd "$(dirname "$0")/.."
fem=${FEM:-build/bin/fem}
steps=${STEPS:-10000000}
frames=${FRAMES:-100000}
backends=${BACKENDS:-openmp kokkos}
out=${OUT:-soak-out}
mkdir -p "$out"
case_file=cases/free_vibration.yaml
dt=0.0007905  # about the case's automatic step (critical 0.000988 s x 0.8), given exactly

peak_kb() {  # peak resident memory (kB) of a command, from /usr/bin/time
  /usr/bin/time -f "%M" -o "$out/time.txt" "$@" > "$out/run.log" 2>&1
  cat "$out/time.txt"
}

plugins=$("$fem" plugins)
echo "soak: $steps steps of $case_file, $(date -u +%Y-%m-%d), $(nproc) cores, $("$fem" --version 2>/dev/null | head -1)"
for backend in $backends; do
  if ! grep -q "^  $backend .*\[[A-Z]" <<< "$plugins"; then
    echo "$backend: not available here"
    continue
  fi
  every=$((steps / 1000))  # 1,000 energy samples
  tenth=$(peak_kb "$fem" run $case_file --backend "$backend" -q --output "$out/$backend-tenth" \
    --set output.every_steps=$every --set output.histories.0.every_steps=$every \
    --set solver.time_step=$dt --end-time "$(python3 -c "print($steps // 10 * $dt)")")
  start=$(date +%s)
  whole=$(peak_kb "$fem" run $case_file --backend "$backend" -q --output "$out/$backend" \
    --set output.every_steps=$every --set output.histories.0.every_steps=$every \
    --set solver.time_step=$dt --end-time "$(python3 -c "print($steps * $dt)")")
  seconds=$(($(date +%s) - start))
  python3 - "$out/$backend/energy.csv" "$backend" "$tenth" "$whole" "$seconds" "$(grep -o 'completed [0-9]* steps' "$out/run.log")" << 'EOF'
import csv, sys
path, backend, tenth, whole, seconds, completed = sys.argv[1:]
rows = list(csv.DictReader(open(path)))
steps = [float(r["step"]) for r in rows]
total = [float(r["kinetic"]) + float(r["strain"]) + float(r["hourglass"]) for r in rows]
mean = sum(total) / len(total)
# Least-squares slope of the total energy against the step: the drift per million steps.
ms, mt = sum(steps) / len(steps), mean
slope = sum((s - ms) * (t - mt) for s, t in zip(steps, total)) / sum((s - ms) ** 2 for s in steps)
# The first row (before the first step) is the start, the rest samples the vibration at
# arbitrary phases: compare the means of the two halves, with the standard error of that.
samples = total[1:]
first, last = samples[: len(samples) // 2], samples[len(samples) // 2 :]
sd = (sum((t - mean) ** 2 for t in samples) / len(samples)) ** 0.5
error = sd * (2.0 / len(first)) ** 0.5 / mean
print(f"{backend}: {completed} in {seconds} s; peak memory {int(tenth) / 1024:.1f} MiB "
      f"(a tenth of the steps) and {int(whole) / 1024:.1f} MiB (all); total energy "
      f"{mean:.6e} J over {len(total)} samples: spread (max - min) / mean "
      f"{(max(total) - min(total)) / mean:.2e}, drift {slope * 1e6 / mean:+.2e} of it per million "
      f"steps, mean of the second half / first half - 1 = "
      f"{(sum(last) / len(last)) / (sum(first) / len(first)) - 1:+.2e} (standard error "
      f"{error:.1e}); standard deviation / mean {sd / mean:.2e}")
EOF
done

echo "frames: $frames VTK frames of a one-cell cube"
frames_dir="$out/frames"
rm -rf "$frames_dir"
start=$(date +%s)
"$fem" run $case_file -q --output "$frames_dir" --set mesh.divisions=1 --set output.vtk=true \
  --set output.every_steps=1 --set solver.time_step=1e-4 --set 'output.histories=[]' \
  --end-time "$(python3 -c "print($frames * 1e-4)")" > "$out/run.log" 2>&1
seconds=$(($(date +%s) - start))
listed=$(grep -c "<DataSet" "$frames_dir/free_vibration.pvd")
last=$(realpath "$frames_dir/$(ls "$frames_dir" | grep '^free_vibration_[0-9]*\.vtu$' | sort | tail -1)")
# The last frame as the mesh of a case: fem's reader (VTK's) opens it.
if "$fem" check $case_file --set "mesh={file: $last}" --set 'node_sets={}' \
  --set 'boundary_conditions=[]' --set 'initial_conditions=[]' --set 'output.histories=[]' \
  > "$out/check.log" 2>&1; then
  opened="opens as a mesh ($(grep -o '[0-9]* nodes' "$out/check.log" | head -1))"
else
  opened="DOES NOT OPEN: $(head -2 "$out/check.log")"
fi
python3 -c "import xml.etree.ElementTree as E; E.parse('$frames_dir/free_vibration.pvd')" &&
  parsed="parses as XML" || parsed="DOES NOT PARSE"
echo "frames: $listed listed in the .pvd ($parsed), written in $seconds s ($(du -sh "$frames_dir" | cut -f1)); the last, $(basename "$last"), $opened"
