#!/usr/bin/env bash
# A calibration against traces in perftest's format: rdmasim-probe measures this machine's
# loopback (TCP) as perftest would print it, `calibrate` fits the model to the latency sweep,
# and `validate` predicts the bandwidth sweep with the fitted parameters, unfitted.
# (On a real cluster the traces are perftest's and nccl-tests' own: docs/calibration.md.)
source "$(dirname "$0")/../common.sh"
show "$bin/rdmasim-probe" lat --sizes 64:64KiB --iters 200 -o "$out/probe_lat.txt" > /dev/null
grep -E "^ *#bytes|^ *[0-9]+ " "$out/probe_lat.txt" | head -5
show "$bin/rdmasim-probe" bw --sizes 4KiB:64KiB --iters 128 -o "$out/probe_bw.txt" > /dev/null
show "$bin/rdmasim" calibrate --cluster scenarios/clusters/loopback-tcp.json \
  --trace "$out/probe_lat.txt" -o "$out/loopback/params.json" | grep -E "^parameters|^MAPE"
test -s "$out/loopback/params.json"
show "$bin/rdmasim" validate --cluster scenarios/clusters/loopback-tcp.json \
  --params "$out/loopback/params.json" --trace "$out/probe_bw.txt" \
  --report "$out/loopback-validate" | grep -E "^MAPE"
