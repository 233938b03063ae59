#!/usr/bin/env bash
# Runs on the GPU machine (through `device`, carrying .deps/device from scripts/device/pack-deps.sh):
# builds fem with the CUDA backend (no VTK, no Kokkos) and measures the implicit solvers against
# the targets of docs/performance.md, "Implicit solver":
#  1. the seed-000 cube barrelled 20 % statically (hex8, double, top and bottom clamped) to a
#     relative residual of 1e-8, with the geometric multigrid and with Jacobi, at 32^3 (0.1 M
#     dofs) and 64^3 (0.8 M dofs), on CUDA and on OpenMP (every core);
#  2. the same cube in implicit dynamics at 50x the explicit critical step (Newmark);
#  3. seed 001's real-time mode: 6,000 tetrahedra, one linearised solve of 20 Jacobi-CG
#     iterations per step, the time per step.
# Prints one line per run (from fem's own summary.json) and writes the logs to $OUT. Verb times
# are exact only in the runs labelled -timed (fem run --time-verbs); elsewhere, on CUDA, they
# count kernel launches. PARTS chooses the measurements (default "static dynamic realtime"; also
# "apply": the tangent action rate alone; "kokkos": Kokkos-CUDA against CUDA, which needs
# .deps/kokkos-cuda carried too), BUILD
# the build folder (default build-implicit-bench).
#   bash scripts/device/implicit-bench.sh
#   PARTS=realtime bash scripts/device/implicit-bench.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-gpu-out}
mkdir -p "$out"
deps=$PWD/.deps/device
export LD_LIBRARY_PATH=$deps/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "cpu cores: $(nproc), $(date -u +%Y-%m-%d)"
build=${BUILD:-build-implicit-bench}
parts=" ${PARTS:-static dynamic realtime} "
generator="Unix Makefiles"
command -v ninja > /dev/null && generator=Ninja
# The Kokkos backend only for the "kokkos" part, on the CUDA-enabled Kokkos in .deps/kokkos-cuda
# (README, "build with a CUDA-enabled Kokkos"; carried beside .deps/device).
with_kokkos=OFF prefix=$deps targets="fem_cli fem_tests_implicit"
if [[ $parts == *" kokkos "* ]]; then
  kokkos=$PWD/.deps/kokkos-cuda
  with_kokkos=ON prefix="$deps;$kokkos" targets="$targets fem_tests_kokkos"
  export LD_LIBRARY_PATH=$kokkos/lib:$LD_LIBRARY_PATH
fi
cmake -S . -B $build -G "$generator" -DCMAKE_BUILD_TYPE=Release -DFEM_WITH_VTK=OFF \
  -DFEM_WITH_KOKKOS=$with_kokkos -DFEM_WITH_CUDA=ON -DCMAKE_PREFIX_PATH="$prefix" \
  > "$out/configure.log" 2>&1 || { tail -40 "$out/configure.log"; exit 1; }
# The implicit test target depends on the command line program and every plugin.
cmake --build $build -j 16 --target $targets > "$out/build.log" 2>&1 ||
  { grep -E "error|Error" "$out/build.log" | head -40; exit 1; }
fem=$build/bin/fem
cases=$build/bench-cases
mkdir -p $cases

cat > $cases/barrel.yaml << 'EOF'
mesh: {generator: box, cells: hex8, size: [0.05, 0.05, 0.05], divisions: [32, 32, 32]}
materials: {brain: {type: neo_hookean, density: 1000, youngs_modulus: 3000, poisson_ratio: 0.49}}
blocks: [{element: hex8, material: brain}]
node_sets:
  bottom: {plane: {point: [0, 0, 0], normal: [0, 0, 1]}}
  top: {plane: {point: [0, 0, 0.05], normal: [0, 0, 1]}}
amplitudes: {ramp: {type: linear, start: 0, end: 1}}
boundary_conditions:
  - {set: bottom, fixed: [x, y, z]}
  - {set: top, fixed: [x, y]}
  - {set: top, displacement: {z: -0.01}, amplitude: ramp}
solver:
  type: static
  end_time: 1
  increments: 1
  newton: {residual_tolerance: 1.0e-8}
  linear: {preconditioner: multigrid, max_iterations: 5000}
output: {vtk: false}
EOF
# The same cube pressed 10 % over 0.5 s in implicit dynamics; the explicit critical step of the
# 32^3 mesh is 2.18e-4 s (fem check with solver.type explicit), 50x that is 0.0109 s.
sed -e '/^solver:/,$d' -e 's/z: -0.01}/z: -0.005}/' $cases/barrel.yaml > $cases/dynamic.yaml
cat >> $cases/dynamic.yaml << 'EOF'
solver:
  type: implicit_dynamic
  end_time: 0.5
  time_step: 0.0109
  newton: {residual_tolerance: 1.0e-8}
  linear: {preconditioner: multigrid}
output: {vtk: false}
EOF
# Seed 001's real-time mode: 10^3 cubes of 6 tetrahedra (6,000), one linearised solve of 20
# Jacobi-CG iterations per 1 ms step.
sed -e '/^solver:/,$d' -e 's/z: -0.01}/z: -0.005}/' -e 's/cells: hex8/cells: tet4/' \
  -e 's/element: hex8/element: tet4/' -e 's/\[32, 32, 32\]/[10, 10, 10]/' $cases/barrel.yaml \
  > $cases/realtime.yaml
cat >> $cases/realtime.yaml << 'EOF'
solver:
  type: implicit_dynamic
  end_time: 1.0
  time_step: 0.001
  newton: {method: linearized, linear_tolerance: 1.0e-12}
  linear: {preconditioner: jacobi, max_iterations: 20}
output: {vtk: false}
EOF

# One run: label, case, fem options... ; prints the numbers of its summary.json.
run() {
  local label=$1 case=$2
  shift 2
  local dir=$build/out-$label
  timeout 240 $fem run $cases/$case -q --output $dir "$@" > "$out/$label.log" 2>&1
  local status=$?
  python3 - "$label" "$status" "$dir/summary.json" << 'PY'
import json, sys
label, status, path = sys.argv[1], sys.argv[2], sys.argv[3]
try:
    s = json.load(open(path))
except Exception as e:
    print(f"{label}: exit {status}, no summary ({e})"); sys.exit()
i, t, m = s["implicit"], s["timing"], s["model"]
v = t["verbs"]
apply_rate = m["free_dofs"] * v["apply"]["calls"] / v["apply"]["s"] if v["apply"]["s"] > 0 else 0
print(f"{label}: {s['status']}, {s['backend']} {s['precision']}, {m['free_dofs']} free dofs, "
      f"{i['increments']} increments, {i['newton_iterations']} Newton, {i['linear_iterations']} CG "
      f"({i['linear_iterations'] / max(1, i['newton_iterations']):.1f} per Newton), "
      f"rel. residual {i['final_relative_residual']:.2e}; setup {t['setup_s']:.3f} s, "
      f"solve {t['solve_s']:.3f} s, total {t['total_s']:.3f} s, "
      f"{t['solve_s'] / i['increments'] * 1e3:.3f} ms per increment; "
      f"tangent actions {v['apply']['calls']} in {v['apply']['s']:.3f} s "
      f"({apply_rate:.3e} dof/s), preconditioner setup {t['preconditioner_setup_s']:.3f} s "
      f"[{i['preconditioner']}]")
print("    verbs: " + ", ".join(f"{k} {x['s']:.3f} s / {x['calls']}" for k, x in v.items() if x["calls"]))
PY
}

wanted() { [[ $parts == *" $1 "* ]]; }
{
  if wanted static; then
    echo "== static barrelling, hex8, double, relative residual 1e-8"
    for n in 32 64; do
      run cuda-mg-$n barrel.yaml --backend cuda --precision double --set mesh.divisions=$n
      run cuda-mg-$n-timed barrel.yaml --backend cuda --precision double --set mesh.divisions=$n \
        --time-verbs
      run cuda-jacobi-$n barrel.yaml --backend cuda --precision double --set mesh.divisions=$n \
        --set solver.linear.preconditioner=jacobi
      run openmp-mg-$n barrel.yaml --backend openmp --precision double --set mesh.divisions=$n
    done
  fi
  if wanted apply; then
    echo "== tangent action rate, 64^3 hex8 barrelling, double, exact verb times"
    run cuda-mg-64-timed barrel.yaml --backend cuda --precision double --set mesh.divisions=64 \
      --time-verbs
  fi
  if wanted kokkos; then
    echo "== Kokkos-CUDA: the implicit verbs against OpenMP (fem_tests_kokkos on the Cuda space)"
    timeout 400 $build/bin/fem_tests_kokkos > "$out/kokkos-tests.log" 2>&1
    grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED  \]|tests ran" "$out/kokkos-tests.log"
    grep -B2 -A6 "Failure" "$out/kokkos-tests.log" | head -40
    echo "== Kokkos-CUDA against CUDA: real-time mode, and the 64^3 cube (multigrid, double)"
    for p in single double; do
      run kokkos-rt-$p realtime.yaml --backend kokkos --precision $p
      run cuda-rt-$p realtime.yaml --backend cuda --precision $p
    done
    for b in kokkos cuda; do
      run $b-mg-64 barrel.yaml --backend $b --precision double --set mesh.divisions=64
      run $b-mg-64-timed barrel.yaml --backend $b --precision double --set mesh.divisions=64 \
        --time-verbs
    done
  fi
  if wanted dynamic; then
    echo "== implicit dynamics, 32^3 hex8, 50x the explicit step"
    run cuda-dyn-1e-8 dynamic.yaml --backend cuda --precision double
    run cuda-dyn-1e-6 dynamic.yaml --backend cuda --precision double \
      --set solver.newton.residual_tolerance=1e-6
    run openmp-dyn-1e-6 dynamic.yaml --backend openmp --precision double \
      --set solver.newton.residual_tolerance=1e-6
  fi
  if wanted realtime; then
    echo "== seed 001 real-time mode, 6,000 tet4, 20 Jacobi-CG per step, 1000 steps"
    for p in single double; do
      run cuda-rt-$p realtime.yaml --backend cuda --precision $p
      run openmp-rt-$p realtime.yaml --backend openmp --precision $p
    done
    echo "== the same with --time-verbs (a wait after every verb: exact verb times, slower)"
    run cuda-rt-single-timed realtime.yaml --backend cuda --precision single --time-verbs
  fi
} 2>&1 | tee "$out/implicit-bench.txt"
