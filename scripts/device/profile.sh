#!/usr/bin/env bash
# Runs on the GPU machine (through `device`, carrying .deps/device): Nsight Compute profile of the
# element and node kernels of the 2-million-element cubes, for the effective-bandwidth figures of
# docs/performance.md. Builds with CUDA, without VTK and tests. Logs go to $OUT (or ./gpu-out).
#   scripts/device/profile.sh [extra cmake args...]
set -uo pipefail
build=${FEM_PROFILE_BUILD:-build-prof}
cd "$(dirname "$0")/../.."
out=${OUT:-gpu-out}
mkdir -p "$out"
deps=$PWD/.deps/device
export LD_LIBRARY_PATH=$deps/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
cmake -S . -B $build -G "Unix Makefiles" -DCMAKE_BUILD_TYPE=Release -DFEM_WITH_VTK=OFF \
  -DFEM_WITH_CUDA=ON -DFEM_BUILD_TESTS=OFF -DCMAKE_PREFIX_PATH="$deps" "$@" > "$out/configure.log" 2>&1 ||
  { tail -40 "$out/configure.log"; exit 1; }
cmake --build $build -j 16 > "$out/build.log" 2>&1 || { grep -E "error" "$out/build.log" | head -40; exit 1; }
ncu=$([ "${FEM_PROFILE_NCU:-1}" = 0 ] || command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null || true)
metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,\
dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed,\
l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct,sm__warps_active.avg.pct_of_peak_sustained_active,\
launch__registers_per_thread,smsp__inst_executed.sum
fem=$build/bin/fem
for assembly in ${FEM_PROFILE_ASSEMBLY:-atomic deterministic}; do
  for spec in ${FEM_PROFILE_SPECS:-tet4:tet4:70 hex8r:hex8:127}; do
    IFS=: read -r element cells divisions <<<"$spec"
    for precision in ${FEM_PROFILE_PRECISIONS:-single double}; do
      args=(run cases/cube_compression.yaml -q --backend cuda --precision "$precision"
            --set mesh.divisions="$divisions" --set mesh.cells="$cells" --set blocks.0.element="$element"
            --set output.vtk=false --set solver.assembly="$assembly" --set output.histories='[]'
            ${FEM_PROFILE_SET:-})
      tag="${FEM_PROFILE_TAG:-}$assembly-$element-$precision"
      "$fem" "${args[@]}" --end-time 0.15 --output $build/run > "$out/run-$tag.log" 2>&1
      echo "$tag: $(grep -E 'throughput' "$out/run-$tag.log" | tr -s ' ')"
      if [ -n "$ncu" ]; then
        # Kernels 200-203 of the run: past start-up, inside the step graphs.
        "$ncu" --metrics "$metrics" --launch-skip 200 --launch-count 4 --csv \
          "$fem" "${args[@]}" --end-time 0.01 --output $build/ncu > "$out/ncu-$tag.csv" 2>&1
      fi
    done
  done
done | tee "$out/throughput.txt"
[ -n "$ncu" ] || echo "ncu not found: no kernel profile" | tee -a "$out/throughput.txt"
