#!/usr/bin/env bash
# Runs on a GPU machine, at best one with several GPUs (through `device`, carrying .deps/device
# from scripts/device/pack-deps.sh): builds fem with CUDA and MPI (no VTK, no Kokkos; build-lib.sh)
# in build-devices, then checks the choice of GPU:
#   - `fem plugins` lists every GPU under the cuda backend, and CUDA_VISIBLE_DEVICES hides and
#     renumbers them;
#   - `fem run --device N` runs on GPU N (named in the log) and writes the same histories as GPU 0;
#     one past the last GPU is refused with exit code 2 and the count;
#   - the GPU test CudaBackend.EveryGpuIsListedAndChosenByNumber.
# Logs go to $OUT (or ./gpu-out).
set -uo pipefail
cd "$(dirname "$0")/../.."
build=build-devices
source scripts/device/build-lib.sh
stamp() { echo "== $(date -u +%H:%M:%S) $*"; }
gpus=$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)
nvidia-smi --query-gpu=index,name,pci.bus_id,memory.total --format=csv,noheader | tee "$out/gpu.txt"
stamp build
device_build -DFEM_WITH_CUDA=ON -DFEM_WITH_MPI=ON -- fem_tests_gpu fem_tests_parallel
fem=$PWD/$build/bin/fem
cube=tests/data/small_cube.yaml

stamp "fem plugins ($gpus GPUs)"
$fem plugins | sed -n '/^backends:/,/^elements:/p' | tee "$out/plugins.txt"
stamp "fem plugins with CUDA_VISIBLE_DEVICES=$((gpus - 1))"
CUDA_VISIBLE_DEVICES=$((gpus - 1)) $fem plugins | grep -A3 "cuda.backend" | tee "$out/plugins-visible.txt"

stamp "fem run --device N"
for d in $(seq 0 $((gpus - 1))); do
  $fem run $cube --backend cuda --device "$d" --output $build/device$d > $build/device.log 2>&1
  echo "device $d: exit $?, $(grep -o 'backend cuda (.*), [a-z]* precision' $build/device.log | head -1)"
  [ "$d" -gt 0 ] && { cmp -s $build/device0/top.csv $build/device$d/top.csv &&
    echo "  top.csv: the same bytes as device 0" || echo "  top.csv DIFFERS from device 0"; }
done | tee "$out/run-devices.txt"
$fem run $cube --backend cuda --device "$gpus" --output $build/device_none > $build/device.log 2>&1
echo "device $gpus (one past the last): exit $?: $(head -3 $build/device.log)" | tee -a "$out/run-devices.txt"
$fem check $cube --backend cuda --device 1 | head -3 | tee -a "$out/run-devices.txt"

stamp "GPU tests"
$build/bin/fem_tests_gpu --gtest_filter='CudaBackend.*' 2>&1 | tee "$out/gpu-tests.log" |
  grep -E "cuda devices|OK|FAILED|PASSED|SKIPPED"
