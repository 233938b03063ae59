#!/usr/bin/env bash
# fem and CalculiX on the same decks, larger than the tests': a static deck (the seed-000 cube
# pressed 20 %, hex8 and hex20), an implicit dynamic one and an explicit one, each exported by
# `fem export` from a case in cases/, solved by ccx and by `fem run` on the deck. Prints wall
# times and the agreement of the printed node sets at the end of the step (docs/benchmarks.md).
#
#   scripts/deck-vs-calculix.sh [build folder] [divisions]     # defaults: build 12
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
n=${2:-12}
fem=$PWD/$build/bin/fem
out=${OUT:-$PWD/deck-vs-calculix}
mkdir -p "$out"
command -v ccx > /dev/null || { echo "ccx not found: apt install calculix-ccx"; exit 1; }

# name, case, export options
runs=(
  "static_hex8|cases/cube_barrelling_static.yaml|--step static --intervals 5 --set mesh.divisions=$n"
  "static_hex20|cases/cube_barrelling_static.yaml|--step static --intervals 5 --set mesh.divisions=$((n / 2)) --set mesh.cells=hex20 --set blocks.0.element=hex20"
  "dynamic_hex8|cases/cube_implicit_dynamic.yaml|--step dynamic --intervals 50 --set mesh.divisions=$n"
  "explicit_hex8|cases/cube_compression.yaml|--step explicit --intervals 20 --set mesh.divisions=$((n / 2)) --set blocks.0.element=hex8"
)
printf "%-14s %8s %9s %9s  %s\n" deck dofs "ccx s" "fem s" "agreement at the end of the step"
for run in "${runs[@]}"; do
  IFS='|' read -r name case options <<< "$run"
  dir=$out/$name
  rm -rf "$dir" && mkdir -p "$dir"
  # shellcheck disable=SC2086
  "$fem" export "$case" $options -o "$dir/$name.inp" > "$dir/export.log"
  start=$(date +%s.%N)
  (cd "$dir" && ccx -i "$name" > ccx.log 2>&1)
  ccx_s=$(echo "$(date +%s.%N) - $start" | bc)
  start=$(date +%s.%N)
  "$fem" run "$dir/$name.inp" --output "$dir/fem" > "$dir/fem.log" 2>&1
  fem_s=$(echo "$(date +%s.%N) - $start" | bc)
  python3 - "$dir" "$name" "$ccx_s" "$fem_s" << 'EOF'
import csv, glob, os, re, sys
dir, name, ccx_s, fem_s = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
# ccx's last table of each set and quantity
tables, current = {}, None
for line in open(os.path.join(dir, name + ".dat")):
    m = re.match(r"\s*(displacements|total force).*for set (\S+) and time\s+(\S+)", line)
    if m:
        current = (m.group(2).lower(), m.group(1), float(m.group(3)))
        tables[current[:2]] = (current[2], [])
        continue
    values = line.split()
    if current and len(values) in (3, 4):
        tables[current[:2]][1].append([float(v) for v in values[-3:]])
    elif values:
        current = None
nodes = 3 * sum(1 for l in open(os.path.join(dir, name + ".inp")) if re.match(r"\d+,", l) and l.count(",") == 3)
parts = []
for (set_name, quantity), (time, rows) in sorted(tables.items()):
    path = os.path.join(dir, "fem", set_name + ".csv")
    # fem records a set's mean displacement: compared for sets of one node only
    if not os.path.exists(path) or not rows or (quantity == "displacements" and len(rows) != 1):
        continue
    fem_rows = list(csv.DictReader(open(path)))
    last = fem_rows[-1]
    prefix = "displacement_" if quantity == "displacements" else "reaction_force_"
    ours = [float(last[prefix + a]) for a in "xyz"]
    theirs = rows[0]
    scale = max(abs(v) for v in theirs) or 1.0
    diff = max(abs(a - b) for a, b in zip(ours, theirs)) / scale
    parts.append(f"{set_name} {'u' if quantity == 'displacements' else 'RF'} {diff:.1e} (t {float(last['time']):g}/{time:g})")
print(f"{name:<14} {nodes:>8} {ccx_s:>9.2f} {fem_s:>9.2f}  " + "; ".join(parts))
EOF
done
