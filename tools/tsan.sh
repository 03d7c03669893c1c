#!/usr/bin/env bash
# Runs shipped scenarios split over three partitions on three threads under ThreadSanitizer:
# any data race between the partitions' threads (state two partitions' handlers share without
# going through the mailboxes, the per-partition copies or the windows' barrier) fails it, and
# the outputs and the timeline (`--timeline`) must equal the one-thread run's of the Release
# build (build/bin/rdmasim, which it builds if missing). Called by tools/test.sh; `bash tools/tsan.sh [SCENARIO...]` alone.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs="$(nproc)"
# -O1 -g1: a third of -O2's compile time under TSan, and lines in the reports.
cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" \
  -DRDMASIM_WERROR=ON -DRDMASIM_BUILD_TESTS=OFF -DRDMASIM_TSAN=ON >/dev/null
cmake --build build-tsan -j "$jobs" --target rdmasim
if [ ! -x build/bin/rdmasim ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build -j "$jobs" --target rdmasim
fi
# Each a mechanism that acts across partitions: lossy go-back-N with a timeseries sampler
# (boundary events), PFC with the deadlock detector, a link failure that deadlocks (a stop from
# a boundary event), pause storms and the watchdog, DCQCN with its rate log, HPCC/DCTCP/TIMELY
# with in-band telemetry records, InfiniBand credits and congestion control; collectives (each
# rank's posts in its partition, completions counted by every partition, a sweep's sizes;
# SHARP's hosts counting their results where their NICs are); kernel TCP (each CPU's stack
# where its NICs are, a message's delivery and completion in two partitions at one moment);
# data-parallel training (buckets' all-reduces rank by rank, a rank starting the next where it
# is, the row's end found by the partition of its last rank); tensor, pipeline and
# data-parallel training (each replica's program where its server is, the two sides of a
# pipeline transfer apart, GPUs joining their data group's all-reduce where they are), on a
# quarter of its GPUs. An entry is a scenario's name, then any `run` options (`--set k=v`).
scenarios=("$@")
if [ ${#scenarios[@]} -eq 0 ]; then
  scenarios=(quickstart roce-incast-pfc deadlock-routing-loop pause-storm-watchdog
             roce-dcqcn-convergence cc-compare-incast ib-cc-victim alltoall-moe
             allreduce-sweep-roce-16x8 ib-sharp-allreduce rdma-vs-tcp-scaling
             training-step-dp16
             "training-step-tp8-pp4-dp16 --set topology.nodes.count=16 --set workload.training.parallel.dp=4 --set workload.training.parallel.microbatches=2")
fi
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
failed=0
for entry in "${scenarios[@]}"; do
  read -ra words <<<"$entry"
  s="${words[0]}"
  options=("${words[@]:1}")
  file="scenarios/$s.json"
  # Timelines in a folder of their own: a list of fabrics writes one per fabric (t-roce.json).
  mkdir -p "$out/$s-one-timeline" "$out/$s-threads-timeline"
  build/bin/rdmasim run "$file" "${options[@]}" -q --out "$out/$s-one" \
    --timeline "$out/$s-one-timeline/t.json" >/dev/null 2>"$out/$s-one.log"
  if ! TSAN_OPTIONS="halt_on_error=1 exitcode=66" \
       build-tsan/bin/rdmasim run "$file" "${options[@]}" -q --out "$out/$s-threads" \
         --partitions 3 --threads 3 \
         --timeline "$out/$s-threads-timeline/t.json" >"$out/$s.log" 2>&1; then
    echo "tsan: $s failed under ThreadSanitizer:"
    cat "$out/$s.log"
    failed=1
    continue
  fi
  if ! diff -r -q -x run_stats.json "$out/$s-one" "$out/$s-threads" ||
     ! diff -r -q "$out/$s-one-timeline" "$out/$s-threads-timeline"; then
    echo "tsan: $s on 3 threads differs from the one-thread run"
    failed=1
    continue
  fi
  echo "tsan: $s: no race, the same outputs on 3 threads"
done
exit "$failed"
