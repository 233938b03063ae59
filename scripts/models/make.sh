#!/usr/bin/env bash
# Writes the meshes of seed 002's three models and of the 3D plate with defects into
# cases/seed002/meshes/ (ignored by git), where cases/seed002/*.yaml read them.
#   scripts/models/make.sh                  # the full sizes (about 730 MB, under a minute)
#   scripts/models/make.sh --scale 0.01     # 1 % of the cells each, for a quick look
#   MODELS="weld gear" scripts/models/make.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="$(cd "$here/../.." && pwd)/cases/seed002/meshes"
mkdir -p "$out"
for model in ${MODELS:-weld gear geophysical plate_defect}; do
  python3 "$here/$model.py" "$@" -o "$out/$model.msh"
done
