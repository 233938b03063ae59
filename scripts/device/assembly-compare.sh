#!/usr/bin/env bash
# Runs on the GPU machine (through `device`, carrying .deps/device): variants of force assembly on
# the 2-million-element cubes, one binary, back to back, each variant as a solver.assembly and
# environment settings; prints element-steps/s per run and each variant's median against the
# first variant's (atomic assembly by default). Then the GPU tests that a variant must pass
# (FEM_COMPARE_TESTS, a gtest filter). Builds with CUDA, without VTK, only the CLI and the GPU
# tests. Logs go to $OUT (or ./gpu-out).
#   scripts/device/assembly-compare.sh [extra cmake args...]
# Knobs: FEM_COMPARE_VARIANTS (name=assembly[,VAR=value...] separated by spaces; default: atomic
# and deterministic, e.g. "atomic=atomic limit0=deterministic,FEM_CUDA_GATHER_BLOCKS=0"),
# FEM_COMPARE_REPEATS (2),
# FEM_COMPARE_SPECS ("tet4:tet4:70 hex8r:hex8:127"), FEM_COMPARE_PRECISIONS ("single double"),
# FEM_COMPARE_TESTS (gtest filter, default the agreement tests and the knobs' refusals; "-" for
# none).
set -uo pipefail
build=${FEM_COMPARE_BUILD:-build-gpu}
cd "$(dirname "$0")/../.."
source scripts/device/build-lib.sh
mkdir -p $build/logs
logs=$build/logs
start=$SECONDS
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader |
  tee "$out/gpu.txt"
device_build -DFEM_WITH_CUDA=ON "$@" -- fem_cli fem_tests_gpu
echo "== built in $((SECONDS - start)) s"

variants=${FEM_COMPARE_VARIANTS:-atomic=atomic deterministic=deterministic}
echo "== throughput (element-steps/s), variants: $variants"
fem=$build/bin/fem
for spec in ${FEM_COMPARE_SPECS:-tet4:tet4:70 hex8r:hex8:127}; do
  IFS=: read -r element cells divisions <<<"$spec"
  for precision in ${FEM_COMPARE_PRECISIONS:-single double}; do
    for repeat in $(seq "${FEM_COMPARE_REPEATS:-2}"); do
      for variant in $variants; do
        name=${variant%%=*}
        IFS=, read -r assembly settings <<<"${variant#*=}"
        tag=$element-$precision-$name-$repeat
        env ${settings//,/ } "$fem" run cases/cube_compression.yaml -q --backend cuda \
          --precision "$precision" --set mesh.divisions="$divisions" --set mesh.cells="$cells" \
          --set blocks.0.element="$element" --set output.vtk=false \
          --set solver.assembly="$assembly" --set output.histories='[]' --end-time 0.15 \
          --output $build/run > "$logs/run-$tag.log" 2>&1
        rate=$(grep -oE "throughput: [0-9.e+]+" "$logs/run-$tag.log" | awk '{print $2}')
        printf '%-6s %-6s %-8s run %s: %s element-steps/s\n' "$element" "$precision" "$name" \
          "$repeat" "${rate:-FAILED (see run-$tag.log)}"
      done
    done
  done
done | tee "$out/throughput.txt"

echo "== summary (median of the runs; ratio to the first variant; % of the 3,024 GB/s copy bandwidth)"
python3 - "$out/throughput.txt" <<'EOF' | tee "$out/summary.txt"
import statistics, sys
# Minimal bytes per element-step (fem/solver/byte_model.hpp) of these cubes, and the H100's
# measured copy bandwidth (docs/performance.md).
model = {("tet4", "single"): 77.0, ("tet4", "double"): 138.1,
         ("hex8r", "single"): 237.2, ("hex8r", "double"): 442.5}
copy = 3024e9
runs, order = {}, []
for line in open(sys.argv[1]):
    f = line.split()
    try:
        rate = float(f[5])
    except (IndexError, ValueError):
        continue
    if f[2] not in order:
        order.append(f[2])
    runs.setdefault((f[0], f[1]), {}).setdefault(f[2], []).append(rate)
for (element, precision), variants in runs.items():
    base = statistics.median(variants[order[0]])
    cells = []
    for name in order:
        m = statistics.median(variants.get(name) or [float("nan")])
        share = m * model.get((element, precision), float("nan")) / copy * 100
        cells.append(f"{name} {m:.4g} ({m / base * 100:.0f} %; {share:.1f} % of copy)")
    print(f"{element:6} {precision:6} " + "  ".join(cells))
EOF

tests=${FEM_COMPARE_TESTS:-*CudaAgreement*:*CudaKnobs*}
if [ "$tests" != "-" ]; then
  echo "== gpu tests: $tests"
  $build/bin/fem_tests_gpu --gtest_filter="$tests" > "$out/gpu-tests.log" 2>&1
  echo "exit $?"
  grep -E "PASSED|FAILED|SKIPPED|Failure" "$out/gpu-tests.log" | head -30
fi
tar -czf "$out/logs.tar.gz" -C $build logs
echo "== total $((SECONDS - start)) s"
