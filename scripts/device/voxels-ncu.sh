#!/usr/bin/env bash
# Runs on the GPU machine (through `device`, carrying .deps/device): where a co-rotational step's
# GPU time goes, kernel by kernel. Builds as scripts/device/voxels.sh does (build-voxels-gpu),
# runs CASE (default cases/seed004/bunny.yaml) on CUDA for STEPS steps (default 3) under Nsight
# Compute, timing every kernel alone (gpu__time_duration; clocks and caches left alone), and
# prints the time a step by kernel (the verb's lambda, where the name holds one) and grid size
# (the level), largest first, with the sum against the step's wall time without the profiler.
# SET adds options to `fem run` (e.g. "--set precision=double --set mesh.divisions=91").
# DETAIL=REGEX also profiles, for one step, the first DETAIL_COUNT (default 60) kernels whose
# demangled name matches REGEX with Nsight Compute's "detailed" set (throughputs, memory,
# occupancy, warp stalls, hot instructions) into $OUT/detail.csv and detail.ncu-rep.
# Logs go to $OUT (or ./gpu-out).
#   SET="--set solver.multigrid.coarsest_vertices=64" bash scripts/device/voxels-ncu.sh
#   DETAIL="assemble|coarsen|smooth" bash scripts/device/voxels-ncu.sh
set -uo pipefail
source "$(dirname "$0")/voxels-build.sh"
voxel_build fem_tests_voxel || exit 1
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2> /dev/null | head -1)
[ -n "$ncu" ] || { echo "ncu not found"; exit 1; }
steps=${STEPS:-3}
case=${CASE:-cases/seed004/bunny.yaml}
args=(run "$case" --set backend=cuda --set output.vtk=false --set solver.multigrid.residual_every=0
      ${SET:-})
# The wall time of a step without the profiler (40 steps).
$build/bin/fem "${args[@]}" --set solver.end_time=2.0 > "$out/plain.log" 2>&1
grep -E "voxels|steps/s" "$out/plain.log"
timeout 500 "$ncu" --clock-control none --cache-control none --csv --print-units base --print-kernel-base demangled \
  --metrics gpu__time_duration.sum,launch__grid_size,launch__block_size \
  $build/bin/fem "${args[@]}" --set solver.end_time="$(awk -v s="$steps" 'BEGIN { print s * 0.05 }')" \
  > "$out/ncu.csv" 2> "$out/ncu.err"
python3 - "$out/ncu.csv" "$steps" << 'EOF'
import csv, re, sys, collections
rows = [l for l in open(sys.argv[1]) if l.startswith('"')]
kernels = {}
for r in csv.DictReader(rows):
    k = (r["ID"], r["Kernel Name"])
    kernels.setdefault(k, {})[r["Metric Name"]] = r["Metric Value"]
total = collections.defaultdict(float)
count = collections.Counter()
for (_, name), m in kernels.items():
    # The verb: the function holding the lambda (ncu: "...::smooth(int, int)::[lambda(long) (instance 1)]").
    verbs = re.findall(r"::(\w+)\((?:[^()]|\([^()]*\))*\)::\[lambda", name)
    verb = verbs[-1] if verbs else name[:40]
    key = (verb, int(float(m.get("launch__grid_size", "0").replace(",", ""))), int(float(m.get("launch__block_size", "0").replace(",", ""))))
    total[key] += float(m["gpu__time_duration.sum"].replace(",", "")) * 1e-3
    count[key] += 1
steps = int(sys.argv[2])
print(f"{'verb':28s} {'grid':>7s} {'block':>5s} {'launches/step':>13s} {'us/step':>9s}")
for key, t in sorted(total.items(), key=lambda x: -x[1]):
    print(f"{key[0]:28s} {key[1]:7d} {key[2]:5d} {count[key] / steps:13.1f} {t / steps:9.1f}")
print(f"sum of kernel times: {sum(total.values()) / steps:.1f} us a step, "
      f"{sum(count.values()) / steps:.0f} launches a step")
EOF
if [ -n "${DETAIL:-}" ]; then
  timeout 400 "$ncu" --set detailed --section WarpStateStats --section SourceCounters \
    --kernel-name-base demangled --kernel-name "regex:${DETAIL}" \
    --launch-count "${DETAIL_COUNT:-60}" -o "$out/detail" -f \
    $build/bin/fem "${args[@]}" --set solver.end_time=0.05 > "$out/detail.log" 2>&1
  "$ncu" --import "$out/detail.ncu-rep" --csv --page details --print-units base > "$out/detail.csv" 2>&1
  tail -3 "$out/detail.log"
  python3 "$(dirname "$0")/ncu-summary.py" "$out/detail.csv"
fi
