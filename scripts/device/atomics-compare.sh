#!/usr/bin/env bash
# Runs on the GPU machine (through `device`, carrying .deps/device): plain against warp-aggregated
# force atomics (FEM_CUDA_ATOMICS=plain|warp, each forced for every block, one binary; the default
# auto picks per block) in the atomic assembly of the 2-million-element cubes, back to back
# (scripts/device/assembly-compare.sh, which also runs the atomic-mode agreement tests), then one
# ncu profile per mode. Logs go to $OUT (or ./gpu-out).
#   scripts/device/atomics-compare.sh [extra cmake args...]
# Knobs: FEM_COMPARE_REPEATS (2), FEM_COMPARE_SPECS ("tet4:tet4:70 hex8r:hex8:127"),
# FEM_COMPARE_PRECISIONS ("single double"), FEM_COMPARE_NCU (1: one ncu line per kernel and mode,
# single precision, if ncu is there; 0: none). $OUT keeps 8 files: the per-run logs and ncu CSVs
# come back packed in logs.tar.gz.
set -uo pipefail
build=${FEM_COMPARE_BUILD:-build-gpu}
cd "$(dirname "$0")/../.."
# Build, throughput and the atomic-mode agreement tests: assembly-compare.sh with these variants.
FEM_COMPARE_VARIANTS="plain=atomic,FEM_CUDA_ATOMICS=plain warp=atomic,FEM_CUDA_ATOMICS=warp" \
  FEM_COMPARE_TESTS=${FEM_COMPARE_TESTS:-*CudaAtomicModes*} \
  bash scripts/device/assembly-compare.sh "$@" || exit
out=${OUT:-gpu-out}
logs=$build/logs
start=$SECONDS
fem=$build/bin/fem

ncu=$([ "${FEM_COMPARE_NCU:-1}" = 0 ] || command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null || true)
if [ -n "$ncu" ]; then
  echo "== ncu (single precision; element and node kernel of step ~50; base clocks)"
  # profile.sh's metrics, and the L2 reduction counts where this ncu knows them (an unknown
  # name would fail the whole profile).
  metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,\
sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread
  "$ncu" --query-metrics > "$logs/ncu-metrics.txt" 2>&1
  for m in lts__t_requests_srcunit_tex_op_red.sum lts__t_sectors_srcunit_tex_op_red.sum \
    smsp__inst_executed_op_global_red.sum; do
    grep -qE "^ *${m%%.*}( |$)" "$logs/ncu-metrics.txt" && metrics=$metrics,$m
  done
  for spec in ${FEM_COMPARE_SPECS:-tet4:tet4:70 hex8r:hex8:127}; do
    IFS=: read -r element cells divisions <<<"$spec"
    for mode in plain warp; do
      if [ $((SECONDS - start)) -gt 390 ]; then echo "$element $mode: skipped (time)"; continue; fi
      FEM_CUDA_ATOMICS=$mode timeout 60 "$ncu" --metrics "$metrics" \
        --kernel-name regex:"element_forces_kernel|node_kernel" --launch-skip 100 \
        --launch-count 2 --csv "$fem" run cases/cube_compression.yaml -q --backend cuda \
        --precision single --set mesh.divisions="$divisions" --set mesh.cells="$cells" \
        --set blocks.0.element="$element" --set output.vtk=false --set solver.assembly=atomic \
        --set output.histories='[]' --end-time 0.01 --output $build/ncu \
        > "$logs/ncu-$element-$mode.csv" 2>&1
      python3 - "$logs/ncu-$element-$mode.csv" "$element $mode" <<'EOF'
import csv, sys
rows, header = [], None
for r in csv.reader(open(sys.argv[1])):
    if header is None and "Metric Name" in r:
        header = {name: i for i, name in enumerate(r)}
    elif header and len(r) == len(header) and r[0].isdigit():
        rows.append([r[header[k]] for k in
                     ("ID", "Kernel Name", "Metric Name", "Metric Unit", "Metric Value")])
if not rows:
    print(sys.argv[2] + ": no ncu data (see " + sys.argv[1] + ")")
kernels = {}
for r in rows:
    kernels.setdefault((int(r[0]), r[1]), {})[r[2]] = (r[4], r[3])
short = {"gpu__time_duration.sum": "time", "dram__bytes_read.sum": "dram read",
         "dram__bytes_write.sum": "dram write", "launch__registers_per_thread": "regs",
         "sm__warps_active.avg.pct_of_peak_sustained_active": "occupancy %",
         "lts__t_requests_srcunit_tex_op_red.sum": "L2 red requests",
         "lts__t_sectors_srcunit_tex_op_red.sum": "L2 red sectors",
         "smsp__inst_executed_op_global_red.sum": "red warp-instructions"}
for (_, name), m in sorted(kernels.items()):
    kind = "element" if "element_forces" in name else "node"
    print(f"{sys.argv[2]} {kind}: " + ", ".join(
        f"{short.get(k, k)} {v} {u}".rstrip() for k, (v, u) in m.items()))
EOF
    done
  done
else
  echo "ncu not found (or FEM_COMPARE_NCU=0): no kernel profile"
fi 2>&1 | tee "$out/ncu.txt"

tar -czf "$out/logs.tar.gz" -C $build logs
echo "== total $((SECONDS - start)) s"
