#!/usr/bin/env python3
"""Golden fingerprints of the shipped scenarios.

A scenario's fingerprint is the SHA-256 of each output file of `rdmasim run` that carries
results: every file of the output folder (and of its per-fabric subfolders) except
run_stats.json (wall time, memory), with summary.json reduced to its results — the `config`
echo (the effective parameters), the `warnings` (sentences about results the other keys and
files already carry) and the engine's own bookkeeping (`counters.events`,
`counters.packet_pool_capacity`, which a faster engine may change without changing any
result) are left out. tests/golden/fingerprints.txt holds one line per scenario and file:

    <scenario file>  <output file>  <sha256>

  tools/golden.py check SCENARIO.json   run it and compare (a ctest test per scenario)
  tools/golden.py update [SCENARIO...]  run them (default: every shipped scenario) and rewrite
                                         their lines

Both take --rdmasim PATH (default build/bin/rdmasim). A change of model behaviour shows as a
changed line in the diff of fingerprints.txt; its commit says why.
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOLDEN = os.path.join(ROOT, "tests", "golden", "fingerprints.txt")
ENGINE_COUNTERS = ("events", "packet_pool_capacity")


def shipped_scenarios():
    folder = os.path.join(ROOT, "scenarios")
    return sorted(f for f in os.listdir(folder) if f.endswith(".json"))


def canonical_summary(path):
    with open(path, encoding="utf-8") as f:
        summary = json.load(f)
    summary.pop("config", None)
    summary.pop("warnings", None)  # restates results hashed already (stop reason, drops, ...)
    counters = summary.get("counters")
    if isinstance(counters, dict):
        for key in ENGINE_COUNTERS:
            counters.pop(key, None)
    return json.dumps(summary, sort_keys=True, separators=(",", ":")).encode()


def fingerprint(rdmasim, scenario):
    """{output file (relative): sha256} of one run of scenarios/<scenario>."""
    with tempfile.TemporaryDirectory(prefix="rdmasim-golden-") as tmp:
        out = os.path.join(tmp, "out")
        run = subprocess.run(
            [rdmasim, "run", os.path.join(ROOT, "scenarios", scenario), "--out", out],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False)
        if run.returncode != 0:  # a deadlock is a result: exit code 0
            sys.exit(f"{scenario}: rdmasim run exited {run.returncode}\n{run.stderr}")
        prints = {}
        for folder, _, files in os.walk(out):
            for name in files:
                if name == "run_stats.json":
                    continue
                path = os.path.join(folder, name)
                rel = os.path.relpath(path, out)
                if name == "summary.json":
                    data = canonical_summary(path)
                else:
                    with open(path, "rb") as f:
                        data = f.read()
                prints[rel] = hashlib.sha256(data).hexdigest()
        return prints


def read_golden():
    lines = {}
    if os.path.exists(GOLDEN):
        with open(GOLDEN, encoding="utf-8") as f:
            for line in f:
                if line.startswith("#") or not line.strip():
                    continue
                scenario, rel, digest = line.split()
                lines.setdefault(scenario, {})[rel] = digest
    return lines


def write_golden(golden):
    os.makedirs(os.path.dirname(GOLDEN), exist_ok=True)
    tmp = GOLDEN + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write("# Golden fingerprints of the shipped scenarios: tools/golden.py (regenerate with\n"
                "# `python3 tools/golden.py update`). <scenario> <output file> <sha256>\n")
        for scenario in sorted(golden):
            for rel in sorted(golden[scenario]):
                f.write(f"{scenario}  {rel}  {golden[scenario][rel]}\n")
    os.replace(tmp, GOLDEN)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("mode", choices=["check", "update"])
    parser.add_argument("scenarios", nargs="*")
    parser.add_argument("--rdmasim", default=os.path.join(ROOT, "build", "bin", "rdmasim"))
    args = parser.parse_args()
    scenarios = [os.path.basename(s) for s in args.scenarios] or shipped_scenarios()
    golden = read_golden()
    if args.mode == "update":
        for scenario in scenarios:
            golden[scenario] = fingerprint(args.rdmasim, scenario)
            print(f"{scenario}: {len(golden[scenario])} files")
        write_golden(golden)
        return 0
    failed = False
    for scenario in scenarios:
        want = golden.get(scenario)
        if want is None:
            print(f"{scenario}: no fingerprint in tests/golden/fingerprints.txt "
                  "(python3 tools/golden.py update " + scenario + ")")
            failed = True
            continue
        got = fingerprint(args.rdmasim, scenario)
        for rel in sorted(set(want) | set(got)):
            if want.get(rel) != got.get(rel):
                print(f"{scenario}: {rel} differs (golden {want.get(rel, 'absent')}, "
                      f"now {got.get(rel, 'absent')})")
                failed = True
        if not failed:
            print(f"{scenario}: {len(got)} files as pinned")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
