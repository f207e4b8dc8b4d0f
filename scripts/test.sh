#!/usr/bin/env bash
# Every test: install what is missing, build with warnings as errors, check format and lint, run all
# CTest suites (models, sim, ui incl. the GUI smoke test), then build models and sim with
# AddressSanitizer and UndefinedBehaviorSanitizer and run their tests under them, then run the readers'
# libFuzzer harnesses for a minute each.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
choreo_install_deps

jobs=$(nproc)
cmake --preset ci >/dev/null
cmake --build --preset ci -j "$jobs"
scripts/lint.sh build/ci
ctest --preset ci -j "$jobs"

cmake --preset asan >/dev/null
cmake --build --preset asan -j "$jobs"
ctest --preset asan -j "$jobs" -L 'models|sim'

# The readers' libFuzzer harnesses, 60 s each (docs/reliability.md).
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j "$jobs"
ctest --preset fuzz -j "$jobs" -L fuzz
