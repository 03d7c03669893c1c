#!/usr/bin/env bash
# Installs what rdmasim needs from Debian packages, only what is missing (idempotent).
# --tests: also what only the test suite needs (Chromium, for the browser test of rdmasim
# report); tools/test.sh passes it, tools/quickstart.sh does not.
set -euo pipefail
packages=(g++ cmake ninja-build libboost-graph-dev libboost-program-options-dev
          nlohmann-json3-dev libspdlog-dev catch2 python3-matplotlib
          libibverbs-dev openmpi-bin libopenmpi-dev
          python3-dev pybind11-dev  # the Python module (scenarios/api/python)
          libprotobuf-dev protobuf-compiler  # Chakra execution traces (scenarios/chakra)
          clang libclang-rt-dev)  # clang and its libFuzzer runtime: tools/fuzz.sh
if [ "${1:-}" = "--tests" ]; then
  packages+=(chromium  # the browser test of rdmasim report (tests/browser)
             python3-jsonschema)  # rdmasim schema checked by a real validator (tests/schema_test.cpp)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
