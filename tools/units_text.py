"""Numbers as people read them, shared by report.py and plot.py: sizes as nccl-tests prints
them (8 B, 64 KiB, 1 MiB) and axis ticks without trailing zeros."""


def size_text(b):
    for scale, unit in ((1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")):
        if b >= scale:
            v = b / scale
            return ("%d %s" if v == int(v) else "%.1f %s") % (v, unit)
    return "%d B" % b


def tick_text(v):
    if abs(v) >= 1e4 or (abs(v) < 1e-2 and v != 0):
        return "%.3g" % v
    return ("%.2f" % v).rstrip("0").rstrip(".")
