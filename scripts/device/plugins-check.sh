#!/usr/bin/env bash
# Runs on the GPU machine (through `device`, carrying .deps/device): builds fem with CUDA and
# without VTK, then scripts/test-plugins.sh against it: install, move, build plugins/ for every
# backend (openmp, cuda, kokkos where built), its tests (Backends.PluginCasesAgreeWithOpenMP
# compares cuda with openmp) and every case of plugins/cases on every backend, cuda included
# (required: the check fails if cuda cannot run), and the template material built alone on each.
# Carrying .deps/kokkos-cuda too (a CUDA-enabled Kokkos 4) adds the Kokkos backend, also required.
# Logs go to $OUT (or ./gpu-out).
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-gpu-out}
mkdir -p "$out"
deps=$PWD/.deps/device
prefix=$deps build=build-gpu require=cuda kokkos_flag=-DFEM_WITH_KOKKOS=OFF
export LD_LIBRARY_PATH=$deps/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
# With a CUDA-enabled Kokkos carried in .deps/kokkos-cuda, the Kokkos backend (Cuda space) is
# built too and must take part: plugins compiled for Kokkos-CUDA agree with openmp as well.
if [ -d .deps/kokkos-cuda ]; then
  prefix="$deps;$PWD/.deps/kokkos-cuda" build=build-kokkos require="cuda kokkos" kokkos_flag=-DFEM_WITH_KOKKOS=ON
  export LD_LIBRARY_PATH=$PWD/.deps/kokkos-cuda/lib:$LD_LIBRARY_PATH
fi
cmake -S . -B $build -G "Unix Makefiles" -DCMAKE_BUILD_TYPE=Release -DFEM_WITH_VTK=OFF \
  -DFEM_WITH_CUDA=ON $kokkos_flag -DCMAKE_PREFIX_PATH="$prefix" > "$out/configure.log" 2>&1 ||
  { tail -40 "$out/configure.log"; exit 1; }
cmake --build $build -j 16 > "$out/build.log" 2>&1 || { grep -E "error|Error" "$out/build.log" | head -40; exit 1; }
FEM_TEST_REQUIRE_BACKENDS="$require" FEM_PLUGINS_PREFIX_PATH="$prefix" scripts/test-plugins.sh $build 2>&1 |
  tee "$out/plugins.log" |
  grep -E "^==|vs openmp|agrees with openmp|can run here|lines|tests passed|Failed|FAILED|done$|error|passed"
