#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz) with clang in build-fuzz/ and runs each for a
# bounded time on a fresh corpus: the seeds of tests/fuzz/corpus/<target>/, the shipped
# scenario, sweep and cluster files and, when $RDMASIM_SHARED is set, the third-party traces
# and peer inputs there (read, never copied into the repository). Exits non-zero when a target
# crashes, printing the reproducer's path.
#
#   bash tools/fuzz.sh                      # every target, 30 s each
#   RDMASIM_FUZZ_SECONDS=3600 bash tools/fuzz.sh fuzz_scenario   # one target, one hour
#   build-fuzz/bin/fuzz_scenario build-fuzz/crashes/fuzz_scenario/crash-...   # replay
#
# Environment: RDMASIM_FUZZ_SECONDS (per target, default 30), RDMASIM_FUZZ_JOBS (build jobs,
# default nproc), RDMASIM_FUZZ_PARALLEL (targets run at once, default nproc), RDMASIM_SHARED
# (extra seeds), RDMASIM_FUZZ_SEED (libFuzzer's -seed; default random), RDMASIM_FUZZ_RUNS=ci
# (a fixed number of executions per target, about 30 s each on one core, still capped by
# RDMASIM_FUZZ_SECONDS), RDMASIM_FUZZ_TIMEOUT (a unit's longest wall time in seconds, default 60;
# raise it for long runs at low priority beside other work: the slowest legitimate units, such
# as a sweep point of 45,000 GPU servers, take 7-10 s under the sanitizers on an idle core).
#
# tools/test.sh runs it with a fixed seed and RDMASIM_FUZZ_RUNS=ci: the same inputs in the same
# order on every machine, so the suite's verdict does not depend on luck (a slower machine can
# only stop earlier on the same sequence). Exploration belongs to long runs with a random seed;
# what they find becomes a seed in tests/fuzz/corpus and a test.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${RDMASIM_FUZZ_SECONDS:-30}"
jobs="${RDMASIM_FUZZ_JOBS:-$(nproc)}"
all_targets=(fuzz_scenario fuzz_sweep fuzz_cluster fuzz_perftest fuzz_nccl_tests
             fuzz_import_hpcc fuzz_import_htsim fuzz_hpcc_config fuzz_chakra)
if [ $# -gt 0 ]; then targets=("$@"); else targets=("${all_targets[@]}"); fi

command -v clang++ >/dev/null || { echo "fuzz.sh: clang++ not found (bash tools/setup-deps.sh)" >&2; exit 1; }
echo "== libFuzzer build (clang, ASan + UBSan) in build-fuzz"
# -O1 -g1, as the sanitizer pass: fast to build, fast enough to fuzz, stacks with lines.
CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" -DRDMASIM_FUZZ=ON \
  -DRDMASIM_WERROR=ON >/dev/null
cmake --build build-fuzz -j "$jobs" --target "${targets[@]}"

shared="${RDMASIM_SHARED:-}"
seed_opt=()
[ -z "${RDMASIM_FUZZ_SEED:-}" ] || seed_opt=(-seed="$RDMASIM_FUZZ_SEED")
# Executions per target for RDMASIM_FUZZ_RUNS=ci: about 30 s each at the rates measured on a
# 2-core machine (docs/testing.md, "Fuzzing").
ci_runs() {
  case "$1" in
    fuzz_scenario) echo 60000 ;;
    fuzz_sweep) echo 100000 ;;
    fuzz_cluster) echo 150000 ;;
    fuzz_perftest) echo 30000 ;;
    fuzz_nccl_tests) echo 60000 ;;
    fuzz_import_hpcc) echo 15000 ;;
    fuzz_import_htsim) echo 50000 ;;
    fuzz_hpcc_config) echo 30000 ;;
    fuzz_chakra) echo 200000 ;;
    *) echo 50000 ;;
  esac
}
# Copies the existing files among $2... into corpus folder $1.
seed() {
  local dir="$1"
  shift
  for f in "$@"; do
    [ -f "$f" ] && cp "$f" "$dir/"
  done
  return 0
}

# Prepares target $1's corpus, runs it and writes what it printed to build-fuzz/$1.summary
# and its verdict (0: no crash) to build-fuzz/$1.status.
fuzz_one() {
  local t="$1"
  local corpus="build-fuzz/corpus/$t"
  local crashes="build-fuzz/crashes/$t"
  rm -rf "$corpus" "$crashes"
  mkdir -p "$corpus" "$crashes"
  seed "$corpus" tests/fuzz/corpus/"$t"/*
  case "$t" in
    fuzz_scenario) seed "$corpus" scenarios/*.json ;;
    fuzz_sweep) seed "$corpus" scenarios/sweeps/*.json ;;
    fuzz_cluster) seed "$corpus" scenarios/clusters/*.json ;;
    fuzz_perftest) [ -z "$shared" ] || seed "$corpus" "$shared"/traces/perftest_*.txt ;;
    fuzz_hpcc_config) [ -z "$shared" ] || seed "$corpus" "$shared"/peers/hpcc/configs/*.txt ;;
    fuzz_nccl_tests) [ -z "$shared" ] || seed "$corpus" "$shared"/traces/nccl-tests_*.txt ;;
    fuzz_import_hpcc)
      # The topology file, a line "---", the flow file (tests/fuzz/fuzz_import_hpcc.cpp). The
      # small pair only: a 320-host fabric takes 100 times longer per input.
      local h="$shared/peers/hpcc"
      if [ -n "$shared" ] && [ -f "$h/topo_incast8.txt" ] && [ -f "$h/flow_incast8.txt" ]; then
        { cat "$h/topo_incast8.txt"; echo "---"; cat "$h/flow_incast8.txt"; } >"$corpus/shared-incast8"
      fi
      ;;
    fuzz_import_htsim)
      # The fat-tree's k on the first line (k^3/4 = the matrix's Nodes), then the matrix.
      if [ -n "$shared" ] && [ -d "$shared/peers/htsim" ]; then
        for m in "$shared"/peers/htsim/*.cm; do
          # Not the 1,024-host matrix: small inputs keep the executions per second high.
          [ -f "$m" ] && [ "$(wc -c <"$m")" -le 8192 ] || continue
          local nodes k
          nodes="$(awk '$1 == "Nodes" { print $2; exit }' "$m")"
          k="$(awk -v n="$nodes" 'BEGIN { for (k = 2; k <= 64; k += 2) if (k * k * k / 4 == n) { print k; exit } }')"
          [ -n "$k" ] && { echo "$k"; cat "$m"; } >"$corpus/shared-$(basename "$m")"
        done
      fi
      ;;
  esac
  # JSON readers: their keys and tokens as a dictionary (tests/fuzz/json.dict).
  local dict=()
  case "$t" in
    fuzz_scenario | fuzz_sweep | fuzz_cluster) dict=(-dict=tests/fuzz/json.dict) ;;
  esac
  local runs_opt=()
  if [ "${RDMASIM_FUZZ_RUNS:-}" = ci ]; then
    runs_opt=(-runs="$(ci_runs "$t")")
  elif [ -n "${RDMASIM_FUZZ_RUNS:-}" ]; then
    runs_opt=(-runs="$RDMASIM_FUZZ_RUNS")
  fi
  local log="build-fuzz/$t.log" status=0
  {
    echo "== $t: ${seconds}s ${runs_opt[*]} ${seed_opt[*]} on $(ls "$corpus" | wc -l) seeds"
    # stdout closed (-close_fd_mask=1): the loader's warnings would flood the log. A unit slower
    # than RDMASIM_FUZZ_TIMEOUT seconds of wall time (default 60) or a process above 2 GiB
    # counts as a crash.
    if build-fuzz/bin/"$t" "$corpus" "${dict[@]}" "${seed_opt[@]}" "${runs_opt[@]}" \
        -max_total_time="$seconds" -timeout="${RDMASIM_FUZZ_TIMEOUT:-60}" \
        -rss_limit_mb=2048 -close_fd_mask=1 -print_final_stats=1 -artifact_prefix="$crashes/" \
        </dev/null >"$log" 2>&1; then
      # "Done 45876 runs in 21 second(s)", then the executions per second.
      grep -E '^Done [0-9]+ runs' "$log" | tail -1 || true
      grep -E '^stat::average_exec_per_sec' "$log" || true
    else
      status=1
      tail -n 60 "$log"
      echo "!! $t crashed; log $log; reproducer(s):"
      ls -1 "$crashes"/* 2>/dev/null || true
    fi
  } >"build-fuzz/$t.summary"
  echo "$status" >"build-fuzz/$t.status"
}

# The targets run side by side, RDMASIM_FUZZ_PARALLEL at a time (default: the cores; a fuzzer
# is one process on one core), and report in the order given. A fixed -runs count makes a
# target's inputs the same whatever runs beside it.
parallel="${RDMASIM_FUZZ_PARALLEL:-$(nproc)}"
for t in "${targets[@]}"; do
  rm -f "build-fuzz/$t.summary" "build-fuzz/$t.status"
  while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do wait -n || true; done
  fuzz_one "$t" &
done
wait
failed=()
for t in "${targets[@]}"; do
  cat "build-fuzz/$t.summary" 2>/dev/null || true
  [ "$(cat "build-fuzz/$t.status" 2>/dev/null)" = 0 ] || failed+=("$t")
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: crashes in ${failed[*]}" >&2
  exit 1
fi
echo "fuzz: no crash in ${targets[*]}"
