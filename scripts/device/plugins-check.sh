#!/usr/bin/env bash
# Runs on the GPU machine (through `device`, carrying .deps/device): builds fem with CUDA and
# without VTK, then scripts/test-plugins.sh against it: install, move, build plugins/ for every
# backend (openmp, cuda, kokkos where built), its tests (Backends.PluginCasesAgreeWithOpenMP
# compares cuda with openmp) and every case of plugins/cases on every backend, cuda included
# (required: the check fails if cuda cannot run), and the template material built alone on each.
# Logs go to $OUT (or ./gpu-out).
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-gpu-out}
mkdir -p "$out"
deps=$PWD/.deps/device
export LD_LIBRARY_PATH=$deps/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
cmake -S . -B build-gpu -G "Unix Makefiles" -DCMAKE_BUILD_TYPE=Release -DFEM_WITH_VTK=OFF \
  -DFEM_WITH_CUDA=ON -DCMAKE_PREFIX_PATH="$deps" > "$out/configure.log" 2>&1 ||
  { tail -40 "$out/configure.log"; exit 1; }
cmake --build build-gpu -j 16 > "$out/build.log" 2>&1 || { grep -E "error|Error" "$out/build.log" | head -40; exit 1; }
FEM_TEST_REQUIRE_BACKENDS=cuda FEM_PLUGINS_PREFIX_PATH=$deps scripts/test-plugins.sh build-gpu 2>&1 |
  tee "$out/plugins.log" |
  grep -E "^==|vs openmp|agrees with openmp|can run here|lines|tests passed|Failed|FAILED|done$|error|passed"
