#!/usr/bin/env bash
# Runs on the GPU machine: the node-ordering A/B of docs/performance.md ("Elastic waves in 2D"):
# seed 002's plane models on CUDA in single precision, with the wave solver's default ordering
# (RCM, nodes grouped by valence in windows of 256) against the file's own numbering, and the weld
# without its receivers; FEM_CUDA_WAVE_REPORT=1 prints the SELL-32 padding. Logs in $OUT.
#   OUT=gpu-out bash scripts/device/wave-ab.sh
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=$PWD/.deps/device/lib/x86_64-linux-gnu
bash scripts/device/build-waves.sh $OUT > /dev/null || exit 1
MODELS="weld gear geophysical" bash scripts/models/make.sh > /dev/null 2>&1 || exit 1
fem=build-waves-gpu/bin/fem
one() { label=$1; shift; FEM_CUDA_WAVE_REPORT=1 $fem run "$@" --set backend=cuda --set precision=single --set output.vtk=false > $OUT/$label.log 2>&1; echo "$label exit $?"; grep -E "cuda wave matrix|time steps|throughput" $OUT/$label.log | sed 's/^/   /'; }
one weld-grouped cases/seed002/weld.yaml
one weld-input cases/seed002/weld.yaml --set solver.node_ordering=input
one weld-grouped-norecv cases/seed002/weld.yaml --set 'output.receivers=[]'
one gear-grouped cases/seed002/gear.yaml --set solver.end_time=4.0e-5
one geo-grouped cases/seed002/geophysical.yaml --set solver.end_time=4.0
one plane-1200 cases/wave_plane.yaml --set 'output.receivers=[]' --set solver.end_time=4.0e-6
