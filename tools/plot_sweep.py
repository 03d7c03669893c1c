#!/usr/bin/env python3
"""Plots one metric of a sweep's results.csv against an axis: `rdmasim plot` runs this.

usage: plot_sweep.py RESULTS.csv --x AXIS --y METRIC [--by AXIS] -o OUT.png

Rows whose status is not "ok" are left out. Axis values with units ("50KB", "600ns",
"100Gbps") are placed by their value in bytes, seconds or bits per second, so a range with a
factor is evenly spaced on the logarithmic scale chosen for it; values that are not quantities
are placed in the order they first appear. Points that share x (and --by) - the repeats of a
sweep - are drawn as their mean with a bar from the smallest to the largest.
Exit codes as rdmasim's: 0 ok, 1 matplotlib missing, 2 bad input.
"""
import argparse
import csv
import re
import sys

# Unit multipliers, as rdmasim reads them (sim/units.hpp): KB/MB/GB are powers of 10,
# KiB/MiB/GiB powers of 2.
_UNITS = {
    "B": ("bytes", 1), "KB": ("bytes", 1e3), "MB": ("bytes", 1e6), "GB": ("bytes", 1e9),
    "KiB": ("bytes", 1024), "MiB": ("bytes", 1024**2), "GiB": ("bytes", 1024**3),
    "ps": ("s", 1e-12), "ns": ("s", 1e-9), "us": ("s", 1e-6), "ms": ("s", 1e-3), "s": ("s", 1),
    "bps": ("bit/s", 1), "Kbps": ("bit/s", 1e3), "Mbps": ("bit/s", 1e6),
    "Gbps": ("bit/s", 1e9), "Tbps": ("bit/s", 1e12),
}
_QUANTITY = re.compile(r"^\s*([-+]?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([A-Za-z]*)\s*$")


def quantity(text):
    """(value, unit) for a number or a quantity with a known unit, else None."""
    m = _QUANTITY.match(text)
    if not m:
        return None
    unit = m.group(2)
    if unit == "":
        return float(m.group(1)), ""
    if unit not in _UNITS:
        return None
    kind, factor = _UNITS[unit]
    return float(m.group(1)) * factor, kind


def fail(message, code=2):
    print("rdmasim plot: error: " + message, file=sys.stderr)
    sys.exit(code)


def main():
    ap = argparse.ArgumentParser(prog="rdmasim plot")
    ap.add_argument("results")
    ap.add_argument("--x", required=True, help="the axis on the horizontal axis")
    ap.add_argument("--y", required=True, help="the metric on the vertical axis")
    ap.add_argument("--by", help="one line per value of this axis")
    ap.add_argument("-o", "--output", required=True, help="the PNG to write")
    args = ap.parse_args()

    try:
        with open(args.results, newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            rows = list(reader)
            columns = reader.fieldnames or []
    except OSError as e:
        fail("%s: %s" % (args.results, e.strerror))
    except UnicodeDecodeError as e:
        fail("%s: not a CSV table (byte %d is not UTF-8 text)" % (args.results, e.start))
    except csv.Error as e:
        fail("%s: not a CSV table (%s)" % (args.results, e))
    # A results.csv has a header and rows of as many fields (RFC 4180); anything else is not
    # a sweep's table.
    for number, r in enumerate(rows, start=1):
        extra = r.pop(None, None)
        if extra is not None or any(v is None for v in r.values()):
            fields = sum(v is not None for v in r.values()) + len(extra or [])
            fail("%s: row %d has %d fields where the header has %d; not a sweep's results.csv"
                 % (args.results, number, fields, len(columns)))
    for name in [args.x, args.y] + ([args.by] if args.by else []):
        if name not in columns:
            fail("%s: no column %r; expected one of %s" % (args.results, name, ", ".join(columns)))
    rows = [r for r in rows if r.get("status") == "ok"]
    if not rows:
        fail("%s: no point with status ok to plot" % args.results)

    xs = [quantity(r[args.x]) for r in rows]
    numeric_x = all(q is not None for q in xs) and len({q[1] for q in xs}) == 1
    order = []  # categorical x: first appearance
    for r in rows:
        if r[args.x] not in order:
            order.append(r[args.x])

    series = {}  # by value -> x -> [y values]
    for r, q in zip(rows, xs):
        y = quantity(r[args.y])
        if y is None:
            if r[args.y] == "":
                continue  # the scenario does not report this metric (pauses without PFC)
            fail("%s: column %s has %r, not a number" % (args.results, args.y, r[args.y]))
        x = q[0] if numeric_x else order.index(r[args.x])
        key = r[args.by] if args.by else ""
        series.setdefault(key, {}).setdefault(x, []).append(y[0])
    if not series:
        fail("%s: column %s is empty in every ok point" % (args.results, args.y))

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        fail("matplotlib is not installed (Debian: apt-get install python3-matplotlib, "
             "or run tools/setup-deps.sh)", 1)

    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=120)
    for key, points in series.items():
        x = sorted(points)
        mean = [sum(points[v]) / len(points[v]) for v in x]
        low = [m - min(points[v]) for v, m in zip(x, mean)]
        high = [max(points[v]) - m for v, m in zip(x, mean)]
        label = "%s = %s" % (args.by, key) if args.by else None
        if any(len(points[v]) > 1 for v in x):
            ax.errorbar(x, mean, yerr=[low, high], marker="o", capsize=3, label=label)
        else:
            ax.plot(x, mean, marker="o", label=label)
    unit = xs[0][1] if numeric_x else ""
    if numeric_x:
        values = [q[0] for q in xs]
        if min(values) > 0 and max(values) / min(values) >= 100:
            ax.set_xscale("log")
    else:
        ax.set_xticks(range(len(order)))
        ax.set_xticklabels(order)
    ax.set_xlabel(args.x + (" (%s)" % unit if unit else ""))
    ax.set_ylabel(args.y)
    ax.grid(True, alpha=0.3)
    if args.by:
        ax.legend()
    ax.set_title("%s vs %s" % (args.y, args.x))
    fig.tight_layout()
    try:
        fig.savefig(args.output, format="png")
    except OSError as e:
        fail("%s: %s" % (args.output, e.strerror))
    return 0


if __name__ == "__main__":
    sys.exit(main())
