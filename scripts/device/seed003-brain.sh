#!/usr/bin/env bash
# Seed 003's brain-shift experiment (its Tables 6 and 7) on the GPU machine: cases/brain_shift_mixed.yaml
# (a neo-Hookean brain of hexahedra, ANP and linear tetrahedra, a tumour and a ventricle, Table 5
# materials; the craniotomy displaced by up to 8.2 mm, the base held, the rest sliding on a rigid
# triangulated skull) on meshes of the seed's two sizes written by
# cases/meshes/make_mixed_ellipsoid.py --layout brain: --divisions 22 (the seed's original mesh,
# 16,825 elements) and 45 (its refined mesh, 125,292 elements), skulls of 18 and 36 squares per
# cube edge (the seed's 3,960 and 15,840 triangles). Solved by dynamic relaxation to the seed's
# accuracy (tolerance 1e-4 m on the error estimate of its eq. 7; the case's force criterion,
# 1e-3 of the largest internal force, too), single precision, no output. Prints each mesh's
# structure beside the seed's Table 6, then a markdown table beside Table 7: iterations to
# convergence, time-step loop, loop time per iteration and scaled to the seed's 3000 steps, the
# largest nodal displacement. The generator needs python3 only (standard library). Expects
# build-gpu (scripts/device/gpu-check.sh).
#   [FEM=build-gpu/bin/fem] [BACKENDS="cuda openmp"] [DIVISIONS="22 45"] scripts/device/seed003-brain.sh
set -uo pipefail
cd "$(dirname "$0")/../.." || exit
export LD_LIBRARY_PATH=$PWD/.deps/device/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
fem=${FEM:-build-gpu/bin/fem}
run_dir=$(mktemp -d)
trap 'rm -rf "$run_dir"' EXIT

# The seed's figures (Tables 6 and 7): elements hexahedra/linear tetrahedra/ANP tetrahedra/total,
# skull triangles, steps to convergence CPU/GPU, seconds for 3000 steps CPU/GPU.
seed_row() {
  case $1 in
    22) echo "original|10,596|4,831|1,398|16,825|3,960|1887|2103|79.7|3.54" ;;
    45) echo "refined|84,768|32,439|8,085|125,292|15,840|3120|3091|543.4|19.95" ;;
    *) echo "-|-|-|-|-|-|-|-|-|-" ;;
  esac
}

# Meshes first (the refined one takes some seconds to write), with their structure.
echo "Meshes (make_mixed_ellipsoid.py --layout brain; the seed's Table 6 beside them):"
echo
echo "| divisions | model | nodes | hex8r | tet4_anp | tet4 | elements | skull triangles | seed: hexahedra | seed: linear tet | seed: ANP tet | seed: elements | seed: skull triangles |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for n in ${DIVISIONS:-22 45}; do
  skull=$(( n * 18 / 22 > 4 ? n * 18 / 22 : 4 ))  # 18 at 22, 36 at 45: Table 6's skulls
  python3 cases/meshes/make_mixed_ellipsoid.py --layout brain --divisions "$n" \
    --skull-divisions "$skull" -o "$run_dir/brain_$n.msh" 2> "$run_dir/mesh_$n.txt" ||
    { echo "| $n | mesh failed: $(tr '\n' ' ' < "$run_dir/mesh_$n.txt") |"; continue; }
  # "12167 nodes, 17608 elements (9256 hexahedra, ...: core 9256, shell 7248, tumor 582,
  # ventricle 522); skull 1946 nodes, 3888 triangles": the case's blocks are core hex8r, shell and
  # tumor tet4_anp, ventricle tet4.
  python3 - "$run_dir/mesh_$n.txt" "$n" "$(seed_row "$n")" > "$run_dir/counts_$n.txt" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
num = lambda key: int(re.search(key, text).group(1))
hexes, anp = num(r"core (\d+)"), num(r"shell (\d+)") + num(r"tumor (\d+)")
tets = num(r"ventricle (\d+)")
seed = sys.argv[3].split("|")
nodes, triangles = num(r"(\d+) nodes,"), num(r"(\d+) triangles")
print(f"{nodes:,}|{hexes:,}|{anp:,}|{tets:,}|{hexes + anp + tets:,}|{triangles:,}|{seed[0]}|"
      + "|".join(seed[1:6]))
PY
  IFS='|' read -r nodes hexes anp tets total tri model s_hex s_tet s_anp s_total s_tri < "$run_dir/counts_$n.txt"
  echo "| $n | $model | $nodes | $hexes | $anp | $tets | $total | $tri | $s_hex | $s_tet | $s_anp | $s_total | $s_tri |"
done
echo
echo "Dynamic relaxation to 1e-4 m, single precision (the seed's Table 7 in the last two columns: its CPU and GPU steps to convergence and seconds for 3000 steps):"
echo
echo "| model | elements (hex8r / tet4_anp / tet4) | backend | iterations | converged | loop s | ms per iteration | 3000 iterations s | max displacement mm | seed: steps CPU / GPU | seed: 3000 steps CPU s / GPU s |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for n in ${DIVISIONS:-22 45}; do
  [ -f "$run_dir/counts_$n.txt" ] || continue
  IFS='|' read -r nodes hexes anp tets total tri model s_hex s_tet s_anp s_total s_tri < "$run_dir/counts_$n.txt"
  IFS='|' read -r _ _ _ _ _ _ s_cpu s_gpu t_cpu t_gpu <<< "$(seed_row "$n")"
  label="$model (N = $n)"
  for backend in ${BACKENDS:-cuda openmp}; do
    "$fem" run cases/brain_shift_mixed.yaml -q --backend "$backend" --precision single \
      --set mesh.file="$run_dir/brain_$n.msh" --set contact.0.file="$run_dir/brain_$n.msh" \
      --set solver.tolerance=1.0e-4 --set output.vtk=false --set 'output.histories=[]' \
      --output "$run_dir/run" > "$run_dir/log" 2>&1 ||
      { echo "| $label | $total | $backend | failed: $(tail -2 "$run_dir/log" | tr '\n' ' ') |"; continue; }
    python3 - "$run_dir/run/summary.json" "$label" "$hexes / $anp / $tets" "$backend" \
      "$s_cpu / $s_gpu" "$t_cpu / $t_gpu" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
t, r = s["timing"], s["relaxation"]
loop = t["element_pass_s"] + t["node_pass_s"] + t["fused_step_s"]
per = loop / r["iterations"]
print(f"| {sys.argv[2]} | {sys.argv[3]} | {sys.argv[4]} | {r['iterations']} | {r['converged']} | "
      f"{loop:.3f} | {1e3 * per:.3f} | {3000 * per:.2f} | "
      f"{1e3 * s['result']['max_displacement_m']:.2f} | {sys.argv[5]} | {sys.argv[6]} |")
PY
  done
done
