#!/usr/bin/env bash
# The main job: install what is missing, build, then open the desktop program on the default scenario
# where a display exists, else run it headless and write the default report (out/default-report.pdf).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
choreo_install_deps

cmake --preset dev >/dev/null
cmake --build --preset dev --target choreo choreo-sim

scenario=assets/scenarios/default.json
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  exec build/dev/app/choreo "$scenario"
fi
mkdir -p out
build/dev/app/choreo-sim run "$scenario"
build/dev/app/choreo-sim report "$scenario" -o out/default-report.pdf
