#!/usr/bin/env bash
# The plugin SDK, end to end, as a third party meets it:
#   1. install fem from a build tree into a temporary prefix, then MOVE the prefix (the
#      installation must be relocatable) and check that no installed file names the build
#      machine's paths;
#   2. build plugins/ against the moved installation as a fresh CMake project;
#   3. run its tests (ctest: hex8_gauss3 tables and patch test, hgo_fibre against the built-in
#      neo-Hookean, loader messages, backend agreement);
#   4. run every case in plugins/cases with the installed `fem` on every backend that can run
#      here;
#   5. copy plugins/template_material (under 60 lines in all) and plugins/hex8_gauss3 each into a
#      folder of its own, build each alone against the installation and run a case with it on
#      every backend (agreeing with openmp), as a user starts a material or an element;
#   6. ask for a material built for openmp only on another backend (must fail, exit 2).
#
# Usage: scripts/test-plugins.sh [fem build dir (default: build)] [extra cmake args for plugins/]
# Set FEM_TEST_REQUIRE_BACKENDS="kokkos cuda" to fail unless those backends run here (otherwise
# the agreement checks skip a backend that cannot run), FEM_TEST_PLUGINS_KEEP=1 to keep the
# temporary folder, FEM_PLUGINS_PREFIX_PATH to where fem's dependencies are if not in the system
# (the GPU machine: scripts/device/plugins-check.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
build_dir=$(cd "${1:-build}" && pwd)
shift || true
plugin_cmake_args=("$@")
work=$(mktemp -d "${TMPDIR:-/tmp}/fem-plugins.XXXXXX")
[ "${FEM_TEST_PLUGINS_KEEP:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT
export OMP_WAIT_POLICY=PASSIVE

echo "== install into a temporary prefix, then move it"
cmake --install "$build_dir" --prefix "$work/staging" > "$work/install.log"
mv "$work/staging" "$work/fem"
prefix=$work/fem
if grep -rIl -e "$src" -e "$build_dir" -e "$work/staging" "$prefix"; then
  echo "error: the files above name paths of the build machine (installation not relocatable)"
  exit 1
fi
ls "$prefix/lib/cmake/fem/femConfig.cmake" "$prefix/lib/cmake/fem/femConfigVersion.cmake" > /dev/null
fem=$prefix/bin/fem
backends=$("$fem" plugins | awk '/^backends:/{on=1; next} /^[a-z]+:/{on=0} on && !/unavailable/ {print $1}')
echo "backends that can run here: $(echo $backends)"
# A backend that must take part (CI: kokkos; the GPU machine: cuda), so that the agreement
# checks below cannot pass by skipping it.
for b in ${FEM_TEST_REQUIRE_BACKENDS:-}; do
  if ! grep -qx "$b" <<<"$backends"; then
    echo "error: FEM_TEST_REQUIRE_BACKENDS names '$b', but the installed fem cannot run it here:"
    "$fem" plugins | sed -n '/^backends:/,/^elements:/p'
    exit 1
  fi
done

echo "== build plugins/ against $prefix"
generator=()
command -v ninja > /dev/null && generator=(-G Ninja)
cmake -S plugins -B "$work/build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix${FEM_PLUGINS_PREFIX_PATH:+;$FEM_PLUGINS_PREFIX_PATH}" "$@" > "$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; exit 1; }
cmake --build "$work/build" -j "$(nproc)"
ctest --test-dir "$work/build" --output-on-failure -j "$(nproc)"
"$work/build/tests/fem_plugin_tests" --gtest_filter='Backends.PluginCasesAgreeWithOpenMP' |
  grep -E "vs openmp|SKIPPED|Skipped" || true

echo "== run plugins/cases with the installed fem"
export FEM_PLUGIN_PATH=$work/build
for case in plugins/cases/*.yaml; do
  name=$(basename "$case" .yaml)
  for backend in $backends; do
    "$fem" run "$case" -q --backend "$backend" --output "$work/runs/$name.$backend"
    test -s "$work/runs/$name.$backend/summary.json"
    echo "$name on $backend: done"
  done
done

# built_alone <plugin folder> <case> <history> [fem run args]: copy the folder out of the
# repository, build it as a project of its own against the installation, run the case with only
# that build on the plugin path on every backend here, and compare the last row of the history
# (displacements and reaction forces) with openmp's, to single-precision round-off.
built_alone() {
  local folder=$1 case=$2 history=$3
  shift 3
  local name own
  name=$(basename "$folder")
  own=$work/own/$name
  mkdir -p "$own"
  cp "$folder"/* "$own"
  cmake -S "$own" -B "$own/build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$prefix${FEM_PLUGINS_PREFIX_PATH:+;$FEM_PLUGINS_PREFIX_PATH}" \
    "${plugin_cmake_args[@]}" > "$own/configure.log" 2>&1 || { cat "$own/configure.log"; exit 1; }
  cmake --build "$own/build" -j "$(nproc)" > "$own/build.log" || { cat "$own/build.log"; exit 1; }
  for backend in openmp $(tr ' ' '\n' <<<"$backends" | grep -vx openmp); do
    FEM_PLUGIN_PATH=$own/build "$fem" run "$case" -q --backend "$backend" "$@" \
      --output "$own/run.$backend" > "$own/run.$backend.log" ||
      { cat "$own/run.$backend.log"; exit 1; }
    tail -n 1 "$own/run.$backend/$history.csv" > "$own/$backend.last"
    if ! awk -F, 'NR == FNR { a[FNR] = $0; next }
        { split(a[FNR], r, ","); for (i = 3; i <= NF; ++i) {
            d = r[i] - $i; d = d < 0 ? -d : d; s = (r[i] < 0 ? -r[i] : r[i]) + ($i < 0 ? -$i : $i)
            if (d > 1e-5 * s + 1e-9) { print "column " i ": " r[i] " vs " $i; bad = 1 } } }
        END { exit bad }' "$own/openmp.last" "$own/$backend.last"; then
      echo "error: $name built alone: $(basename "$case") on $backend disagrees with openmp"
      exit 1
    fi
    echo "$name built alone, $(basename "$case") on $backend: agrees with openmp"
  done
}

echo "== a material and an element in folders of their own, copied out of plugins/, built alone"
lines=$(cat plugins/template_material/CMakeLists.txt plugins/template_material/*.hpp | wc -l)
echo "the smallest complete material: $lines lines (header and CMakeLists.txt)"
if [ "$lines" -ge 60 ]; then
  echo "error: the template material has $lines lines; docs/plugins.md promises under 60"
  exit 1
fi
built_alone plugins/template_material plugins/cases/template_cube.yaml top
built_alone plugins/hex8_gauss3 plugins/cases/hex8_gauss3_cube.yaml top

echo "== a material built for openmp only, asked for on another backend"
other=cuda
for b in $backends; do [ "$b" != openmp ] && other=$b; done
cat > "$work/openmp_only.yaml" <<CASE
backend: $other
mesh: {generator: box, divisions: 1}
materials: {m: {type: openmp_only, youngs_modulus: 1000, poisson_ratio: 0.3}}
blocks: [{element: hex8, material: m}]
solver: {end_time: 1}
CASE
set +e
msg=$(FEM_PLUGIN_PATH=$work/build/tests/openmp_only "$fem" check "$work/openmp_only.yaml" 2>&1)
rc=$?
set -e
echo "$msg" | head -2
if [ $rc -ne 2 ] || ! grep -q "no build for backend '$other'" <<<"$msg"; then
  echo "error: expected exit code 2 and a missing-build message, got exit code $rc"
  exit 1
fi
echo "plugin checks passed"
