#!/usr/bin/env bash
# Runs on the GPU machine (through `device`, carrying .deps/device and .deps/kokkos-cuda): builds
# fem with the CUDA backend and the Kokkos backend on a CUDA-enabled Kokkos 4 (no VTK), then
#  - the physics suite on the Kokkos backend and the Kokkos-vs-OpenMP agreement test, on the Cuda
#    space and on the host space (FEM_KOKKOS_SPACE=host),
#  - throughput of Kokkos-CUDA and CUDA-native on the 2M-element tet4 and hex8r cubes, single and
#    double, deterministic and atomic assembly, the same case and method as gpu-check.sh,
#  - Kokkos-OpenMP (FEM_KOKKOS_SPACE=host) against the OpenMP backend on the CPU cores.
# It does not build Kokkos: .deps/kokkos-cuda must hold an installed Kokkos 4 with CUDA, OpenMP and
# Serial (README, "build with a CUDA-enabled Kokkos"). Logs go to $OUT (or ./gpu-out).
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-gpu-out}
mkdir -p "$out"
deps=$PWD/.deps/device
kokkos=$PWD/.deps/kokkos-cuda
export LD_LIBRARY_PATH=$deps/lib/x86_64-linux-gnu:$kokkos/lib:${LD_LIBRARY_PATH:-}
stamp() { echo "== $(date -u +%H:%M:%S) $*"; }
{ git log -1 --format='commit %h %s' 2>/dev/null || echo "commit: not a git checkout"; } | tee "$out/commit.txt"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"
nproc | sed 's/^/cpu cores: /'
build=build-kokkos
stamp configure
cmake -S . -B $build -G "Unix Makefiles" -DCMAKE_BUILD_TYPE=Release -DFEM_WITH_VTK=OFF \
  -DFEM_WITH_CUDA=ON -DFEM_WITH_KOKKOS=ON -DCMAKE_PREFIX_PATH="$deps;$kokkos" \
  > "$out/configure.log" 2>&1 || { tail -40 "$out/configure.log"; exit 1; }
grep "fem: Kokkos" "$out/configure.log"
stamp build
cmake --build $build -j "$(nproc)" --target fem_cli fem_tests_physics fem_tests_kokkos \
  > "$out/build.log" 2>&1 || { grep -E "error|Error" "$out/build.log" | head -40; exit 1; }
fem=$build/bin/fem
$fem plugins 2>&1 | grep -E "backend.so" | tee "$out/plugins.txt"

stamp "--device N on Kokkos-CUDA (the GPU test KokkosBackend.GpusAreListedAndChosenByNumber runs below)"
gpus=$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)
$fem plugins | sed -n '/kokkos.backend/,/^  [a-z]/p' | head -8 | tee "$out/plugins-kokkos.txt"
for d in 0 "$gpus"; do
  $fem run tests/data/small_cube.yaml --backend kokkos --device "$d" --output $build/kdevice$d \
    > $build/kdevice.log 2>&1
  echo "kokkos --device $d: exit $?: $(grep -o 'backend kokkos (.*)' $build/kdevice.log | head -1)$(
    grep -m1 -iE 'error' $build/kdevice.log)"
done | tee "$out/kokkos-devices.txt"

stamp "physics suite on kokkos"
FEM_TEST_BACKEND=kokkos timeout 300 $build/bin/fem_tests_physics > "$out/physics-kokkos.log" 2>&1
grep -E "^\[  (PASSED|FAILED) |tests ran|FAILED  \]" "$out/physics-kokkos.log"
stamp "kokkos vs openmp"
timeout 300 $build/bin/fem_tests_kokkos > "$out/kokkos-tests.log" 2>&1
grep -E "kokkos vs openmp|^\[  (PASSED|FAILED) |FAILED  \]" "$out/kokkos-tests.log"
stamp "the same on Kokkos' host space (FEM_KOKKOS_SPACE=host: OpenMP)"
export FEM_KOKKOS_SPACE=host
FEM_TEST_BACKEND=kokkos timeout 300 $build/bin/fem_tests_physics > "$out/physics-kokkos-host.log" 2>&1
grep -E "^\[  (PASSED|FAILED) |FAILED  \]" "$out/physics-kokkos-host.log"
timeout 300 $build/bin/fem_tests_kokkos > "$out/kokkos-tests-host.log" 2>&1
grep -E "kokkos vs openmp|^\[  (PASSED|FAILED) |FAILED  \]" "$out/kokkos-tests-host.log"
unset FEM_KOKKOS_SPACE

run() {  # backend element cells divisions precision assembly end_time
  "$fem" run cases/cube_compression.yaml -q --backend "$1" --precision "$5" \
    --set mesh.divisions="$4" --set mesh.cells="$3" --set blocks.0.element="$2" \
    --set output.vtk=false --set solver.assembly="$6" --set output.histories='[]' \
    --end-time "$7" --output $build/run > $build/run.log 2>&1
  echo "$1 $6 $2 $5: $(grep -E 'throughput' $build/run.log | tr -s ' ') [$(grep -oE 'on [a-z]+ \(.*\)' $build/run.log)]"
}
stamp "throughput on the GPU (2M-element cubes, no output)"
for assembly in deterministic atomic; do
  for spec in "tet4 tet4 70" "hex8r hex8 127"; do
    set -- $spec
    for precision in single double; do
      for backend in cuda kokkos; do run $backend "$1" "$2" "$3" $precision $assembly 0.15; done
    done
  done
done | tee "$out/throughput-gpu.txt"

stamp "throughput on the CPU cores: OpenMP backend vs Kokkos-OpenMP (FEM_KOKKOS_SPACE=host)"
export OMP_PROC_BIND=spread OMP_PLACES=threads
for spec in "tet4 tet4 40" "hex8r hex8 72"; do
  set -- $spec
  for precision in single double; do
    run openmp "$1" "$2" "$3" $precision deterministic 0.05
    export FEM_KOKKOS_SPACE=host
    run kokkos "$1" "$2" "$3" $precision deterministic 0.05
    unset FEM_KOKKOS_SPACE
  done
done | tee "$out/throughput-cpu.txt"
stamp done
