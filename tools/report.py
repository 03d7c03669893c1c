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
import json
import os
import sys

from report_svg import esc, graph, heatmap, line_chart, table, time_unit
from units_text import size_text


def fail(message):
    print("rdmasim report: error: " + message, file=sys.stderr)
    sys.exit(2)


def read_csv(path):
    try:
        with open(path, newline="", encoding="utf-8") as f:
            return list(csv.DictReader(f))
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        fail("%s: %s" % (path, e))


def rows_of(out_dir, name):
    """The rows of a run's CSV file; none when the run did not write it."""
    path = os.path.join(out_dir, name)
    return read_csv(path) if os.path.isfile(path) else []


def num(text, default=0.0):
    try:
        return float(text)
    except (TypeError, ValueError):
        return default


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
    rows = rows_of(out_dir, "collectives.csv")
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


def training_section(out_dir):
    """training.csv's steps, and with parallel groups (training_groups.csv) each kind's share of
    the step: communication and waiting for peers per GPU."""
    steps = rows_of(out_dir, "training.csv")
    if not steps:
        return ""
    out = ["<h2>Training</h2>",
           table(["step", "step (µs)", "without communication (µs)", "communication (µs)",
                  "exposed (µs)", "MFU (%)"],
                 [(r["step"], r["step_us"], r["compute_us"], r["communication_us"],
                   r["exposed_us"], "%.2f" % (100 * num(r["mfu"]))) for r in steps])]
    groups = rows_of(out_dir, "training_groups.csv")
    if groups:
        out.append(table(["step", "group", "groups", "GPUs each", "calls per GPU",
                          "data per GPU", "communication (µs)", "waiting for peers (µs)",
                          "MFU without it (%)"],
                         [(r["step"], r["group"], r["groups"], r["ranks"], r["calls_per_gpu"],
                           size_text(num(r["bytes_per_gpu"])), r["communication_us"],
                           r["wait_us"], "%.2f" % (100 * num(r.get("mfu_without"))))
                          for r in groups]))
    return "".join(out)


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
                collectives_section(out_dir, measured, args.measured_name) +
                training_section(out_dir) + heat +
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
