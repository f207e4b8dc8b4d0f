#!/usr/bin/env bash
# Runs every libFuzzer harness (fuzz/) for SECONDS each (default 3600), one after another, on its seeds and
# on what earlier runs found (build/fuzz/fuzz/corpus); prints each one's executions and what it found.
# docs/reliability.md reports the figures. Usage: scripts/fuzz.sh [SECONDS] [HARNESS...]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
choreo_install_deps
seconds=${1:-3600}
shift || true
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=(scenario validation_csv profile catalog result worker_request)
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j "$(nproc)"
for h in "${harnesses[@]}"; do
  echo "== fuzz_$h for $seconds s"
  build/fuzz/fuzz/fuzz_"$h" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix=build/fuzz/fuzz/"$h"- build/fuzz/fuzz/corpus/"$h" fuzz/corpus/"$h" 2>&1 |
    grep -E "stat::number_of_executed_units|stat::peak_rss_mb|ERROR|SUMMARY|Test unit written|DONE" || true
done
