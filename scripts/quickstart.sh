#!/usr/bin/env bash
# The first README command: install what is missing, build, and run the default case.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-dependencies.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build
build/bin/fem run cases/cube_compression.yaml --output results/cube_compression
