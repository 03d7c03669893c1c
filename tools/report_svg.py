"""The report's figures as inline SVG (Python's standard library only): line charts, a heatmap,
a graph of nodes and weighted edges, tables. Used by report.py; each figure is an
<svg class="figure"> with a title (the browser test counts them)."""
import html
import math

from units_text import tick_text

PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf"]

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
