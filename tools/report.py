#!/usr/bin/env python3
"""Writes one self-contained HTML report of an rdmasim run or sweep: `rdmasim report` runs this.

usage: report.py OUT_DIR -o REPORT.html [--measured MEASURED.csv --measured-name NAME]

A run's folder: the headline table (summary.json), FCT and slowdown CDFs (flows.csv), a load
heatmap of the links between switches (links.csv), queue time series (timeseries.csv), the
ports held by PFC over time (pfc.csv), the PFC pause graph - who paused whom, for how long
(links.csv) -, each deadlock's cycle drawn (deadlocks.json), and a collective's bus bandwidth
against size (collectives.csv) beside a measured nccl-tests run when given (--measured: a CSV
of size_bytes,busbw_GBps that `rdmasim report --trace` writes from nccl-tests' output).
A sweep's folder (results.csv): its table and each headline metric against the first axis,
one line per value of the second.

Figures are inline SVG drawn here (the Python standard library only): the file needs nothing
else to open, offline. Each figure is an <svg class="figure"> with a title; a small script
counts them into <body data-figures="N"> once the page has loaded (the browser test reads it).
Exit codes as rdmasim's: 0 ok, 2 bad input.
"""
import argparse
import csv
import html
import json
import math
import os
import sys

PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf"]


def fail(message):
    print("rdmasim report: error: " + message, file=sys.stderr)
    sys.exit(2)


def read_csv(path):
    try:
        with open(path, newline="", encoding="utf-8") as f:
            return list(csv.DictReader(f))
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        fail("%s: %s" % (path, e))


def num(text, default=0.0):
    try:
        return float(text)
    except (TypeError, ValueError):
        return default


def esc(text):
    return html.escape(str(text), quote=True)


# ---------------------------------------------------------------------------------------------
# Units: a time in ns drawn in ns, µs or ms; a size in B, KB, MB.

def time_unit(max_ns):
    for scale, unit in ((1e6, "ms"), (1e3, "µs")):
        if max_ns >= scale:
            return scale, unit
    return 1.0, "ns"


def nice_ticks(lo, hi, count=5):
    """About `count` round tick values covering [lo, hi]."""
    if hi <= lo:
        hi = lo + 1.0
    step = (hi - lo) / count
    magnitude = 10 ** math.floor(math.log10(step))
    for m in (1, 2, 2.5, 5, 10):
        if step <= m * magnitude:
            step = m * magnitude
            break
    first = math.floor(lo / step) * step
    ticks = []
    v = first
    while v <= hi + step * 1e-9:
        if v >= lo - step * 1e-9:
            ticks.append(v)
        v += step
    return ticks


def tick_text(v):
    if abs(v) >= 1e4 or (abs(v) < 1e-2 and v != 0):
        return "%.3g" % v
    return ("%.2f" % v).rstrip("0").rstrip(".")


def size_text(b):
    for scale, unit in ((1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")):
        if b >= scale:
            v = b / scale
            return ("%d %s" if v == int(v) else "%.1f %s") % (v, unit)
    return "%d B" % b


# ---------------------------------------------------------------------------------------------
# Figures (inline SVG).

def line_chart(title, series, x_label, y_label, log_x=False, step=False, x_text=tick_text,
               y_max=None, width=640, height=320):
    """series: [(label, [(x, y), ...], dashed)]; returns an <svg class="figure">."""
    points = [p for _, pts, _ in series for p in pts]
    if not points:
        return ""
    left, right, top, bottom = 64, 16, 28, 48
    fx = (lambda v: math.log2(v)) if log_x else (lambda v: v)
    xs = [fx(p[0]) for p in points]
    x_lo, x_hi = min(xs), max(xs)
    if x_hi == x_lo:
        x_hi = x_lo + 1
    y_lo = 0.0
    y_hi = y_max if y_max is not None else max(p[1] for p in points) * 1.05 or 1.0
    pw, ph = width - left - right, height - top - bottom

    def sx(v):
        return left + (fx(v) - x_lo) / (x_hi - x_lo) * pw

    def sy(v):
        return top + ph - (v - y_lo) / (y_hi - y_lo) * ph

    out = ['<svg class="figure" xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'viewBox="0 0 %d %d" role="img"><title>%s</title>' % (width, height, width, height,
                                                                  esc(title))]
    out.append('<text x="%d" y="18" class="t">%s</text>' % (left, esc(title)))
    out.append('<rect x="%d" y="%d" width="%d" height="%d" class="plot"/>' % (left, top, pw, ph))
    for t in nice_ticks(y_lo, y_hi):
        y = sy(t)
        out.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" class="grid"/>'
                   % (left, left + pw, y, y))
        out.append('<text x="%d" y="%.1f" class="yt">%s</text>' % (left - 6, y + 4, tick_text(t)))
    if log_x:
        x_ticks = [2 ** k for k in range(math.ceil(x_lo), math.floor(x_hi) + 1)]
        stride = max(1, len(x_ticks) // 8)
        x_ticks = x_ticks[::stride]
    else:
        x_ticks = nice_ticks(x_lo, x_hi)
    for t in x_ticks:
        x = sx(t)
        out.append('<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" class="grid"/>'
                   % (x, x, top, top + ph))
        out.append('<text x="%.1f" y="%d" class="xt">%s</text>' % (x, top + ph + 16, x_text(t)))
    out.append('<text x="%d" y="%d" class="xl">%s</text>' % (left + pw // 2, height - 8,
                                                            esc(x_label)))
    out.append('<text x="14" y="%d" class="yl" transform="rotate(-90 14 %d)">%s</text>'
               % (top + ph // 2, top + ph // 2, esc(y_label)))
    for i, (label, pts, dashed) in enumerate(series):
        color = PALETTE[i % len(PALETTE)]
        path = []
        for k, (x, y) in enumerate(pts):
            if step and k > 0:
                path.append("%.1f,%.1f" % (sx(x), sy(pts[k - 1][1])))
            path.append("%.1f,%.1f" % (sx(x), sy(y)))
        out.append('<polyline fill="none" stroke="%s" stroke-width="1.8"%s points="%s">'
                   '<title>%s</title></polyline>'
                   % (color, ' stroke-dasharray="5,4"' if dashed else "", " ".join(path),
                      esc(label)))
        if len(series) > 1 or label:
            ly = top + 14 + 16 * i
            out.append('<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="%s" stroke-width="3"/>'
                       % (left + pw - 150, left + pw - 132, ly - 4, ly - 4, color))
            out.append('<text x="%d" y="%d" class="lg">%s</text>' % (left + pw - 128, ly,
                                                                      esc(label)))
    out.append("</svg>")
    return "".join(out)


def heatmap(title, names, value, label):
    """A matrix of the named nodes, cell (row -> column) coloured by value(row, col) in 0..1."""
    n = len(names)
    cell = max(6, min(22, 560 // max(n, 1)))
    left, top = 90, 80
    width, height = max(560, left + n * cell + 20), top + n * cell + 40
    out = ['<svg class="figure" xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'role="img"><title>%s</title>' % (width, height, esc(title)),
           '<text x="10" y="18" class="t">%s</text>' % esc(title)]
    for i, a in enumerate(names):
        if cell >= 10:
            out.append('<text x="%d" y="%d" class="yt">%s</text>'
                       % (left - 4, top + i * cell + cell * 0.7, esc(a)))
            out.append('<text x="%d" y="%d" class="vt" transform="rotate(-60 %d %d)">%s</text>'
                       % (left + i * cell + 4, top - 4, left + i * cell + 4, top - 4, esc(a)))
        for j, b in enumerate(names):
            v = value(a, b)
            if v is None:
                continue
            shade = int(255 - 200 * min(max(v, 0.0), 1.0))
            out.append('<rect x="%d" y="%d" width="%d" height="%d" fill="rgb(255,%d,%d)">'
                       '<title>%s -&gt; %s: %s</title></rect>'
                       % (left + j * cell, top + i * cell, cell - 1, cell - 1, shade, shade,
                          esc(a), esc(b), esc(label(v))))
    out.append('<text x="10" y="%d" class="lg">row sends to column; darker = busier '
               '(white 0 %%, red 100 %% of the link rate)</text>' % (height - 12))
    out.append("</svg>")
    return "".join(out)


def graph(title, nodes, edges, note):
    """Nodes on a circle, arrows between them: edges [(from, to, weight 0..1, text)]."""
    n = len(nodes)
    size = 420 if n <= 16 else 560
    r = size / 2 - 70
    cx = cy = size / 2
    pos = {name: (cx + r * math.cos(2 * math.pi * i / n - math.pi / 2),
                  cy + 20 + r * math.sin(2 * math.pi * i / n - math.pi / 2))
           for i, name in enumerate(nodes)}
    out = ['<svg class="figure" xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'role="img"><title>%s</title>' % (size + 160, size + 40, esc(title)),
           '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="10" '
           'markerHeight="10" markerUnits="userSpaceOnUse" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" '
           'fill="#c0392b"/></marker></defs>',
           '<text x="10" y="18" class="t">%s</text>' % esc(title)]
    for a, b, w, text in edges:
        (x1, y1), (x2, y2) = pos[a], pos[b]
        d = math.hypot(x2 - x1, y2 - y1) or 1
        ux, uy = (x2 - x1) / d, (y2 - y1) / d
        # From the rim of one circle to the other's, bowed so both directions show.
        sx, sy, ex, ey = x1 + ux * 14, y1 + uy * 14, x2 - ux * 16, y2 - uy * 16
        mx, my = (sx + ex) / 2 - uy * 18, (sy + ey) / 2 + ux * 18
        out.append('<path d="M%.1f,%.1f Q%.1f,%.1f %.1f,%.1f" fill="none" stroke="#c0392b" '
                   'stroke-width="%.1f" marker-end="url(#arrow)"><title>%s</title></path>'
                   % (sx, sy, mx, my, ex, ey, 1 + 5 * w, esc(text)))
    for name, (x, y) in pos.items():
        out.append('<circle cx="%.1f" cy="%.1f" r="13" class="node"/>' % (x, y))
        out.append('<text x="%.1f" y="%.1f" class="nt">%s</text>' % (x, y - 17, esc(name)))
    out.append('<text x="10" y="%d" class="lg">%s</text>' % (size + 30, esc(note)))
    out.append("</svg>")
    return "".join(out)


def table(headers, rows):
    out = ["<table><tr>%s</tr>" % "".join("<th>%s</th>" % esc(h) for h in headers)]
    for r in rows:
        out.append("<tr>%s</tr>" % "".join("<td>%s</td>" % esc(c) for c in r))
    out.append("</table>")
    return "".join(out)


# ---------------------------------------------------------------------------------------------
# Sections of a run's report.

def headline_section(summary):
    res = summary.get("results", {})
    rows = []
    for key, value in res.items():
        if isinstance(value, (dict, list)):
            continue
        rows.append((key, value))
    for block in ("pfc", "ecn", "dcqcn", "tcp", "infiniband"):
        if isinstance(res.get(block), dict):
            for key, value in res[block].items():
                if not isinstance(value, (dict, list)):
                    rows.append(("%s.%s" % (block, key), value))
    return "<h2>Headline</h2>" + table(["result", "value"], rows)


def fct_section(out_dir):
    path = os.path.join(out_dir, "flows.csv")
    if not os.path.isfile(path):
        return ""
    rows = [r for r in read_csv(path) if r.get("completed") == "1"]
    if not rows:
        return ""
    groups = {}
    for r in rows:
        groups.setdefault(r["tag"], []).append(r)
    scale, unit = time_unit(max(num(r["fct_ns"]) for r in rows))

    def cdf(values):
        values = sorted(values)
        return [(v, (i + 1) / len(values)) for i, v in enumerate(values)]

    fct = [(tag, cdf([num(r["fct_ns"]) / scale for r in g]), False)
           for tag, g in sorted(groups.items())]
    slow = [(tag, cdf([num(r["slowdown"]) for r in g if r["slowdown"]]), False)
            for tag, g in sorted(groups.items())]
    return ("<h2>Flow completion</h2>" +
            line_chart("FCT CDF (%d flows)" % len(rows), fct, "FCT (%s)" % unit,
                       "fraction of flows", step=True, y_max=1.0) +
            line_chart("slowdown CDF", slow, "slowdown (FCT / ideal)", "fraction of flows",
                       step=True, y_max=1.0))


def link_sections(out_dir):
    path = os.path.join(out_dir, "links.csv")
    if not os.path.isfile(path):
        return "", ""
    links = read_csv(path)
    hosts = set()
    nics = os.path.join(out_dir, "nics.csv")
    if os.path.isfile(nics):
        hosts = {r["host"] for r in read_csv(nics)}
    inner = [l for l in links if l["from"] not in hosts and l["to"] not in hosts] or links
    names = sorted({l["from"] for l in inner} | {l["to"] for l in inner})
    if len(names) > 80:  # the busiest 80 nodes
        load = {}
        for l in inner:
            for k in (l["from"], l["to"]):
                load[k] = load.get(k, 0.0) + num(l["utilisation"])
        names = sorted(sorted(load, key=load.get, reverse=True)[:80])
    util = {(l["from"], l["to"]): num(l["utilisation"]) for l in inner}
    heat = ("<h2>Link load</h2>" +
            heatmap("utilisation of the links between %s" %
                    ("switches" if inner is not links else "nodes"), names,
                    lambda a, b: util.get((a, b)), lambda v: "%.1f %%" % (100 * v)))
    # Who paused whom: a link direction from B to A whose sending port (B's) was held by
    # pause frames that A sent.
    paused = [(l["to"], l["from"], num(l["paused_ns"]), int(num(l["pause_frames_received"])))
              for l in links if num(l["pause_frames_received"]) > 0]
    if not paused:
        return heat, ""
    paused.sort(key=lambda e: -e[2])
    paused = paused[:40]
    longest = max(e[2] for e in paused) or 1.0
    scale, unit = time_unit(longest)
    nodes = sorted({e[0] for e in paused} | {e[1] for e in paused})
    edges = [(a, b, p / longest, "%s paused %s: %d frames, held %.3f %s" %
              (a, b, frames, p / scale, unit)) for a, b, p, frames in paused]
    rows = [(a, b, frames, "%.3f" % (p / scale)) for a, b, p, frames in paused]
    pause = ("<h2>PFC pause graph</h2>" +
             graph("who paused whom (arrow from the pausing node; width = time held)", nodes,
                   edges, "the longest hold: %.3f %s" % (longest / scale, unit)) +
             table(["pausing node", "paused node", "frames", "held (%s)" % unit], rows))
    return heat, pause


def timeseries_section(out_dir):
    parts = []
    path = os.path.join(out_dir, "timeseries.csv")
    if os.path.isfile(path):
        rows = [r for r in read_csv(path) if not r["series"].startswith("flow:")]
        if rows:
            scale, unit = time_unit(max(num(r["time_ns"]) for r in rows))
            series = {}
            for r in rows:
                series.setdefault(r["series"], []).append(
                    (num(r["time_ns"]) / scale, num(r["queue_bytes"]) / 1e3))
            parts.append(line_chart("queue depth over time", [(k, v, False) for k, v in
                                                              sorted(series.items())],
                                    "time (%s)" % unit, "queue (KB)"))
    path = os.path.join(out_dir, "pfc.csv")
    if os.path.isfile(path):
        rows = read_csv(path)
        if rows:
            scale, unit = time_unit(max(num(r["time_ns"]) for r in rows))
            held, points = set(), [(0.0, 0)]
            for r in rows:
                key = (r["node"], r["port"], r["priority"])
                if r["event"] == "pause":
                    held.add(key)
                elif r["event"] == "resume":
                    held.discard(key)
                points.append((num(r["time_ns"]) / scale, len(held)))
            parts.append(line_chart("ingress buffers asserting PFC pause over time",
                                    [("", points, False)], "time (%s)" % unit,
                                    "buffers in XOFF", step=True))
    return ("<h2>Queues and pauses over time</h2>" + "".join(parts)) if parts else ""


def deadlock_section(out_dir):
    path = os.path.join(out_dir, "deadlocks.json")
    if not os.path.isfile(path):
        return ""
    try:
        with open(path, encoding="utf-8") as f:
            deadlocks = json.load(f)
    except (OSError, ValueError) as e:
        fail("%s: %s" % (path, e))
    parts = []
    for i, d in enumerate(deadlocks):
        cycle = d.get("cycle", [])
        if not cycle:
            continue
        edges = [(cycle[k], cycle[(k + 1) % len(cycle)], 0.6, "%s waits on %s" %
                  (cycle[k], cycle[(k + 1) % len(cycle)])) for k in range(len(cycle))]
        parts.append(graph("deadlock %d: formed at %.3f ns, detected at %.3f ns" %
                           (i + 1, num(d.get("formed_ns")), num(d.get("detected_ns"))),
                           cycle, edges, "%d flows, %d bytes frozen; a node is "
                           "switch:ingress port:priority" %
                           (len(d.get("flows", [])), int(num(d.get("frozen_bytes"))))))
    return ("<h2>PFC deadlocks</h2>" + "".join(parts)) if parts else ""


def collectives_section(out_dir, measured, measured_name):
    path = os.path.join(out_dir, "collectives.csv")
    if not os.path.isfile(path):
        return ""
    rows = read_csv(path)
    if not rows:
        return ""
    series = {}
    for r in rows:
        series.setdefault("%s #%s" % (r["op"], r["collective"]), []).append(
            (num(r["size_bytes"]), num(r["busbw_GBps"])))
    lines = [(k, sorted(v), False) for k, v in sorted(series.items())]
    if measured:
        lines.append(("measured: " + measured_name, sorted(measured), True))
    sizes = [p[0] for _, pts, _ in lines for p in pts]
    log_x = min(sizes) > 0 and max(sizes) / min(sizes) >= 4
    return ("<h2>Collectives</h2>" +
            line_chart("bus bandwidth against message size", lines, "message size",
                       "busbw (GB/s)", log_x=log_x, x_text=lambda v: size_text(v)) +
            table(["collective", "op", "algorithm", "protocol", "size", "time (µs)",
                   "busbw (GB/s)"],
                  [(r["collective"], r["op"], r["algorithm"], r["protocol"],
                    size_text(num(r["size_bytes"])), r["time_us"], r["busbw_GBps"])
                   for r in rows]))


def sweep_sections(out_dir):
    rows = read_csv(os.path.join(out_dir, "results.csv"))
    if not rows:
        fail("%s: results.csv has no point" % out_dir)
    columns = list(rows[0].keys())
    axes = columns[1:columns.index("repeat")] if "repeat" in columns else []
    ok = [r for r in rows if r.get("status") == "ok"]
    parts = ["<h2>Points</h2>" + table(columns, [[r[c] for c in columns] for r in rows])]
    if axes and ok:
        x_axis, by = axes[0], (axes[1] if len(axes) > 1 else None)
        order = []
        for r in ok:
            if r[x_axis] not in order:
                order.append(r[x_axis])
        parts.append("<h2>Metrics against %s</h2>" % esc(x_axis))
        for metric in ("fct_p99_ns", "fct_p50_ns", "goodput_Gbps", "pause_frames",
                       "busbw_GBps", "training_step_us"):
            if metric not in columns or not any(r[metric] for r in ok):
                continue
            series = {}
            for r in ok:
                if r[metric] == "":
                    continue
                series.setdefault(r[by] if by else "", []).append(
                    (order.index(r[x_axis]), num(r[metric])))
            lines = [(("%s = %s" % (by, k)) if by else "", sorted(v), False)
                     for k, v in series.items()]
            parts.append(line_chart("%s against %s" % (metric, x_axis), lines, x_axis, metric,
                                    x_text=lambda v: order[int(v)] if v == int(v) and
                                    0 <= v < len(order) else ""))
    return "".join(parts)


STYLE = """
body{font-family:system-ui,sans-serif;margin:24px;color:#222;max-width:1400px}
h1{font-size:22px}h2{font-size:17px;margin-top:28px;border-bottom:1px solid #ddd}
table{border-collapse:collapse;font-size:13px;margin:8px 0}
td,th{border:1px solid #ddd;padding:3px 8px;text-align:left}th{background:#f4f4f4}
svg.figure{display:inline-block;margin:6px 12px 6px 0;background:#fff}
.t{font-size:13px;font-weight:600}.xt{font-size:10px;text-anchor:middle}
.yt{font-size:10px;text-anchor:end}.vt{font-size:10px}.xl,.yl{font-size:11px;text-anchor:middle}
.lg{font-size:11px}.nt{font-size:11px;text-anchor:middle}
.plot{fill:none;stroke:#999}.grid{stroke:#eee}.node{fill:#fdebd0;stroke:#c0392b}
"""

SCRIPT = """
window.addEventListener('load', function () {
  var figures = document.querySelectorAll('svg.figure');
  var drawn = 0;
  figures.forEach(function (f) { if (f.getBBox().width > 0) drawn += 1; });
  document.body.setAttribute('data-figures', String(drawn));
});
"""


def main():
    ap = argparse.ArgumentParser(prog="rdmasim report")
    ap.add_argument("out_dir")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--measured", help="CSV of size_bytes,busbw_GBps measured (nccl-tests)")
    ap.add_argument("--measured-name", default="nccl-tests")
    args = ap.parse_args()
    out_dir = args.out_dir
    measured = []
    if args.measured:
        measured = [(num(r["size_bytes"]), num(r["busbw_GBps"])) for r in read_csv(args.measured)]

    if os.path.isfile(os.path.join(out_dir, "results.csv")):
        title = "sweep " + os.path.basename(os.path.normpath(out_dir))
        body = sweep_sections(out_dir)
    elif os.path.isfile(os.path.join(out_dir, "summary.json")):
        try:
            with open(os.path.join(out_dir, "summary.json"), encoding="utf-8") as f:
                summary = json.load(f)
        except (OSError, ValueError) as e:
            fail("%s/summary.json: %s" % (out_dir, e))
        title = "scenario " + str(summary.get("scenario", os.path.basename(out_dir)))
        heat, pause = link_sections(out_dir)
        body = (headline_section(summary) + fct_section(out_dir) +
                collectives_section(out_dir, measured, args.measured_name) + heat +
                timeseries_section(out_dir) + pause + deadlock_section(out_dir))
    else:
        fail("%s: neither a run's folder (summary.json) nor a sweep's (results.csv)" % out_dir)

    page = ("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>%s</title>"
            "<style>%s</style></head><body><h1>rdmasim report: %s</h1>%s<script>%s</script>"
            "</body></html>\n" % (esc(title), STYLE, esc(title), body, SCRIPT))
    tmp = args.output + ".tmp.%d" % os.getpid()
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(page)
        os.replace(tmp, args.output)
    except OSError as e:
        fail("%s: %s" % (args.output, e.strerror))
    print("wrote %s: %d figures" % (args.output, body.count('<svg class="figure"')))
    return 0


if __name__ == "__main__":
    sys.exit(main())
