#!/usr/bin/env bash
# Runs on the GPU machine (through `device`, carrying .deps/device): one material's CUDA plugin
# built with several sets of compile-time flags (register caps such as
# -DFEM_CUDA_TET4_SINGLE_MIN_BLOCKS=N, element_kernels.cuh), each swapped into the same build
# and timed on the 2-million-element cubes, back to back. Only the plugin is rebuilt per variant
# (its flags.make edited; nothing else depends on it). Logs go to $OUT (or ./gpu-out).
#   scripts/device/caps-compare.sh
# Knobs: FEM_CAPS_VARIANTS (name=flag[,flag...] separated by spaces; "default=" is the build as
# configured), FEM_CAPS_MATERIAL (neo_hookean), FEM_CAPS_RUNS (element:cells:divisions:precision:
# assembly, default tet4 single atomic), FEM_COMPARE_REPEATS (3).
set -uo pipefail
build=${FEM_COMPARE_BUILD:-build-gpu}
cd "$(dirname "$0")/../.."
source scripts/device/build-lib.sh
mkdir -p $build/logs $build/variants
logs=$build/logs
start=$SECONDS
material=${FEM_CAPS_MATERIAL:-neo_hookean}
variants=${FEM_CAPS_VARIANTS:-default= cap20=-DFEM_CUDA_TET4_SINGLE_MIN_BLOCKS=20 \
uncapped=-DFEM_CUDA_TET4_SINGLE_MIN_BLOCKS=1}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
device_build -DFEM_WITH_CUDA=ON -DFEM_BUILD_TESTS=OFF
echo "== built in $((SECONDS - start)) s"
target=fem_material_${material}_cuda
flags=$build/materials/CMakeFiles/$target.dir/flags.make
plugin=$build/lib/fem/plugins/$material.cuda.so
cp "$flags" "$flags.configured"
for variant in $variants; do
  name=${variant%%=*}
  extra=${variant#*=}
  sed "s|^CUDA_FLAGS = |CUDA_FLAGS = ${extra//,/ } -Xptxas -v |" "$flags.configured" > "$flags"
  cmake --build $build --target "$target" > "$logs/build-$name.log" 2>&1 ||
    { grep -E "error" "$logs/build-$name.log" | head; exit 1; }
  cp "$plugin" "$build/variants/$name.so"
  # ptxas: registers and spill bytes of the single-precision tet4 and hex8r force kernels.
  echo "-- $name ($extra):"
  awk '/Compiling entry function/ {fn=$(NF-2)} /spill stores/ {sp=$5"/"$9}
       /Used [0-9]+ registers/ {print $5, sp, fn}' "$logs/build-$name.log" | tr -d "'," |
    while read -r regs spills fn; do echo "$regs $spills $(echo "$fn" | c++filt)"; done |
    grep -E "element_forces_kernel<.*float, (4, 1, \(fem::Family\)0|8, 1, \(fem::Family\)1)" |
    sed -E 's/fem::materials::|fem::kernels::|fem::cuda::|\(fem::Family\)//g' | cut -c1-110
done
cp "$flags.configured" "$flags"
echo "== variants built at $((SECONDS - start)) s"
fem=$build/bin/fem
for spec in ${FEM_CAPS_RUNS:-tet4:tet4:70:single:atomic}; do
  IFS=: read -r element cells divisions precision assembly <<<"$spec"
  for repeat in $(seq "${FEM_COMPARE_REPEATS:-3}"); do
    for variant in $variants; do
      name=${variant%%=*}
      cp "$build/variants/$name.so" "$plugin"
      tag=$element-$precision-$assembly-$name-$repeat
      "$fem" run cases/cube_compression.yaml -q --backend cuda --precision "$precision" \
        --set mesh.divisions="$divisions" --set mesh.cells="$cells" \
        --set blocks.0.element="$element" --set output.vtk=false \
        --set solver.assembly="$assembly" --set output.histories='[]' --end-time 0.15 \
        --output $build/run > "$logs/run-$tag.log" 2>&1
      rate=$(grep -oE "throughput: [0-9.e+]+" "$logs/run-$tag.log" | awk '{print $2}')
      printf '%-6s %-6s %-13s %-9s run %s: %s element-steps/s\n' "$element" "$precision" \
        "$assembly" "$name" "$repeat" "${rate:-FAILED (see run-$tag.log)}"
    done
  done
done | tee "$out/throughput.txt"
cp "$build/variants/default.so" "$plugin" 2>/dev/null
tar -czf "$out/logs.tar.gz" -C $build logs
echo "== total $((SECONDS - start)) s"
