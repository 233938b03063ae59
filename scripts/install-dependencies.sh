#!/usr/bin/env bash
# Installs what fem needs to build and test on Debian 12, from Debian's own packages.
# Safe to run again: apt skips what is already there. Needs root (or sudo).
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  # The compiler cache: the test script's four builds of fem share most of their objects.
  ccache
  libyaml-cpp-dev libeigen3-dev libvtk9-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libcli11-dev libfmt-dev libspdlog-dev nlohmann-json3-dev
  libtrilinos-kokkos-dev
  libhypre-dev libsuitesparse-dev libopenmpi-dev openmpi-bin libmetis-dev libhdf5-dev
  # An optimised BLAS under CHOLMOD's supernodal factorisation (the alternatives system points
  # libblas.so.3 at it; with Debian's reference BLAS implicit decks ran 1.5-2.3x slower), threaded
  # by OpenMP like fem. BLIS rather than OpenBLAS: OpenBLAS reserves about 300 MB of address space
  # when it loads, which a `ulimit -v` then denies the model (docs/implicit.md).
  libblis4-openmp
  clang-format
  clang-14 libclang-rt-14-dev libomp-14-dev
  python3-matplotlib calculix-ccx
  python3-dev python3-numpy pybind11-dev python3-meshio python3-h5py python3-venv python3-pip python3-setuptools python3-wheel
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "all build dependencies are installed"
  exit 0
fi

sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
echo "installing: ${missing[*]}"
"${sudo_cmd[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
