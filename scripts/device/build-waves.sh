#!/usr/bin/env bash
# Builds build-waves-gpu on the GPU machine (CUDA and OpenMP backends, the elements and the
# linear-elastic material, no VTK or Kokkos) unless it is there: what scripts/device/wave-bench.sh
# and wave-seed.sh run. Logs in the folder given (default gpu-out).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
out=${1:-gpu-out}
mkdir -p "$out"
deps=$PWD/.deps/device
build="build-waves-gpu"
if [ ! -x $build/bin/fem ]; then
  generator="Unix Makefiles"
  command -v ninja > /dev/null && generator=Ninja
  cmake -S . -B $build -G "$generator" -DCMAKE_BUILD_TYPE=Release -DFEM_WITH_VTK=OFF \
    -DFEM_WITH_KOKKOS=OFF -DFEM_WITH_CUDA=ON -DCMAKE_PREFIX_PATH="$deps" > "$out/configure.log" 2>&1 &&
    cmake --build $build -j 16 --target fem_cli fem_backend_cuda fem_backend_openmp \
      fem_element_hex8 fem_element_tri3 fem_element_quad4 fem_material_linear_elastic_cuda \
      fem_material_linear_elastic_openmp \
      > "$out/build.log" 2>&1 ||
    { tail -40 "$out/build.log"; exit 1; }
fi
