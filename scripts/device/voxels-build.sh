# Sourced by the voxel scripts of scripts/device (voxels.sh, voxels-bunny.sh, voxels-ncu.sh):
# the output folder ($OUT, or ./gpu-out), the carried dependencies (.deps/device, from
# pack-deps.sh) and their libraries on the path, and voxel_build TARGET..., which configures
# build-voxels-gpu once (CUDA and OpenMP backends, no VTK or Kokkos; BUILD names another folder)
# and builds the targets, printing the errors if the build fails.
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
out=${OUT:-gpu-out}
mkdir -p "$out"
deps=$PWD/.deps/device
export LD_LIBRARY_PATH=$deps/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
build=${BUILD:-build-voxels-gpu}
voxel_build() {
  if [ ! -f "$build/CMakeCache.txt" ]; then
    local generator="Unix Makefiles"
    command -v ninja > /dev/null && generator=Ninja
    cmake -S . -B "$build" -G "$generator" -DCMAKE_BUILD_TYPE=Release -DFEM_WITH_VTK=OFF \
      -DFEM_WITH_KOKKOS=OFF -DFEM_WITH_CUDA=ON -DCMAKE_PREFIX_PATH="$deps" > "$out/configure.log" 2>&1 ||
      { tail -40 "$out/configure.log"; return 1; }
  fi
  cmake --build "$build" -j "$(nproc)" --target "$@" > "$out/build.log" 2>&1 ||
    { grep -E "error|Error" "$out/build.log" | head -40; return 1; }
}
