#!/usr/bin/env bash
# A PFC deadlock found and fixed: two failed links leave valley routes between two leaves;
# `check` finds the cyclic buffer dependency, the run deadlocks and names the cycle, and
# up*/down* routing on the same fabric completes every flow.
source "$(dirname "$0")/../common.sh"
show "$bin/rdmasim" check scenarios/deadlock-valley-routes.json > "$out/check.txt"
grep -E "valid|cycle" "$out/check.txt"
echo
show "$bin/rdmasim" run scenarios/deadlock-valley-routes.json -q -o "$out/valley"
python3 - "$out/valley" <<'PY'
import json, sys
results = json.load(open(sys.argv[1] + "/summary.json"))["results"]
deadlocks = json.load(open(sys.argv[1] + "/deadlocks.json"))
print("stop reason:", results["stop_reason"], "| flows completed:", results["flows_completed"])
for d in deadlocks:
    print("deadlock cycle:", " -> ".join(d["cycle"]))
assert results["stop_reason"] == "deadlock" and deadlocks, "the deadlock is found"
PY
echo
echo "# the fix: up*/down* routing, no valley"
show "$bin/rdmasim" run scenarios/deadlock-valley-routes.json -q --set routing=up-down -o "$out/updown"
python3 - "$out/updown" <<'PY'
import json, sys
results = json.load(open(sys.argv[1] + "/summary.json"))["results"]
print("stop reason:", results["stop_reason"], "| flows completed:", results["flows_completed"])
assert results["stop_reason"] == "workload-done"
PY
