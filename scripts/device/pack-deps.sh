#!/usr/bin/env bash
# Packs the Debian-packaged libraries fem needs but the GPU machine lacks (CLI11, fmt, spdlog,
# nlohmann-json, METIS) into .deps/device, a git-ignored prefix that `device` runs carry. The layout
# mirrors /usr so the packages' own CMake config files resolve relative to it.
set -euo pipefail
cd "$(dirname "$0")/../.."
prefix=.deps/device
rm -rf "$prefix"
mkdir -p "$prefix/include" "$prefix/lib/x86_64-linux-gnu/cmake" "$prefix/share/cmake"
cp -a /usr/include/CLI /usr/include/nlohmann /usr/include/fmt /usr/include/spdlog "$prefix/include/"
cp -a /usr/lib/x86_64-linux-gnu/libfmt.so* /usr/lib/x86_64-linux-gnu/libspdlog.so* "$prefix/lib/x86_64-linux-gnu/"
cp -a /usr/lib/x86_64-linux-gnu/cmake/fmt /usr/lib/x86_64-linux-gnu/cmake/spdlog "$prefix/lib/x86_64-linux-gnu/cmake/"
cp -a /usr/share/cmake/CLI11 /usr/share/cmake/nlohmann_json "$prefix/share/cmake/"
# METIS (libmetis-dev) partitions meshes for MPI runs; the GPU machine has OpenMPI but not it.
cp -a /usr/include/metis.h "$prefix/include/"
cp -a /usr/lib/x86_64-linux-gnu/libmetis.so* "$prefix/lib/x86_64-linux-gnu/"
du -sh "$prefix"
