# Sourced by the scripts/device/*-compare.sh, openmp-waiting.sh and devices-check.sh scripts (run on the GPU
# machine through `device`, carrying .deps/device): from the repository root, with $build set,
# sets $out (logs, $OUT or ./gpu-out) and the library path of .deps/device, then
#   device_build <cmake options...> -- <targets...>
# configures $build (Release, no VTK, Kokkos or Python, .deps/device first) and builds the
# targets (all if none), printing the error lines and failing the script if either fails.
out=${OUT:-gpu-out}
mkdir -p "$out"
deps=$PWD/.deps/device
export LD_LIBRARY_PATH=$deps/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}

device_build() {
  local options=() targets=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do options+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  for target in "$@"; do targets+=(--target "$target"); done
  cmake -S . -B "$build" -G "Unix Makefiles" -DCMAKE_BUILD_TYPE=Release -DFEM_WITH_VTK=OFF \
    -DFEM_WITH_KOKKOS=OFF -DFEM_WITH_PYTHON=OFF -DCMAKE_PREFIX_PATH="$deps" "${options[@]}" \
    > "$out/configure.log" 2>&1 || { tail -40 "$out/configure.log"; exit 1; }
  cmake --build "$build" -j 16 "${targets[@]}" > "$out/build.log" 2>&1 ||
    { grep -E "error|Error" "$out/build.log" | head -40; exit 1; }
}
