#!/bin/bash
# One session of GPU measurements, as run on a lent GPU machine that has the CUDA toolkit and PyTorch
# but none of Choreo's desktop dependencies (docs/calibration.md, "Measured devices"). From the
# repository root:
#
#   OUT=/some/folder scripts/gpu-session.sh [JSON_PREFIX]
#
# JSON_PREFIX: a folder holding include/nlohmann/json.hpp where the machine has no nlohmann_json.
# Builds choreo-calibrate-gpu as a project of its own (calibrate/gpu), runs it quick and full with
# nvidia-smi logging power beside it, then scripts/gpu_reference.py on each document. Writes into $OUT:
# log.txt, smi.csv, quick.json, ref-quick.json, full.json, ref-full.json.
set -u
OUT=${OUT:?set OUT to the folder for the results}
JSON_PREFIX=${1:-}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/log.txt") 2>&1
stamp() { echo "=== $(date -u +%Y-%m-%dT%H:%M:%S.%3NZ) $*"; }

stamp machine
nvidia-smi
nvidia-smi -q -d POWER,CLOCK,PERFORMANCE | sed -n 1,90p
nvcc --version | tail -2
cmake --version | head -1
nproc

stamp build
BUILD=/tmp/choreo-gpu-build
args=(-S calibrate/gpu -B "$BUILD" -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release)
[ -n "$JSON_PREFIX" ] && args+=(-DCMAKE_PREFIX_PATH="$PWD/$JSON_PREFIX")
command -v ninja > /dev/null && args+=(-G Ninja)
EXE=$BUILD/choreo-calibrate-gpu
if ! { cmake "${args[@]}" && cmake --build "$BUILD" -j "$(nproc)"; }; then
    echo "standalone build failed"
    EXE=${CHOREO_GPU_EXE:-}
fi
[ -x "$EXE" ] || { echo "no choreo-calibrate-gpu to run"; exit 2; }

nvidia-smi --query-gpu=timestamp,power.draw,clocks.sm,clocks.mem,temperature.gpu,utilization.gpu \
    --format=csv,nounits -lms 100 > "$OUT/smi.csv" 2>&1 &
SMI=$!
trap 'kill $SMI 2>/dev/null' EXIT

stamp quick
timeout 150 "$EXE" --quick --out "$OUT/quick.json"
stamp "quick exited $?"
if [ -s "$OUT/quick.json" ]; then
    PYTHONUNBUFFERED=1 timeout 150 python3 scripts/gpu_reference.py "$OUT/quick.json" "$OUT/ref-quick.json"
    stamp "reference (quick) exited $?"
fi

stamp full
timeout "${FULL_LIMIT:-300}" "$EXE" --budget "${FULL_BUDGET:-120}" --out "$OUT/full.json"
stamp "full exited $?"
if [ -s "$OUT/full.json" ]; then
    PYTHONUNBUFFERED=1 timeout "${REF_LIMIT:-200}" python3 scripts/gpu_reference.py "$OUT/full.json" \
        "$OUT/ref-full.json" --layers --attention-sweep
    stamp "reference (full) exited $?"
fi
stamp done
