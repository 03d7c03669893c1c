#!/usr/bin/env bash
# Installs what is missing, builds everything with warnings as errors, runs the whole test
# suite, runs it again under AddressSanitizer + UndefinedBehaviorSanitizer, runs scenarios on
# threads under ThreadSanitizer (tools/tsan.sh), then runs each libFuzzer target for a bounded
# time (tools/fuzz.sh; any crash fails).
# Tests that need third-party data read it from $RDMASIM_SHARED (../shared); without it they
# are reported as skipped.
#
# --fast: the Release build and the fast tiers only ([unit], [mechanism], [scenario], [cli]
# without [slow]; no golden fingerprints, no sanitizers, no fuzzing): about a minute of tests
# on 2 cores, for the edit-build-test loop. CI runs the whole script without it.
set -euo pipefail
cd "$(dirname "$0")/.."
fast=0
case "${1:-}" in
  --fast) fast=1 ;;
  "") ;;
  *) echo "usage: bash tools/test.sh [--fast]" >&2; exit 2 ;;
esac
bash tools/setup-deps.sh --tests
jobs="$(nproc)"

if [ "$fast" = "1" ]; then
  echo "== Release build (-Werror) and the fast test tiers"
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DRDMASIM_WERROR=ON \
    -DRDMASIM_BUILD_TESTS=ON -DRDMASIM_SANITIZE=OFF >/dev/null
  cmake --build build -j "$jobs" --target rdmasim rdmasim_tests rdmasim_api_tests
  exec build/bin/rdmasim_tests "~[slow]"
fi

# Each stage says how long it took (docs/testing.md keeps the figures).
mark=$SECONDS
took() {
  echo "== $1: $((SECONDS - mark)) s"
  mark=$SECONDS
}

echo "== Release build (-Werror) and tests"
# Every option the suite relies on is set here: build/ may have been configured by
# tools/quickstart.sh without tests. A run that finds no test fails (--no-tests=error).
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DRDMASIM_WERROR=ON \
  -DRDMASIM_BUILD_TESTS=ON -DRDMASIM_SANITIZE=OFF >/dev/null
cmake --build build -j "$jobs"
took "Release build"
(cd build && ctest --output-on-failure --no-tests=error -j "$jobs")
took "Release tests"

if [ "${RDMASIM_SKIP_SANITIZERS:-0}" != "1" ]; then
  echo "== AddressSanitizer + UndefinedBehaviorSanitizer build and tests"
  # The simulation core (sim, topologies, models: every packet) at -O2, the rest (loader, CLI,
  # test files: once per test) at -Og, which under ASan compiles in about 60 % of the -O1 time
  # and still inlines the small functions the core calls; -g1 keeps lines in the reports
  # (RDMASIM_HOT_CODE_FLAGS, CMakeLists.txt).
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-Og -g1" \
    -DRDMASIM_HOT_CODE_FLAGS=-O2 -DRDMASIM_WERROR=ON -DRDMASIM_BUILD_TESTS=ON \
    -DRDMASIM_SANITIZE=ON >/dev/null
  cmake --build build-asan -j "$jobs" --target rdmasim rdmasim_tests rdmasim_api_tests
  took "sanitizer build"
  (cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
     ctest --output-on-failure --no-tests=error -LE "golden|install|python|examples|browser" -j "$jobs")
  took "sanitizer tests"
fi

if [ "${RDMASIM_SKIP_TSAN:-0}" != "1" ]; then
  echo "== ThreadSanitizer: scenarios split over threads (tools/tsan.sh)"
  bash tools/tsan.sh
  took "ThreadSanitizer build and scenarios"
fi

if [ "${RDMASIM_SKIP_FUZZ:-0}" != "1" ]; then
  # A fixed seed and a fixed number of executions per target (about 30 s each, capped at 60 s):
  # the same inputs on every machine, so the verdict is reproducible (tools/fuzz.sh).
  echo "== libFuzzer targets (tools/fuzz.sh)"
  RDMASIM_FUZZ_JOBS="$jobs" RDMASIM_FUZZ_SEED=1 RDMASIM_FUZZ_RUNS=ci RDMASIM_FUZZ_SECONDS=60 \
    bash tools/fuzz.sh
  took "libFuzzer build and fuzzing"
fi
