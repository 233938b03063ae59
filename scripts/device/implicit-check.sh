#!/usr/bin/env bash
# Runs on the GPU machine (through `device`, carrying .deps/device from scripts/device/pack-deps.sh):
# builds fem with the CUDA backend, without VTK or Kokkos, then
#  - the implicit suite on the CUDA backend (FEM_TEST_BACKEND=cuda fem_tests_implicit),
#  - the GPU tests: the implicit operators against OpenMP (tests/gpu/test_cuda_implicit.cpp)
#    first, then the rest of fem_tests_gpu (the explicit path after the kernel-table change),
#  - a static solve of a pressed cube on CUDA and on OpenMP (all cores), with its per-verb times,
# and prints a summary. Logs go to $OUT (or ./gpu-out).
#   bash scripts/device/implicit-check.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-gpu-out}
mkdir -p "$out"
deps=$PWD/.deps/device
export LD_LIBRARY_PATH=$deps/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
stamp() { echo "== $(date -u +%H:%M:%S) $*"; }
summary=()
result() {  # name exit-status log: one summary line
  if [ "$2" -eq 0 ]; then summary+=("PASS  $1"); else summary+=("FAIL  $1 (exit $2, $3)"); fi
}

{ git log -1 --format='commit %h %s' 2>/dev/null || echo "commit: not a git checkout"; } | tee "$out/commit.txt"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"
echo "cpu cores: $(nproc), $(date -u +%Y-%m-%d)"
build=build-implicit
generator="Unix Makefiles"
command -v ninja > /dev/null && generator=Ninja
stamp configure
cmake -S . -B $build -G "$generator" -DCMAKE_BUILD_TYPE=Release -DFEM_WITH_VTK=OFF \
  -DFEM_WITH_KOKKOS=OFF -DFEM_WITH_CUDA=ON -DCMAKE_PREFIX_PATH="$deps" > "$out/configure.log" 2>&1 ||
  { tail -40 "$out/configure.log"; exit 1; }
stamp build
# The test targets depend on the command line program and every plugin (backends, elements,
# materials); the explicit GPU tests and the implicit suite need nothing else.
cmake --build $build -j 16 --target fem_tests_implicit fem_tests_gpu > "$out/build.log" 2>&1 ||
  { grep -E "error|Error" "$out/build.log" | head -40; exit 1; }
bin=$build/bin

stamp "GPU tests of the implicit operators (cuda vs openmp)"
timeout 300 $bin/fem_tests_gpu --gtest_filter='*CudaVectorVerbs*:*CudaOperatorVerbs*:*CudaStaticSolve*' \
  > "$out/gpu-implicit.log" 2>&1
status=$?
grep -E "cuda vs openmp|^\[  (PASSED|FAILED|SKIPPED) |FAILED  \]|Failure|Expected|Which is" \
  "$out/gpu-implicit.log" | head -80
result "fem_tests_gpu, implicit operators" $status gpu-implicit.log

stamp "implicit suite on cuda (FEM_TEST_BACKEND=cuda)"
FEM_TEST_BACKEND=cuda timeout 400 $bin/fem_tests_implicit > "$out/implicit-cuda.log" 2>&1
status=$?
grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED  \]|tests ran" "$out/implicit-cuda.log"
grep -B2 -A6 "Failure" "$out/implicit-cuda.log" | head -60
result "fem_tests_implicit on cuda" $status implicit-cuda.log

stamp "the other GPU tests (explicit path, kernel table)"
timeout 300 $bin/fem_tests_gpu --gtest_filter='-*CudaVectorVerbs*:*CudaOperatorVerbs*:*CudaStaticSolve*' \
  > "$out/gpu-explicit.log" 2>&1
status=$?
grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED  \]" "$out/gpu-explicit.log"
result "fem_tests_gpu, the rest" $status gpu-explicit.log

# A static solve: a neo-Hookean cube (nu = 0.49) clamped at the bottom, its top pressed 1 %,
# one increment with one linear solve (Newton linearized) of CG and Jacobi, at most 500
# iterations: the throughput of the CG loop (tangent action, Jacobi, reductions) in dof x CG
# iterations per second, on CUDA and on OpenMP with every core.
stamp "static solve throughput (pressed cube, CG + Jacobi, 500 iterations at most)"
cat > $build/pressed_cube.yaml << 'EOF'
mesh: {generator: box, cells: hex8, size: [0.05, 0.05, 0.05], divisions: [40, 40, 40]}
materials: {brain: {type: neo_hookean, density: 1000, youngs_modulus: 3000, poisson_ratio: 0.49}}
blocks: [{element: hex8r, material: brain}]
node_sets:
  bottom: {plane: {point: [0, 0, 0], normal: [0, 0, 1]}}
  top: {plane: {point: [0, 0, 0.05], normal: [0, 0, 1]}}
amplitudes: {ramp: {type: linear, start: 0, end: 1}}
boundary_conditions:
  - {set: bottom, fixed: [x, y, z]}
  - {set: top, displacement: {z: -0.0005}, amplitude: ramp}
solver:
  type: static
  end_time: 1
  increments: 1
  newton: {method: linearized, linear_tolerance: 1.0e-6}
  linear: {max_iterations: 500}
output: {vtk: false}
EOF
bench() {  # backend cells element divisions precision
  timeout 200 $bin/fem run $build/pressed_cube.yaml -q --backend "$1" --precision "$5" \
    --set mesh.cells="$2" --set blocks.0.element="$3" --set mesh.divisions="$4" \
    --output $build/bench > $build/bench.log 2>&1
  local status=$?
  echo "$1 $3 ${4}^3 $5 (exit $status): $(grep -E 'free dofs|linear iterations|wall time|throughput' $build/bench.log | tr -s ' ' | tr '\n' ' ')"
  [ $status -eq 0 ] || tail -3 $build/bench.log
}
for spec in "hex8 hex8r 64" "hex8 hex8 32" "tet4 tet4_anp 32"; do
  set -- $spec
  for precision in single double; do
    bench cuda "$1" "$2" "$3" $precision
    bench openmp "$1" "$2" "$3" $precision
  done
done | tee "$out/throughput.txt"

stamp summary
printf '%s\n' "${summary[@]}" | tee "$out/summary.txt"
printf '%s\n' "${summary[@]}" | grep -q '^FAIL' && exit 1
exit 0
