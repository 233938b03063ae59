#!/usr/bin/env bash
# Runs on the GPU machine (through `device`, carrying .deps/device): builds fem without VTK,
# runs the GPU tests, the physics suite on the CUDA backend, and a throughput sweep.
# Logs go to $OUT (or ./gpu-out).
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-gpu-out}
mkdir -p "$out"
deps=$PWD/.deps/device
export LD_LIBRARY_PATH=$deps/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee "$out/gpu.txt"
cmake -S . -B build-gpu -G "Unix Makefiles" -DCMAKE_BUILD_TYPE=Release -DFEM_WITH_VTK=OFF \
  -DFEM_WITH_CUDA=ON -DCMAKE_PREFIX_PATH="$deps" > "$out/configure.log" 2>&1 ||
  { tail -40 "$out/configure.log"; exit 1; }
cmake --build build-gpu -j 16 > "$out/build.log" 2>&1 || { grep -E "error|Error" "$out/build.log" | head -40; exit 1; }
echo "== gpu tests"
build-gpu/bin/fem_tests_gpu 2>&1 | tee "$out/gpu-tests.log" | grep -E "cuda vs openmp|PASSED|FAILED|SKIPPED"
echo "== physics and relaxation suites on cuda"
FEM_TEST_BACKEND=cuda ctest --test-dir build-gpu -L "physics|relax" --output-on-failure > "$out/physics-cuda.log" 2>&1
grep -E "tests passed|Failed" "$out/physics-cuda.log"
echo "== whole suite (openmp)"
ctest --test-dir build-gpu -j 8 > "$out/all.log" 2>&1; grep -E "tests passed|Failed" "$out/all.log"
echo "== compute-sanitizer on a small cube"
for tool in memcheck racecheck; do
  compute-sanitizer --tool $tool --error-exitcode 9 build-gpu/bin/fem run tests/data/small_cube.yaml \
    --backend cuda --end-time 0.05 -q --output build-gpu/sanitizer > "$out/sanitizer-$tool.log" 2>&1
  echo "$tool: exit $? ($(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/sanitizer-$tool.log" | tr '\n' ' '))"
done
echo "== copy bandwidth"
nvcc -O2 -arch=sm_90 -o build-gpu/copy_bandwidth scripts/device/copy_bandwidth.cu && build-gpu/copy_bandwidth | tee "$out/bandwidth.txt"
echo "== throughput (2M-element cubes, CUDA, no output)"
fem=build-gpu/bin/fem
for assembly in deterministic atomic; do
  for spec in "hex8r hex8 127" "tet4 tet4 70"; do
    set -- $spec
    for precision in single double; do
      "$fem" run cases/cube_compression.yaml -q --backend cuda --precision $precision \
        --set mesh.divisions=$3 --set mesh.cells=$2 --set blocks.0.element=$1 --set output.vtk=false \
        --set solver.assembly=$assembly --set output.histories='[]' --end-time 0.15 \
        --output build-gpu/run > build-gpu/run.log 2>&1
      echo "$assembly $1 $precision: $(grep -E 'throughput' build-gpu/run.log | tr -s ' ')"
    done
  done
done | tee "$out/throughput.txt"
