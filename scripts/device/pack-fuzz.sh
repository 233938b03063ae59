#!/usr/bin/env bash
# Packs fem's fuzz harnesses (scripts/fuzz.sh's build, build-fuzz) with the shared libraries they
# load, the corpora and dictionaries into .deps/fuzz.tar.xz (git-ignored), for
# scripts/device/fuzz-many.sh to run on a machine with many cores through `device`:
#
#   scripts/device/pack-fuzz.sh                         # after scripts/fuzz.sh built build-fuzz
#   device --carry .deps/fuzz.tar.xz: FUZZERS=case_loader FUZZ_SECONDS=540 \
#     bash scripts/device/fuzz-many.sh
#
# glibc, libstdc++ and libgcc stay the machine's own (newer on the GPU machine); everything else
# the harnesses load (VTK, yaml-cpp, fmt, spdlog, HDF5, MPI, libomp ...) comes from this Debian.
set -euo pipefail
cd "$(dirname "$0")/../.."
build_dir=${FUZZ_BUILD_DIR:-build-fuzz}
stage=$(mktemp -d "${TMPDIR:-/tmp}/fem-fuzz-pack.XXXXXX")
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/fuzz/bin" "$stage/fuzz/lib"
cp -a "$build_dir"/bin/fuzz_* "$stage/fuzz/bin/"
for exe in "$build_dir"/bin/fuzz_*; do
  ldd "$exe" | awk '$3 ~ /^\// {print $3}'
done | sort -u | grep -Ev '/(libc|libm|libpthread|libdl|librt|ld-linux[^/]*|libstdc\+\+|libgcc_s)\.so' |
  while read -r lib; do cp -L "$lib" "$stage/fuzz/lib/"; done
cp -a fuzz/corpus fuzz/*.dict fuzz/lsan.supp "$stage/fuzz/"
mkdir -p .deps
tar -C "$stage" -cJf .deps/fuzz.tar.xz fuzz
du -h .deps/fuzz.tar.xz
