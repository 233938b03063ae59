#!/usr/bin/env bash
# Runs on the GPU machine after (or instead of) scripts/device/voxels.sh, with the same build:
# seed 004's bunny (cases/seed004/bunny.yaml: the voxels generator's blob, partly filled coarse
# cells, ears dragged by a prescribed motion) at the seed's four sizes (DIVISIONS, default
# "46 64 91 129": 12 k to 267 k voxels) and 2 M voxels (258), on CUDA in single and double,
# STEPS steps (default 40), no output: steps per second and the V-cycle's residual reduction
# (measured in a second run of 10 steps). Then fem_drag on the 267 k model (NO_DRAG=1 skips it).
# EXTRA adds options to the timed `fem run` (e.g. --time-verbs). Logs go to $OUT.
set -uo pipefail
source "$(dirname "$0")/voxels-build.sh"
voxel_build fem_tests_voxel fem_drag || exit 1
steps=${STEPS:-40}
for n in ${DIVISIONS:-46 64 91 129 258}; do
  for p in single double; do
    log="$out/bunny-$p-$n.log"
    timeout 300 $build/bin/fem run cases/seed004/bunny.yaml --set backend=cuda --set precision=$p \
      --set mesh.divisions=$n --set output.vtk=false --set solver.multigrid.residual_every=0 \
      ${EXTRA:-} --set solver.end_time="$(awk -v s="$steps" 'BEGIN { print s * 0.05 }')" > "$log" 2>&1
    status=$?
    rate=$(grep -oE '\([0-9.e+]+ steps/s\)' "$log" | tr -d '(' | cut -d' ' -f1)
    voxels=$(grep -oE "voxels [0-9]+" "$log" | head -1 | cut -d' ' -f2)
    timeout 300 $build/bin/fem run cases/seed004/bunny.yaml --set backend=cuda --set precision=$p \
      --set mesh.divisions=$n --set output.vtk=false --set solver.end_time=0.5 > "$log.rho" 2>&1
    rho=$(grep -oE "mean [0-9.e+-]+, worst [0-9.e+-]+" "$log.rho")
    grep "verbs (s)" "$log" >> "$out/bunny.txt"
    printf 'bunny %-6s %4d divisions  %8s voxels  exit %d  %8s steps/s  reduction per cycle: %s\n' \
      $p "$n" "$voxels" $status "$rate" "$rho" | tee -a "$out/bunny.txt"
  done
done
[ -n "${NO_DRAG:-}" ] && exit 0
echo "fem_drag on cuda:"
# The case's own ear motion off: the handle (an ear tip) is the only thing moved.
timeout 200 $build/bin/fem_drag cases/seed004/bunny.yaml --set backend=cuda \
  --set "boundary_conditions=[{set: bottom, fixed: all}]" \
  --handle-point 0.09 0.09 0.17 --path 0.02 0 0 --steps 200 --every 0 2>&1 | grep -vE "^info" | tail -5
