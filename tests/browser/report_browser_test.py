"""`rdmasim report` pages loaded in a real browser (Debian's headless Chromium): every figure
drawn (the page's own count of rendered <svg class="figure">), no console message, and a
screenshot that is not blank. Run by ctest (label "browser"); prints SKIPPED without Chromium.
RDMASIM_BIN_DIR and RDMASIM_SOURCE_DIR are set by ctest; RDMASIM_SHARED (optional) gives the
measured nccl-tests trace drawn beside the simulated busbw."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

BIN = os.environ["RDMASIM_BIN_DIR"]
SOURCE = os.environ["RDMASIM_SOURCE_DIR"]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def rdmasim(*args, cwd):
    return subprocess.run([os.path.join(BIN, "rdmasim")] + list(args), cwd=cwd, check=True,
                          capture_output=True, text=True).stdout


def chromium(page, tmp, *flags):
    profile = tempfile.mkdtemp(dir=tmp)
    return subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                           "--no-first-run", "--user-data-dir=" + profile,
                           "--enable-logging=stderr", "--v=0"] + list(flags) +
                          ["file://" + page], capture_output=True, text=True, timeout=120)


def console_messages(stderr):
    return [line for line in stderr.splitlines() if "CONSOLE" in line]


def load(page, tmp):
    """(figures the page counted as drawn, console messages) of `page` in Chromium."""
    r = chromium(page, tmp, "--dump-dom")
    m = re.search(r'<body[^>]*data-figures="(\d+)"', r.stdout)
    return (int(m.group(1)) if m else -1), console_messages(r.stderr)


def screenshot_ink(page, tmp):
    """The share of non-white pixels and the number of distinct colours of a screenshot."""
    png = os.path.join(tmp, os.path.basename(page) + ".png")
    chromium(page, tmp, "--screenshot=" + png, "--window-size=1280,2400",
             "--hide-scrollbars")
    import matplotlib.image
    pixels = matplotlib.image.imread(png)[:, :, :3]
    ink = (pixels < 0.97).any(axis=2).mean()
    colours = len({tuple(p) for p in (pixels[::7, ::7] * 255).astype(int).reshape(-1, 3)})
    return ink, colours


@unittest.skipIf(CHROMIUM is None, "SKIPPED: Chromium is not installed (Debian: chromium)")
class ReportInBrowserTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="rdmasim-report-")
        cls.pages = {}
        for name, scenario, extra in [
                ("quickstart", "quickstart.json", []),
                ("deadlock", "deadlock-ring4.json", []),
                ("allreduce", "allreduce-oversubscribed.json", [])]:
            rdmasim("run", os.path.join(SOURCE, "scenarios", scenario), "-q", "-o", name,
                    "--report", *extra, cwd=cls.tmp)
            cls.pages[name] = os.path.join(cls.tmp, name, "report.html")
        # A training step with tensor, pipeline and data-parallel groups on 4 GPU servers.
        training = {
            "name": "parallel",
            "topology": {"generator": "rail", "nodes": {"count": 4, "preset": "dgx-h100"},
                         "nodes_per_leaf": 4, "spines": 2, "fabric_rate": "400Gbps",
                         "host_latency": "500ns", "fabric_latency": "500ns"},
            "workload": {"training": {
                "parallel": {"tp": 8, "pp": 2, "dp": 2, "microbatches": 4},
                "layers": 4, "layer": {"forward": "50us", "gradients": "1MiB"},
                "activations": "256KiB", "optimizer": "20us"}}}
        with open(os.path.join(cls.tmp, "parallel.json"), "w") as f:
            json.dump(training, f)
        rdmasim("run", "parallel.json", "-q", "-o", "training", "--report", cwd=cls.tmp)
        cls.pages["training"] = os.path.join(cls.tmp, "training", "report.html")
        shared = os.environ.get("RDMASIM_SHARED", "")
        trace = os.path.join(shared, "traces", "nccl-tests_all_reduce_h100_1node_8gpu.txt")
        if shared and os.path.isfile(trace):
            rdmasim("report", "allreduce", "--trace", trace, "-o", "measured.html", cwd=cls.tmp)
            cls.pages["measured"] = os.path.join(cls.tmp, "measured.html")
        rdmasim("sweep", os.path.join(SOURCE, "examples", "sweep", "incast-kmin.json"),
                "--out", "sweep", "-j", "2", "-q", cwd=cls.tmp)
        rdmasim("report", "sweep", cwd=cls.tmp)
        cls.pages["sweep"] = os.path.join(cls.tmp, "sweep", "report.html")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def figures_in(self, page):
        with open(page, encoding="utf-8") as f:
            text = f.read()
        self.assertNotIn("http://", text.replace("http://www.w3.org/2000/svg", ""))
        return text, text.count('<svg class="figure"')

    def test_every_figure_drawn_and_no_console_message(self):
        expected = {"quickstart": ["FCT CDF", "slowdown CDF", "utilisation of the links",
                                   "queue depth over time"],
                    "deadlock": ["who paused whom", "deadlock 1: formed at",
                                 "ingress buffers asserting PFC pause"],
                    "allreduce": ["bus bandwidth against message size"],
                    "training": ["<h2>Training</h2>", "waiting for peers (µs)", "pipeline",
                                 "utilisation of the links"],
                    "measured": ["measured: nccl-tests_all_reduce_h100_1node_8gpu.txt"],
                    "sweep": ["fct_p99_ns against kmin", "pause_frames against kmin"]}
        for name, page in self.pages.items():
            with self.subTest(page=name):
                text, count = self.figures_in(page)
                for title in expected[name]:
                    self.assertIn(title, text)
                drawn, console = load(page, self.tmp)
                self.assertGreater(count, 0)
                self.assertEqual(drawn, count, "figures the browser drew")
                self.assertEqual(console, [], "console messages")

    def test_screenshot_is_not_blank(self):
        for name in ("quickstart", "deadlock"):
            with self.subTest(page=name):
                ink, colours = screenshot_ink(self.pages[name], self.tmp)
                self.assertGreater(ink, 0.02)
                self.assertGreater(colours, 20)

    def test_a_broken_page_is_caught(self):
        # The checks above can fail: a script error is a console message, a figure that does
        # not render is not counted.
        page = os.path.join(self.tmp, "broken.html")
        with open(page, "w") as f:
            f.write('<!DOCTYPE html><html><body><svg class="figure" width="0" height="0"></svg>'
                    '<script>window.addEventListener("load", function () {'
                    'document.body.setAttribute("data-figures", "0"); undefinedFunction(); });'
                    '</script></body></html>')
        drawn, console = load(page, self.tmp)
        self.assertEqual(drawn, 0)
        self.assertTrue(any("undefinedFunction" in line for line in console), console)


if __name__ == "__main__":
    unittest.main(verbosity=2)
