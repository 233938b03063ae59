#!/usr/bin/env bash
# Runs on a GPU machine (through `device`, carrying .deps/device from scripts/device/pack-deps.sh,
# which brings METIS): builds fem with CUDA and MPI (OpenMPI of the machine), without VTK or
# Kokkos, then
#   tests:  the parallel suite (partition; mpirun on 1-4 ranks on openmp) and the advance-step
#           GPU tests;
#   cuda:   the explicit cube on CUDA: the same 2 M-element model on 1 rank, 2 ranks sharing one
#           GPU, and one rank per GPU (strong scaling), with histories compared byte for byte;
#           the halo GPU to GPU (FEM_HALO=auto, CUDA IPC), and through the host (FEM_HALO=host)
#           on the most GPUs for comparison;
#   weak:   about 2 M elements per GPU on 1..G GPUs (weak scaling);
#   strong16: a 16 M-element cube on 1..G GPUs (not in the default PARTS);
#   relax:  dynamic relaxation (brain_shift_mixed refined) on 1..G GPUs (not in the default PARTS);
#   openmp: strong scaling of a 2 M-element cube on the CPU cores: 1 rank x 16 threads, then
#           2, 4, 8, 16 ranks x (16 / ranks) threads;
#   waves:  the elastodynamic solver (not in the default PARTS): wave_plane at 5.8 M dofs on
#           1..G GPUs in single and double, receiver traces compared byte for byte with 1 GPU,
#           and wave_block (1.2 M dofs) on the CPU cores as 1..16 ranks;
# PARTS selects (default "tests cuda weak openmp"); OVERLAPS="on off" runs weak and strong16 with
# FEM_HALO_OVERLAP on and off side by side and compares their outputs (default "on"). Logs go to
# $OUT.
#   PARTS="cuda" bash scripts/device/mpi-check.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-gpu-out}
mkdir -p "$out"
deps=$PWD/.deps/device
export LD_LIBRARY_PATH=$deps/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
parts=${PARTS:-tests cuda weak openmp}
stamp() { echo "== $(date -u +%H:%M:%S) $*"; }
gpus=$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)
{ git log -1 --format='commit %h %s' 2>/dev/null || echo "commit: not a git checkout"; } | tee "$out/commit.txt"
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | tee "$out/gpu.txt"
echo "gpus: $gpus, cpu cores: $(nproc), $(mpirun --version | head -1), $(date -u +%Y-%m-%d)"
echo "CUDA-aware MPI: $(ompi_info --parsable --all 2>/dev/null | grep mpi_built_with_cuda_support:value | cut -d: -f7)"
build=build-mpi
generator="Unix Makefiles"
command -v ninja > /dev/null && generator=Ninja
stamp configure
cmake -S . -B $build -G "$generator" -DCMAKE_BUILD_TYPE=Release -DFEM_WITH_VTK=OFF \
  -DFEM_WITH_KOKKOS=OFF -DFEM_WITH_CUDA=ON -DFEM_WITH_MPI=ON -DCMAKE_PREFIX_PATH="$deps" \
  > "$out/configure.log" 2>&1 || { tail -40 "$out/configure.log"; exit 1; }
stamp build
cmake --build $build -j "$(nproc)" --target fem_tests_parallel fem_tests_gpu > "$out/build.log" 2>&1 ||
  { grep -E "error|Error" "$out/build.log" | head -40; exit 1; }
fem=$PWD/$build/bin/fem
run_mpi() {  # ranks threads args...
  local ranks=$1 threads=$2
  shift 2
  OMP_NUM_THREADS=$threads timeout 300 mpirun --oversubscribe --bind-to none --mca btl self,vader \
    -np "$ranks" "$fem" run "$@"
}
line() {  # label log [dir]: throughput and time split of one run, the halo's share from summary.json
  echo "$1: $(grep -E 'throughput|wall time' "$2" | tr -s ' ' | tr '\n' ' ')"
  [ -n "${3:-}" ] && [ -f "$3/summary.json" ] && python3 -c "
import json, sys
s = json.load(open('$3/summary.json'))
p = s.get('parallel')
if p: print('    halo', p['max_halo_bytes_per_step'], 'B/step through', p.get('halo_path', 'host'), ', exchange', round(p['halo_exchange_s'], 3), 's (', round(1e6 * p['halo_exchange_s'] / max(1, s['time']['steps']), 1), 'us/step ), steps', s['time']['steps'], ', imbalance', round(p['imbalance'], 3))"
}

if [[ " $parts " == *" tests "* ]]; then
  stamp "parallel tests"
  OMP_NUM_THREADS=1 $build/bin/fem_tests_parallel > "$out/parallel-tests.log" 2>&1
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED  \]" "$out/parallel-tests.log"
  grep -B3 -A25 "Failure$" "$out/parallel-tests.log" | head -60
  timeout 300 $build/bin/fem_tests_gpu --gtest_filter='*AdvanceStep*:*Ghost*:*Nodal*' \
    > "$out/gpu-step-tests.log" 2>&1
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED  \]" "$out/gpu-step-tests.log"
fi

# Histories every 20 steps (compared byte for byte), frames only at the start and the end.
cube=(cases/cube_compression.yaml -q --set output.vtk=false --set solver.assembly=deterministic
      --set output.every_time=1)
compare() {  # dir_a dir_b: the files that differ
  for f in energy.csv top.csv corner.csv; do cmp -s "$1/$f" "$2/$f" || echo -n "$f "; done
}
if [[ " $parts " == *" cuda "* ]]; then
  stamp "cuda: the same 2 M-element cube (127^3 hex8r) on 1 rank, 2 ranks on one GPU, 1..$gpus GPUs"
  for precision in single double; do
    run_mpi 1 1 "${cube[@]}" --backend cuda --precision $precision --set mesh.divisions=127 \
      --end-time 0.05 --output $build/c1 > $build/c1.log 2>&1
    line "cuda $precision 1 rank" $build/c1.log
    # ranks:FEM_CUDA_DEVICE:FEM_HALO (device 0: all ranks on GPU 0; empty: one per GPU)
    configs="2:0:auto"
    for g in 2 4 8; do [ "$g" -le "$gpus" ] && configs="$configs $g::auto"; done
    [ "$gpus" -ge 2 ] && configs="$configs $gpus::host"
    for config in $configs; do
      IFS=: read -r ranks device halo <<< "$config"
      FEM_HALO=$halo FEM_CUDA_DEVICE=$device run_mpi "$ranks" 1 "${cube[@]}" --backend cuda \
        --precision $precision --set mesh.divisions=127 --end-time 0.05 --output $build/cn \
        > $build/cn.log 2>&1
      same=$(compare $build/c1 $build/cn)
      line "cuda $precision $ranks ranks${device:+ on GPU $device}, halo $halo (differing: ${same:-none})" $build/cn.log $build/cn
      grep -E "mesh split|error" $build/cn.log | sed 's/^.*info: //' | head -5
    done
  done | tee "$out/cuda.txt"
fi
# ELEMENT: hex8r (the default) or tet4 (the cube cut into 6 tetrahedra per cell: 2 M tetrahedra
# at 70^3); PRECISIONS and ASSEMBLIES: what the weak and strong runs sweep.
element=${ELEMENT:-hex8r}
precisions=${PRECISIONS:-single}
assemblies=${ASSEMBLIES:-deterministic}
base_divisions=127
[ "$element" = tet4 ] && base_divisions=70
overlaps=${OVERLAPS:-on}
if [[ " $parts " == *" weak "* ]]; then
  stamp "cuda weak scaling: about 2 M $element elements per GPU ($precisions; $assemblies; overlap $overlaps)"
  for precision in $precisions; do
    for assembly in $assemblies; do
      for g in ${GPU_COUNTS:-1 2 4 8}; do
        [ "$g" -le "$gpus" ] || continue
        divisions=$(python3 -c "print(round($base_divisions * $g ** (1 / 3)))")
        for overlap in $overlaps; do
          [ "$g" -eq 1 ] && [ "$overlap" = off ] && continue  # one rank has no halo
          FEM_HALO_OVERLAP=$overlap run_mpi "$g" 1 "${cube[@]}" --backend cuda \
            --precision $precision --set solver.assembly=$assembly --set mesh.cells=${element%r} \
            --set blocks.0.element=$element --set mesh.divisions=$divisions --end-time 0.05 \
            --output $build/w-$overlap > $build/w.log 2>&1
          line "weak $element $precision $assembly $g GPUs (${divisions}^3), overlap $overlap" \
            $build/w.log $build/w-$overlap
          grep -E "error" $build/w.log | head -3
        done
        [ "$g" -gt 1 ] && [ "$overlaps" = "on off" ] && [ "$assembly" = deterministic ] &&
          echo "    overlap on / off differing: $(compare $build/w-on $build/w-off)"
      done
    done
  done | tee "$out/cuda-weak-$element.txt"
fi
if [[ " $parts " == *" strong16 "* ]]; then
  stamp "cuda strong scaling: 16 M $element elements on 1..$gpus GPUs ($precisions)"
  divisions=$((2 * base_divisions - 2))
  for precision in $precisions; do
    for g in ${GPU_COUNTS:-1 2 4 8}; do
      [ "$g" -le "$gpus" ] || continue
      for overlap in $overlaps; do
        FEM_HALO_OVERLAP=$overlap run_mpi "$g" 1 "${cube[@]}" --backend cuda \
          --precision $precision --set mesh.cells=${element%r} --set blocks.0.element=$element \
          --set mesh.divisions=$divisions --end-time 0.01 --output $build/s$g-$overlap \
          > $build/s.log 2>&1
        line "strong16 $element $precision $g GPUs, overlap $overlap (differing from 1 GPU: $(compare $build/s1-$overlap $build/s$g-$overlap))" \
          $build/s.log $build/s$g-$overlap
        grep -E "error" $build/s.log | head -3
      done
    done
  done | tee "$out/cuda-strong16-$element.txt"
fi
if [[ " $parts " == *" relax "* ]]; then
  relax_divisions=${RELAX_DIVISIONS:-60}
  stamp "dynamic relaxation: brain_shift_mixed at $relax_divisions divisions on 1..$gpus GPUs"
  brain=$PWD/$build/brain_$relax_divisions.msh
  [ -f "$brain" ] || python3 cases/meshes/make_mixed_ellipsoid.py --layout brain \
    --divisions "$relax_divisions" --skull-divisions $((relax_divisions * 4 / 5)) -o "$brain" \
    > "$out/brain-mesh.log" 2>&1
  for g in ${GPU_COUNTS:-1 2 4 8}; do
    [ "$g" -le "$gpus" ] || continue
    run_mpi "$g" 1 cases/brain_shift_mixed.yaml -q --backend cuda --set output.vtk=false \
      --set mesh.file="$brain" --set contact.0.file="$brain" --output $build/r$g > $build/r.log 2>&1
    differing=""
    for f in energy.csv exposed.csv base.csv; do cmp -s $build/r1/$f $build/r$g/$f || differing="$differing$f "; done
    line "relax $g GPUs (differing from 1 GPU: ${differing:-none})" $build/r.log $build/r$g
    grep -E "error|relaxation" $build/r.log | head -3
  done | tee "$out/relax.txt"
fi

if [[ " $parts " == *" waves "* ]]; then
  stamp "waves: wave_plane at 5.8 M dofs on 1..$gpus GPUs, wave_block on $(nproc) cores"
  traces() {  # dir_a dir_b: the receiver files that differ
    for f in "$1"/*.csv; do cmp -s "$f" "$2/$(basename "$f")" || echo -n "$(basename "$f") "; done
  }
  {
    cores=$(nproc)  # every rank sets up the whole model: give each its share of the cores
    plane=(cases/wave_plane.yaml -q --set output.vtk=false --set output.receiver_formats=[csv]
           --set 'mesh.divisions=[2400,1200]' --end-time 5e-6)
    for precision in single double; do
      for g in ${GPU_COUNTS:-1 2 4 8}; do
        [ "$g" -le "$gpus" ] || continue
        run_mpi "$g" $((cores / g)) "${plane[@]}" --backend cuda --precision $precision --output $build/v$g \
          > $build/v.log 2>&1
        line "waves plane cuda $precision $g GPUs (differing from 1 GPU: $(traces $build/v1 $build/v$g))" \
          $build/v.log $build/v$g
        grep -E "error" $build/v.log | head -3
      done
    done
    for ranks in 1 2 4 8 16; do
      [ "$ranks" -le "$cores" ] || continue
      run_mpi "$ranks" $((cores / ranks)) cases/wave_block.yaml -q --set output.vtk=false \
        --set output.receiver_formats=[csv] --end-time 1e-5 --output $build/vo$ranks \
        > $build/vo.log 2>&1
      line "waves block openmp $ranks ranks x $((cores / ranks)) threads (differing from 1 rank: $(traces $build/vo1 $build/vo$ranks))" \
        $build/vo.log $build/vo$ranks
    done
  } | tee "$out/waves.txt"
fi

if [[ " $parts " == *" openmp "* ]]; then
  stamp "openmp strong scaling: 127^3 hex8r on $(nproc) cores"
  cores=$(nproc)
  for ranks in 1 2 4 8 16; do
    [ "$ranks" -le "$cores" ] || continue
    run_mpi "$ranks" $((cores / ranks)) "${cube[@]}" --backend openmp --set mesh.divisions=127 \
      --end-time 0.01 --output $build/o > $build/o.log 2>&1
    line "openmp $ranks ranks x $((cores / ranks)) threads" $build/o.log $build/o
  done | tee "$out/openmp.txt"
fi
stamp done
