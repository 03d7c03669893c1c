#!/usr/bin/env python3
"""Draws a calibration report (report.csv of `rdmasim calibrate` / `validate`): per trace,
measured and simulated values against message size on log axes (perftest latency or
bandwidth, nccl-tests collective time), sizes below --min-size marked. `rdmasim calibrate` runs this.

usage: plot_calibration.py REPORT.csv -o OUT.png
Exit codes as rdmasim's: 0 ok, 1 matplotlib missing, 2 bad input.
"""
import argparse
import csv
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("report")
    ap.add_argument("-o", "--output", required=True)
    a = ap.parse_args()
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot_calibration.py: matplotlib is missing (python3-matplotlib)", file=sys.stderr)
        return 1
    curves = {}
    try:
        with open(a.report, newline="") as f:
            for row in csv.DictReader(f):
                key = (row["file"], row["kind"], row["switches"])
                curves.setdefault(key, []).append(
                    (int(row["bytes"]), float(row["measured"]), float(row["simulated"]),
                     row["in_range"] == "1"))
    except (OSError, KeyError, ValueError) as e:
        print(f"plot_calibration.py: {a.report}: {e}", file=sys.stderr)
        return 2
    if not curves:
        print(f"plot_calibration.py: {a.report}: no rows", file=sys.stderr)
        return 2
    fig, axes = plt.subplots(1, len(curves), figsize=(5.5 * len(curves), 4.2), squeeze=False)
    for ax, ((name, kind, switches), pts) in zip(axes[0], curves.items()):
        x = [p[0] for p in pts]
        ax.plot(x, [p[1] for p in pts], "o", label="measured", color="black", markersize=4)
        ax.plot(x, [p[2] for p in pts], "-", label="simulated (rdmasim)", color="tab:blue")
        low = [p for p in pts if not p[3]]
        if low:
            ax.axvspan(min(x) / 1.5, max(p[0] for p in low) * 1.4, color="0.92",
                       label="below --min-size")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("message size (bytes)")
        collective = kind.startswith("collective")
        ax.set_ylabel("latency (us)" if kind.startswith("latency")
                      else "collective time (us)" if collective else "bandwidth (MiB/s, perftest's MB/sec)")
        ax.set_title(f"{name}\n" + ("nccl-tests time" if collective
                                    else f"{switches} switch(es) on the path"), fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(a.output, dpi=110)
    return 0


if __name__ == "__main__":
    sys.exit(main())
