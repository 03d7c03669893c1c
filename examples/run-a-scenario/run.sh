#!/usr/bin/env bash
# Run a scenario and read its outputs: the quickstart's 4-to-1 incast beside a permutation,
# then the slowest flows from flows.csv and the busiest link direction from links.csv.
source "$(dirname "$0")/../common.sh"
show "$bin/rdmasim" run scenarios/quickstart.json -q -o "$out/quickstart"
ls "$out/quickstart"
echo
echo "# the three slowest flows (flows.csv: slowdown = fct_ns / ideal_fct_ns)"
python3 - "$out/quickstart/flows.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
rows.sort(key=lambda r: float(r["slowdown"]), reverse=True)
for r in rows[:3]:
    print(f"flow {r['flow_id']:>2} {r['tag']:<12} {r['src']:>4} -> {r['dst']:<4} "
          f"{int(r['bytes']):>8} B  {float(r['fct_ns'])/1000:8.1f} us  "
          f"slowdown {float(r['slowdown']):5.2f}")
assert len(rows) == 20 and all(r["completed"] == "1" for r in rows), "20 completed flows"
PY
echo
echo "# the link direction with the deepest queue (links.csv)"
python3 - "$out/quickstart/links.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
top = max(rows, key=lambda r: int(r["max_queue_bytes"]))
print(f"{top['from']} -> {top['to']}: peak queue {int(top['max_queue_bytes'])} B, "
      f"{top['tail_drops']} tail drops")
PY
echo
echo "# the headline results (summary.json)"
python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['results']; print({k: r[k] for k in ('stop_reason','flows_completed','fct_p50_ns','fct_p99_ns')})" "$out/quickstart/summary.json"
