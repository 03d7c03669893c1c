#!/usr/bin/env python3
"""Plots rdmasim's results in human units: `rdmasim plot` runs this.

usage: plot.py RESULTS.csv --x AXIS --y METRIC [--by AXIS] -o OUT.png   (a sweep)
       plot.py RUN_DIR --fct-cdf [--by COLUMN] -o OUT.png              (a run's flows.csv)
       plot.py RUN_DIR --busbw -o OUT.png                              (a run's collectives.csv)

A sweep: one metric of results.csv against an axis. Rows whose status is not "ok" are left
out. Axis values with units ("50KB", "600ns", "100Gbps") are placed by their value, so a range
with a factor is evenly spaced on the logarithmic scale chosen for it, and labelled as written;
values that are not quantities are placed in the order they first appear. Points that share x
(and --by) - the repeats of a sweep - are drawn as their mean with a bar from the smallest to
the largest.

A run: the CDFs of its flows' completion times and slowdowns (one line per workload tag, or
per --by column), or a collective's bus bandwidth against message size, as nccl-tests reports
it (one line per op, algorithm and protocol).

Units: a column's unit is the suffix of its name (docs/outputs.md): times (_ps, _ns, _us, _ms)
are drawn in ns, µs, ms or s, whichever reads best; _bytes in B, KB, MB or GB; _Gbps in Gb/s;
_GBps in GB/s; _percent in %. An axis whose values are all integers gets integer ticks.
On success one line says what was drawn, with the units. Exit codes as rdmasim's: 0 ok, 1
matplotlib missing, 2 bad input.
"""
import argparse
import csv
import re
import sys

from units_text import size_text

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


# A column's unit from its name's suffix (docs/outputs.md): the kind and the factor to it.
_SUFFIXES = [("_ps", "s", 1e-12), ("_ns", "s", 1e-9), ("_us", "s", 1e-6), ("_ms", "s", 1e-3),
             ("_bytes", "bytes", 1.0), ("_Gbps", "bit/s", 1e9), ("_GBps", "byte/s", 1e9),
             ("_percent", "%", 1.0)]
# The units a kind is drawn in, smallest first.
_DISPLAY = {
    "s": [(1e-9, "ns"), (1e-6, "µs"), (1e-3, "ms"), (1.0, "s")],
    "bytes": [(1.0, "B"), (1e3, "KB"), (1e6, "MB"), (1e9, "GB")],
    "bit/s": [(1e6, "Mb/s"), (1e9, "Gb/s"), (1e12, "Tb/s")],
    "byte/s": [(1e6, "MB/s"), (1e9, "GB/s"), (1e12, "TB/s")],
    "%": [(1.0, "%")],
}


def column_unit(name):
    """(name without its unit suffix, kind, factor to the kind's base unit) of a column."""
    for suffix, kind, factor in _SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)], kind, factor
    return name, "", 1.0


def display_unit(kind, values):
    """(divisor, label) that draws `values` (in the kind's base unit) in the unit reading best:
    the largest one the largest magnitude reaches."""
    if kind not in _DISPLAY:
        return 1.0, ""
    units = _DISPLAY[kind]
    top = max((abs(v) for v in values), default=0.0)
    chosen = units[0]
    for scale, label in units:
        if top >= scale:
            chosen = (scale, label)
    return chosen


def integer_ticks_if_integral(axis, values):
    """Integer ticks on an axis whose values are all integers (counts, servers, ranks);
    returns whether it has them."""
    from matplotlib.ticker import MaxNLocator
    if values and all(float(v).is_integer() for v in values):
        axis.set_major_locator(MaxNLocator(integer=True))
        return True
    return False


def read_table(path):
    """The rows of a CSV table with a header, every row as long as the header (RFC 4180)."""
    try:
        with open(path, newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            rows = list(reader)
            columns = reader.fieldnames or []
    except OSError as e:
        fail("%s: %s" % (path, e.strerror))
    except UnicodeDecodeError as e:
        fail("%s: not a CSV table (byte %d is not UTF-8 text)" % (path, e.start))
    except csv.Error as e:
        fail("%s: not a CSV table (%s)" % (path, e))
    for number, r in enumerate(rows, start=1):
        extra = r.pop(None, None)
        if extra is not None or any(v is None for v in r.values()):
            fields = sum(v is not None for v in r.values()) + len(extra or [])
            fail("%s: row %d has %d fields where the header has %d; not an rdmasim table"
                 % (path, number, fields, len(columns)))
    return rows, columns


def require_columns(path, columns, names, what):
    for name in names:
        if name not in columns:
            fail("%s: no column %r; expected %s with the columns %s"
                 % (path, name, what, ", ".join(columns) if columns else "(none)"))


def number(path, column, text):
    try:
        return float(text)
    except ValueError:
        fail("%s: column %s has %r, not a number" % (path, column, text))


def pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        fail("matplotlib is not installed (Debian: apt-get install python3-matplotlib, "
             "or run tools/setup-deps.sh)", 1)
    return plt


def save(fig, output):
    fig.tight_layout()
    try:
        fig.savefig(output, format="png")
    except OSError as e:
        fail("%s: %s" % (output, e.strerror))


def plot_sweep(args):
    rows, columns = read_table(args.path)
    require_columns(args.path, columns,
                    [args.x, args.y] + ([args.by] if args.by else []), "a sweep's results.csv")
    rows = [r for r in rows if r.get("status") == "ok"]
    if not rows:
        fail("%s: no point with status ok to plot" % args.path)

    xs = [quantity(r[args.x]) for r in rows]
    numeric_x = all(q is not None for q in xs) and len({q[1] for q in xs}) == 1
    order = []  # categorical x: first appearance
    for r in rows:
        if r[args.x] not in order:
            order.append(r[args.x])

    stem, kind, factor = column_unit(args.y)
    series = {}  # by value -> x -> [y values in the kind's base unit]
    for r, q in zip(rows, xs):
        if r[args.y] == "":
            continue  # the scenario does not report this metric (pauses without PFC)
        y = quantity(r[args.y])
        if y is None:
            fail("%s: column %s has %r, not a number" % (args.path, args.y, r[args.y]))
        x = q[0] if numeric_x else order.index(r[args.x])
        key = r[args.by] if args.by else ""
        series.setdefault(key, {}).setdefault(x, []).append(y[0] * factor)
    if not series:
        fail("%s: column %s is empty in every ok point" % (args.path, args.y))
    all_y = [v for points in series.values() for vs in points.values() for v in vs]
    y_scale, y_unit = display_unit(kind, all_y)
    x_kind = xs[0][1] if numeric_x else ""
    x_base = {"bytes": "bytes", "s": "s", "bit/s": "bit/s"}.get(x_kind, "")
    x_values = sorted({q[0] for q in xs}) if numeric_x else []
    x_scale, x_unit = display_unit(x_base, x_values) if x_base else (1.0, "")

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=120)
    integer_axes = []
    for key, points in series.items():
        x = sorted(points)
        mean = [sum(points[v]) / len(points[v]) / y_scale for v in x]
        low = [m - min(points[v]) / y_scale for v, m in zip(x, mean)]
        high = [max(points[v]) / y_scale - m for v, m in zip(x, mean)]
        xd = [v / x_scale for v in x]
        label = "%s = %s" % (args.by, key) if args.by else None
        if any(len(points[v]) > 1 for v in x):
            ax.errorbar(xd, mean, yerr=[low, high], marker="o", capsize=3, label=label)
        else:
            ax.plot(xd, mean, marker="o", label=label)
    if numeric_x:
        if min(x_values) > 0 and max(x_values) / min(x_values) >= 100:
            ax.set_xscale("log")
        if len(x_values) <= 12:
            # The values as the sweep file writes them ("50KB", "2us"), where they are.
            text = {}
            for r, q in zip(rows, xs):
                text.setdefault(q[0], r[args.x])
            ax.set_xticks([v / x_scale for v in x_values])
            ax.set_xticklabels([text[v] for v in x_values])
            ax.minorticks_off()
        elif integer_ticks_if_integral(ax.xaxis, [v / x_scale for v in x_values]):
            integer_axes.append("x")
    else:
        ax.set_xticks(range(len(order)))
        ax.set_xticklabels(order)
    if integer_ticks_if_integral(ax.yaxis, all_y if not y_unit else []):
        integer_axes.append("y")
    x_label = args.x + (" (%s)" % x_unit if x_unit else "")
    y_label = (stem if y_unit else args.y) + (" (%s)" % y_unit if y_unit else "")
    ax.set_xlabel(x_label)
    ax.set_ylabel(y_label)
    ax.grid(True, alpha=0.3)
    if args.by:
        ax.legend()
    ax.set_title("%s vs %s" % (y_label, args.x))
    save(fig, args.output)
    print("wrote %s: %s against %s, %d line(s)%s"
          % (args.output, y_label, x_label, len(series),
             "; integer ticks on " + " and ".join(integer_axes) if integer_axes else ""))


def run_table(path, name):
    """A run's table: RUN_DIR/name, or the file itself when given."""
    import os
    if os.path.isdir(path):
        path = os.path.join(path, name)
        if not os.path.isfile(path):
            fail("%s: no %s in this folder (a run of rdmasim writes it%s)"
                 % (os.path.dirname(path), name,
                    " when its workload has collectives" if name == "collectives.csv" else ""))
    return path


def cdf(values):
    ordered = sorted(values)
    n = len(ordered)
    return ordered, [(i + 1) / n for i in range(n)]


def plot_fct_cdf(args):
    path = run_table(args.path, "flows.csv")
    rows, columns = read_table(path)
    by = args.by or "tag"
    require_columns(path, columns, ["fct_ns", "slowdown", "completed", by], "a run's flows.csv")
    groups = {}
    for r in rows:
        if r["completed"] != "1":
            continue
        g = groups.setdefault(r[by], ([], []))
        g[0].append(number(path, "fct_ns", r["fct_ns"]) * 1e-9)
        if r["slowdown"] != "":
            g[1].append(number(path, "slowdown", r["slowdown"]))
    flows = sum(len(g[0]) for g in groups.values())
    if flows == 0:
        fail("%s: no completed flow to plot" % path)
    scale, unit = display_unit("s", [v for g in groups.values() for v in g[0]])

    plt = pyplot()
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4.2), dpi=120)
    for key, (fcts, slowdowns) in sorted(groups.items()):
        label = "%s = %s" % (by, key) if len(groups) > 1 or args.by else None
        x, y = cdf([v / scale for v in fcts])
        left.step(x, y, where="post", label=label)
        if slowdowns:
            x, y = cdf(slowdowns)
            right.step(x, y, where="post", label=label)
    every = [v / scale for g in groups.values() for v in g[0]]
    if min(every) > 0 and max(every) / min(every) >= 100:
        left.set_xscale("log")
    left.set_xlabel("flow completion time (%s)" % unit)
    right.set_xlabel("slowdown (FCT / ideal FCT)")
    for ax in (left, right):
        ax.set_ylabel("fraction of flows")
        ax.set_ylim(0, 1.02)
        ax.grid(True, alpha=0.3)
        if len(groups) > 1 or args.by:
            ax.legend()
    left.set_title("FCT CDF, %d flows" % flows)
    right.set_title("slowdown CDF")
    save(fig, args.output)
    print("wrote %s: CDFs of %d flows' completion time (%s) and slowdown, %d line(s)"
          % (args.output, flows, unit, len(groups)))


def size_label(value, _position=None):
    """A message size as nccl-tests' sizes read: 8 B, 64 KiB, 1 MiB, 2 GiB (a tick formatter)."""
    return size_text(value)


def plot_busbw(args):
    path = run_table(args.path, "collectives.csv")
    rows, columns = read_table(path)
    require_columns(path, columns, ["collective", "op", "algorithm", "protocol", "size_bytes",
                                    "busbw_GBps"], "a run's collectives.csv")
    lines = {}
    for r in rows:
        key = (r["collective"], r["op"])
        line = lines.setdefault(key, {"points": [], "algorithms": set()})
        line["points"].append((number(path, "size_bytes", r["size_bytes"]),
                               number(path, "busbw_GBps", r["busbw_GBps"])))
        line["algorithms"].add("%s/%s" % (r["algorithm"], r["protocol"]))
    if not lines:
        fail("%s: no collective to plot" % path)

    plt = pyplot()
    from matplotlib.ticker import FuncFormatter
    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=120)
    sizes = []
    for (collective, op), line in sorted(lines.items()):
        points = sorted(line["points"])
        sizes += [p[0] for p in points]
        how = (next(iter(line["algorithms"])) if len(line["algorithms"]) == 1
               else "tuned per size")
        ax.plot([p[0] for p in points], [p[1] for p in points], marker="o",
                label="%s #%s (%s)" % (op, collective, how))
    if min(sizes) > 0 and max(sizes) / min(sizes) >= 4:
        ax.set_xscale("log", base=2)
    if len(set(sizes)) <= 12:
        ax.set_xticks(sorted(set(sizes)))
        ax.minorticks_off()
    ax.xaxis.set_major_formatter(FuncFormatter(size_label))
    ax.set_xlabel("message size")
    ax.set_ylabel("bus bandwidth (GB/s)")
    ax.grid(True, alpha=0.3)
    ax.legend()
    ax.set_title("collective bus bandwidth against size")
    fig.autofmt_xdate(rotation=30)
    save(fig, args.output)
    print("wrote %s: bus bandwidth (GB/s) against message size of %d collective(s), %d sizes"
          % (args.output, len(lines), len(set(sizes))))


def main():
    ap = argparse.ArgumentParser(prog="rdmasim plot")
    ap.add_argument("path", help="a sweep's results.csv, or a run's folder (or its table)")
    ap.add_argument("--x", help="a sweep: the axis on the horizontal axis")
    ap.add_argument("--y", help="a sweep: the metric on the vertical axis")
    ap.add_argument("--by", help="one line per value of this column")
    ap.add_argument("--fct-cdf", action="store_true", help="a run: its flows' FCT CDFs")
    ap.add_argument("--busbw", action="store_true", help="a run: busbw against size")
    ap.add_argument("-o", "--output", required=True, help="the PNG to write")
    args = ap.parse_args()
    if args.fct_cdf and args.busbw:
        fail("--fct-cdf and --busbw: one plot at a time")
    if args.fct_cdf or args.busbw:
        if args.x or args.y:
            fail("--x and --y are a sweep's; a run's plot is --fct-cdf or --busbw alone")
        if args.busbw and args.by:
            fail("--by: a busbw plot draws one line per collective")
        return plot_fct_cdf(args) if args.fct_cdf else plot_busbw(args)
    if not args.x or not args.y:
        fail("a sweep's results.csv needs --x and --y (a run's folder: --fct-cdf or --busbw)")
    return plot_sweep(args)


if __name__ == "__main__":
    sys.exit(main())
