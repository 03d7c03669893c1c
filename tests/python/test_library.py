"""The Python module `rdmasim` (scenarios/api/python): runs equal to the CLI's, messages and
callbacks, results as dicts and columns, refusals. Run by ctest with PYTHONPATH=build/python
(RDMASIM_SOURCE_DIR, RDMASIM_BIN_DIR set)."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

import rdmasim

SOURCE = os.environ["RDMASIM_SOURCE_DIR"]
BIN = os.environ["RDMASIM_BIN_DIR"]
QUICKSTART = os.path.join(SOURCE, "scenarios", "quickstart.json")


def star(n, workload=None):
    nodes = [{"name": "s0", "kind": "switch"}]
    links = []
    for h in range(n):
        nodes.append({"name": f"h{h}", "kind": "host"})
        links.append({"a": f"h{h}", "b": "s0", "rate": "100Gbps", "latency": "1us"})
    return json.dumps({"name": "py-star", "seed": 3,
                       "topology": {"nodes": nodes, "links": links},
                       "workload": workload or {},
                       "stop": {"until": "workload-done", "time": "50ms"}})


class RunTest(unittest.TestCase):
    def test_run_matches_the_cli(self):
        with tempfile.TemporaryDirectory() as tmp:
            cli = os.path.join(tmp, "cli")
            subprocess.run([os.path.join(BIN, "rdmasim"), "run", QUICKSTART, "-q", "-o", cli],
                           check=True, stdout=subprocess.DEVNULL)
            sim = rdmasim.Simulation.from_file(QUICKSTART)
            self.assertEqual(sim.name, "quickstart")
            self.assertEqual(len(sim.hosts()), 16)
            self.assertEqual(sim.gpus(), [])  # no GPU servers in the quickstart
            r = sim.run()
            self.assertEqual(r.stop_reason, "workload-done")
            with open(os.path.join(cli, "summary.json")) as f:
                summary = json.load(f)
            self.assertEqual(r.results, summary["results"])
            self.assertEqual(r.summary, summary)
            api = os.path.join(tmp, "api")
            sim.write_outputs(api)
            for name in ("flows.csv", "links.csv"):
                with open(os.path.join(cli, name)) as a, open(os.path.join(api, name)) as b:
                    self.assertEqual(a.read(), b.read(), name)

    def test_results_as_rows_and_columns(self):
        r = rdmasim.Simulation.from_file(QUICKSTART, sets=["workload.permutation.size=200KB"],
                                         seed=7).run()
        rows, columns = r.flows, r.flow_columns()
        self.assertEqual(len(rows), 20)
        self.assertEqual(len(columns["fct_ps"]), 20)
        self.assertEqual([row["fct_ps"] for row in rows], columns["fct_ps"])
        self.assertTrue(all(columns["completed"]))
        # the override took: permutation flows are 200 KB
        sizes = {row["bytes"] for row in rows if row["tag"] == "permutation"}
        self.assertEqual(sizes, {200000})
        self.assertEqual(r.counters["events"], r.events)


class MessageTest(unittest.TestCase):
    def test_send_recv_schedule(self):
        sim = rdmasim.Simulation.from_json(star(3))
        log = []
        sim.recv("h0", "h1", 4, lambda m: log.append(("recv", m.src, m.dst, m.delivered)))
        done = []
        mid = sim.send("h0", "h1", 100000, on_complete=lambda m: done.append(m), tag=4)
        sim.schedule(3 * rdmasim.US, lambda: log.append(("timer", sim.now)))
        self.assertTrue(sim.run_until_done())
        self.assertEqual(len(done), 1)
        m = done[0]
        self.assertEqual((m.id, m.src, m.dst, m.bytes, m.tag), (mid, "h0", "h1", 100000, 4))
        self.assertLess(0, m.delivered)
        self.assertLess(m.delivered, m.completed)
        self.assertEqual(log[0], ("timer", 3 * rdmasim.US))
        self.assertEqual(log[1], ("recv", "h0", "h1", m.delivered))
        r = sim.finish()
        self.assertEqual(r.flows[0]["tag"], "api")
        self.assertEqual(r.flows[0]["finish_ps"], m.completed)

    def test_same_message_as_a_flow_of_the_file(self):
        by_file = rdmasim.Simulation.from_json(
            star(3, {"flows": [{"src": "h0", "dst": "h2", "size": "1MB"}]})).run()
        sim = rdmasim.Simulation.from_json(star(3))
        done = []
        sim.send("h0", "h2", 1000000, on_complete=done.append)
        sim.run_until(10 * rdmasim.MS)
        self.assertEqual(sim.now, 10 * rdmasim.MS)
        self.assertEqual(done[0].completed, by_file.flows[0]["finish_ps"])

    def test_refusals(self):
        sim = rdmasim.Simulation.from_json(star(2))
        with self.assertRaisesRegex(rdmasim.InputError, r"^send\.src: got nowhere"):
            sim.send("nowhere", "h1", 10)
        with self.assertRaisesRegex(rdmasim.InputError, r"^send\.bytes"):
            sim.send("h0", "h1", -1)
        with self.assertRaisesRegex(rdmasim.InputError, r"^send\.transport"):
            sim.send("h0", "h1", 10, transport="carrier-pigeon")
        with self.assertRaisesRegex(rdmasim.InputError, r"^fabric\.switch\.latency"):
            rdmasim.Simulation.from_json(star(2), sets=["fabric.switch.latency=-1ns"])
        with self.assertRaises(ValueError):  # InputError is a ValueError
            rdmasim.Simulation.from_file(os.path.join(SOURCE, "no-such-scenario.json"))
        # an exception raised in a callback reaches the caller of the run
        sim.schedule(1, lambda: 1 / 0)
        with self.assertRaises(ZeroDivisionError):
            sim.run_until(10)


class ExampleTest(unittest.TestCase):
    def test_ecn_sweep_example_prints_and_plots(self):
        script = os.path.join(SOURCE, "examples", "python", "sweep_ecn_thresholds.py")
        with tempfile.TemporaryDirectory() as tmp:
            png = os.path.join(tmp, "ecn.png")
            out = subprocess.run([sys.executable, script, "--duration", "20us",
                                  "--kmin", "20KB", "400KB", "-o", png],
                                 check=True, capture_output=True, text=True,
                                 env=dict(os.environ)).stdout
            rows = [line.split() for line in out.splitlines()[1:3]]
            self.assertEqual([r[0] for r in rows], ["20KB", "400KB"])
            for r in rows:
                self.assertGreater(int(r[1]), 10)  # flows
                p50, p95, p99 = map(float, r[2:5])
                self.assertTrue(1.0 <= p50 <= p95 <= p99, r)
            self.assertGreater(os.path.getsize(png), 10000)


if __name__ == "__main__":
    unittest.main()
