#!/usr/bin/env bash
# Regenerates tests/golden/results.json (the figures tst_golden holds the tree to) from this tree's
# choreo-sim, and shows what moved. Run it after a change that moves figures on purpose, and commit the diff
# with the reason.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
choreo_install_deps
cmake --preset dev >/dev/null
cmake --build --preset dev -j "$(nproc)" --target tst_golden
CHOREO_GOLDEN_WRITE=1 build/dev/tests/sim/tst_golden
git diff --stat -- tests/golden/results.json
