#!/usr/bin/env bash
# Registers and spills (ptxas -v, sm_90) of the CUDA kernels of one translation unit, with the
# flags of the Release build; no GPU needed. For checking a register cap before measuring it.
#   scripts/cuda-registers.sh backend|MATERIAL [kernel-name regex]
#   EXTRA="-DFEM_CUDA_HEX8R_SINGLE_MIN_BLOCKS=11" scripts/cuda-registers.sh neo_hookean "float, 8, 1"
# MATERIAL's generated source is taken from $BUILD (default build), which must have been configured
# with CUDA. Output: registers, spill stores/loads in bytes, kernel.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build}
inc="-Ibackends/cuda/include -Iframework/include"
if [ "$1" = backend ]; then
  src=backends/cuda/src/cuda_backend.cu
else
  src=$build/materials/fem_material_$1.cuda.cu
  inc="-Imaterials $inc"
  [ -f "$src" ] || { echo "no $src: configure $build with CUDA first" >&2; exit 1; }
fi
# shellcheck disable=SC2086
nvcc $inc -O3 -DNDEBUG -arch=sm_90 --ftz=true --fmad=false -DFEM_VERSION_STRING=\"0\" \
  -std=c++17 ${EXTRA:-} -x cu -c "$src" -o /dev/null -Xptxas -v 2>&1 |
  awk '/Compiling entry function/ {fn=$(NF-2)} /spill stores/ {sp=$5"/"$9} /Used [0-9]+ registers/ {print $5, sp, fn}' |
  tr -d "'," | while read -r regs spills name; do
    echo "$regs $spills $(echo "$name" | c++filt)"
  done | grep -E "${2:-.}" || true
