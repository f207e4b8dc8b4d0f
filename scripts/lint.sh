#!/usr/bin/env bash
# Format and static checks on Choreo's own sources; needs a configured build folder ($1, for
# compile_commands.json). Run by scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/ci}
mapfile -t sources < <(git ls-files 'models/*.cpp' 'models/*.h' 'sim/*.cpp' 'sim/*.h' 'ui/*.cpp' 'ui/*.h' \
                                    'app/*.cpp' 'app/*.h' 'tests/*.cpp' 'tests/*.h' 'calibrate/*.cpp' 'calibrate/*.h' \
                                    'calibrate/*.cu' 'fuzz/*.cpp' 'fuzz/*.h')
clang-format --dry-run --Werror "${sources[@]}"
echo "clang-format: ${#sources[@]} files formatted"
# clang-tidy on the layers without Qt (the Qt layers' moc output makes it slow and noisy on 2 cores). It
# reads GCC's compile commands, so GCC-only warning flags (-Wno-restrict, CMakeLists.txt) must not stop it.
mapfile -t tidy < <(git ls-files 'models/*.cpp' 'sim/*.cpp' 'calibrate/cpu/*.cpp')
# One clang-tidy per file, as many at once as there are cores (the files are independent).
log=$(mktemp)
if ! printf '%s\0' "${tidy[@]}" |
  xargs -0 -n 1 -P "$(nproc)" clang-tidy -p "$build" --quiet --warnings-as-errors='*' \
    --extra-arg=-Wno-unknown-warning-option >"$log" 2>&1; then
  grep -v "warnings generated" "$log"
  exit 1
fi
echo "clang-tidy: ${#tidy[@]} files clean"
