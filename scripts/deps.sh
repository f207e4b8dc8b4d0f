#!/usr/bin/env bash
# Installs the Debian 12 packages Choreo needs, only those that are missing. Sourced by run.sh and test.sh.
set -euo pipefail

CHOREO_PACKAGES=(
  cmake ninja-build g++ pkg-config clang-format clang-tidy
  qt6-base-dev qt6-charts-dev qt6-svg-dev libqt6opengl6-dev libgl-dev
  libsimgrid-dev libboost-graph-dev nlohmann-json3-dev libopenblas-dev
  xvfb xauth poppler-utils clang libclang-rt-14-dev
  slurm-wlm munge
)

choreo_install_deps() {
  local missing=()
  for p in "${CHOREO_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    return 0
  fi
  echo "choreo: installing missing packages: ${missing[*]}"
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "choreo: need root (or sudo) to install ${missing[*]}" >&2; exit 1; }
    sudo=(sudo)
  fi
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
}
