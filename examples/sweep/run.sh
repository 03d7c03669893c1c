#!/usr/bin/env bash
# A sweep with its plot: ECN kmin on an 8-to-1 incast under DCQCN, 4 points on 2 cores,
# results.csv, then a plot of the p99 FCT against kmin.
source "$(dirname "$0")/../common.sh"
show "$bin/rdmasim" sweep examples/sweep/incast-kmin.json --out "$out/sweep" -j 2
echo
echo "# results.csv (a row per point)"
python3 - "$out/sweep/results.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for r in rows:
    print(f"kmin {r['kmin']:>6}: FCT p99 {float(r['fct_p99_ns'])/1000:8.1f} us, "
          f"pause frames {r.get('pause_frames', '?')}, status {r['status']}")
assert len(rows) == 4 and all(r["status"] == "ok" for r in rows)
PY
show "$bin/rdmasim" plot "$out/sweep/results.csv" --x kmin --y fct_p99_ns -o "$out/sweep/fct-p99.png"
test -s "$out/sweep/fct-p99.png"
