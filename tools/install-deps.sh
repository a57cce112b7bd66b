#!/usr/bin/env bash
# Installs the Debian 12 packages nbody-lab builds and runs with, if any is missing.
# Called by `make` (once per build folder) and by .ci/run. Needs root or sudo for apt-get.
set -euo pipefail
packages=(
  cmake g++ make git pkg-config
  catch2 libcli11-dev nlohmann-json3-dev libboost-dev libqd-dev librandom123-dev libhdf5-dev
  libopenmpi-dev openmpi-bin
  clang libclang-rt-14-dev libomp-dev
  ocl-icd-opencl-dev opencl-c-headers opencl-clhpp-headers pocl-opencl-icd
  ffmpeg
  python3 python3-venv
  latexmk texlive-latex-recommended texlive-fonts-recommended lmodern poppler-utils
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null; then sudo="sudo"; else
    echo "install-deps: need root to install: ${missing[*]}" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
