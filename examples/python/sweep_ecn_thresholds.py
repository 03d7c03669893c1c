#!/usr/bin/env python3
"""Sweeps the ECN marking threshold through rdmasim's Python API and plots FCT percentiles.

WebSearch flows at 30 % load on the ns-3 HPCC peer's 320-host Clos under DCQCN
(scenarios/cc-compare-websearch.json), with kmin swept and kmax fixed at 1600 KB: each point
is one Simulation, its flows read from Results.flow_columns() (pandas.DataFrame takes them as
they are), the slowdown percentiles printed and plotted.

Usage (from the repository, after the build):
  PYTHONPATH=build/python python3 examples/python/sweep_ecn_thresholds.py \
      [--duration 200us] [--kmin 20KB 100KB 400KB] [-o ecn-fct.png]
"""
import argparse
import os
import sys

import rdmasim

HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIO = os.path.join(HERE, "..", "..", "scenarios", "cc-compare-websearch.json")


def percentile(values, p):
    """The p-th percentile (nearest rank) of a non-empty list."""
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * p // 100))  # ceil(n p / 100)
    return ordered[int(rank) - 1]


def run_point(kmin, duration):
    sim = rdmasim.Simulation.from_file(SCENARIO, sets=[
        "fabric.cc.algorithm=dcqcn",
        "fabric.ecn.kmin=" + kmin,
        "fabric.ecn.kmax=1600KB",
        "workload.poisson.duration=" + duration,
    ])
    results = sim.run()
    flows = results.flow_columns()
    slowdown = [fct / ideal for fct, ideal, done in
                zip(flows["fct_ps"], flows["ideal_fct_ps"], flows["completed"])
                if done and ideal > 0]
    return {
        "kmin": kmin,
        "flows": len(slowdown),
        "p50": percentile(slowdown, 50),
        "p95": percentile(slowdown, 95),
        "p99": percentile(slowdown, 99),
        "pause_frames": results.results.get("pfc", {}).get("pause_frames", 0),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--duration", default="200us", help="WebSearch arrivals for this long")
    ap.add_argument("--kmin", nargs="+", default=["20KB", "100KB", "400KB", "800KB"])
    ap.add_argument("-o", "--output", default="ecn-fct.png", help="the plot (PNG)")
    args = ap.parse_args()

    points = []
    print(f"{'kmin':>8} {'flows':>6} {'p50':>7} {'p95':>7} {'p99':>7} {'pauses':>7}"
          "  (FCT slowdown: FCT / ideal)")
    for kmin in args.kmin:
        p = run_point(kmin, args.duration)
        points.append(p)
        print(f"{p['kmin']:>8} {p['flows']:>6} {p['p50']:7.2f} {p['p95']:7.2f} {p['p99']:7.2f} {p['pause_frames']:>7}")

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6, 4))
    x = range(len(points))
    for q in ("p50", "p95", "p99"):
        ax.plot(x, [p[q] for p in points], marker="o", label=q)
    ax.set_xticks(list(x), [p["kmin"] for p in points])
    ax.set_xlabel("ECN kmin (kmax 1600 KB)")
    ax.set_ylabel("FCT slowdown")
    ax.set_title(f"WebSearch 30 % under DCQCN, {args.duration} of arrivals")
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(args.output, dpi=120)
    print(f"plot: {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
