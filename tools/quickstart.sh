#!/usr/bin/env bash
# Installs what is missing, builds rdmasim (Release) and runs the quickstart scenario.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DRDMASIM_BUILD_TESTS=OFF >/dev/null
cmake --build build --target rdmasim -j "$(nproc)"
build/bin/rdmasim run scenarios/quickstart.json --out out/quickstart
