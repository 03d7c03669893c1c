// --max-memory (issue 17 item 7): the memory a scenario needs is estimated before it runs
// (scenarios/loader/memory_estimate.hpp) and a scenario beyond the limit is refused with the
// estimate and the knob — before a generator makes its flows, before the network is built —
// and what only the run knows is bounded while it runs (scenarios/run/memory_guard.hpp).
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_runner.hpp"
#include "scenarios/loader/memory_estimate.hpp"
#include "scenarios/loader/scenario.hpp"
#include "temp_dir.hpp"

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using test_support::contains;
using test_support::rdmasim;
using test_support::Run;
using test_support::TempDir;

const std::string kQuickstart = RDMASIM_SOURCE_DIR "/scenarios/quickstart.json";

// A leaf-spine of `leaves` x 32 hosts and 16 spines, with `workload`.
Json leaf_spine(int leaves, const Json& workload) {
  return {{"name", "big"},
          {"topology",
           {{"generator", "leaf-spine"},
            {"leaves", leaves},
            {"spines", 16},
            {"hosts_per_leaf", 32},
            {"host_rate", "100Gbps"},
            {"fabric_rate", "400Gbps"}}},
          {"workload", workload},
          {"stop", {{"until", "workload-done"}, {"time", "10ms"}}}};
}

const Json kTwoFlows = {{"flows", {{{"src", "h0"}, {"dst", "h1"}, {"size", "1KB"}}}}};

}  // namespace

TEST_CASE("memory: the estimate counts routing tables, ports, flows and samples",
          "[scenario][memory]") {
  Json j = leaf_spine(4, {{"all_to_all", {{"hosts", "all"}, {"size", "1KB"}}}});
  j["outputs"] = {{"timeseries", {{"ports", {"leaf0:0", "h1"}}, {"interval", "1us"}}}};
  const scen::Scenario s = scen::load_scenario_json(j, ".", {});
  const scen::MemoryEstimate e = scen::estimate_memory(s);
  const int64_t hosts = 128, nodes = 128 + 4 + 16, links = 128 + 4 * 16;
  CHECK(e.routes == nodes * hosts * scen::kMemoryPerRoutePair);
  CHECK(e.ports == 2 * links * scen::kMemoryPerPort);
  CHECK(e.flow_count == static_cast<size_t>(hosts * (hosts - 1)));
  CHECK(e.flows == hosts * (hosts - 1) * scen::kMemoryPerFlow);
  // Two series every microsecond: 2,000 rows per simulated ms; the run ends with its
  // workload, so the whole is bounded while it runs, not estimated.
  CHECK(e.samples_per_ms == 2000 * scen::kMemoryPerSampleRow);
  CHECK(e.samples == 0);
  CHECK(e.total() == scen::kMemoryFixedBytes + e.routes + e.ports + e.flows);
  // Run to a fixed time instead: the samples over that time count.
  j["stop"] = {{"until", "time"}, {"time", "3ms"}};
  const scen::MemoryEstimate timed = scen::estimate_memory(scen::load_scenario_json(j, ".", {}));
  CHECK(timed.samples == 3 * 2000 * scen::kMemoryPerSampleRow);
  // Linear forwarding tables add their port per (node, host).
  j["routing"] = "minhop";
  CHECK(scen::estimate_memory(scen::load_scenario_json(j, ".", {})).routes ==
        nodes * hosts * (scen::kMemoryPerRoutePair + scen::kMemoryPerRoutePairLft));
}

TEST_CASE(
    "memory: check prints the estimate, and a fabric beyond --max-memory is refused before "
    "it is built",
    "[scenario][memory][cli]") {
  TempDir dir("rdmasim_memory");
  dir.write("small.json", leaf_spine(2, kTwoFlows).dump());
  const Run ok = rdmasim({"check", "small.json", "--max-memory", "1GiB"}, dir);
  INFO(ok.out << ok.err);
  REQUIRE(ok.exit_code == 0);
  CHECK(contains(ok.out, "memory    estimate "));
  CHECK(contains(ok.out, "limit --max-memory 1.0GiB"));
  CHECK(contains(ok.out, "data packets"));

  // 4,096 hosts: 139 MB of routing tables alone.
  dir.write("big.json", leaf_spine(128, kTwoFlows).dump());
  for (const bool run : {false, true}) {
    const Run r = run ? rdmasim({"run", "big.json", "--max-memory", "64MiB", "-o", "out"}, dir)
                      : rdmasim({"check", "big.json", "--max-memory", "64MiB"}, dir);
    INFO((run ? "run" : "check") << ": " << r.out << r.err);
    CHECK(r.exit_code == 2);
    CHECK(contains(r.err, "--max-memory"));
    CHECK(contains(r.err, "routing tables 132.5MiB"));
    CHECK_FALSE(contains(r.out, "topology "));  // refused before the network was built
    CHECK_FALSE(fs::exists(dir / "out"));
  }
  // A limit that is no size.
  const Run bad = rdmasim({"check", "small.json", "--max-memory", "lots"}, dir);
  CHECK(bad.exit_code == 2);
  CHECK(contains(bad.err, "--max-memory: got lots; expected a memory size"));
}

TEST_CASE(
    "memory: a generator that would make more flows than fit is refused before it makes "
    "them",
    "[scenario][memory][cli]") {
  TempDir dir("rdmasim_memory_flows");
  // An all-to-all over 1,024 hosts: 1,047,552 flows, about 1 GiB.
  dir.write("a2a.json",
            leaf_spine(32, {{"all_to_all", {{"hosts", "all"}, {"size", "1KB"}}}}).dump());
  const Run a2a = rdmasim({"check", "a2a.json", "--max-memory", "256MiB"}, dir);
  INFO(a2a.out << a2a.err);
  CHECK(a2a.exit_code == 2);
  CHECK(contains(a2a.err, "workload.all_to_all: got 1.05e+06 flows"));
  CHECK(contains(a2a.err, "--max-memory 256.0MiB"));
  // 100 s of Poisson arrivals on 64 hosts at 100 Gb/s: millions of flows.
  dir.write(
      "poisson.json",
      leaf_spine(2, {{"poisson", {{"cdf", "websearch"}, {"load", 0.5}, {"duration", "100s"}}}})
          .dump());
  const Run poisson = rdmasim({"check", "poisson.json", "--max-memory", "256MiB"}, dir);
  INFO(poisson.out << poisson.err);
  CHECK(poisson.exit_code == 2);
  CHECK(contains(poisson.err, "workload.poisson"));
  CHECK(contains(poisson.err, "room for"));
  // The same workloads within a limit that holds them load (1 ms of arrivals).
  const Run short_poisson = rdmasim(
      {"check", "poisson.json", "--max-memory", "256MiB", "--set", "workload.poisson.duration=1ms"},
      dir);
  INFO(short_poisson.out << short_poisson.err);
  CHECK(short_poisson.exit_code == 0);
}

TEST_CASE("memory: samples beyond the limit stop the run, before or while it runs",
          "[scenario][memory][cli]") {
  TempDir dir("rdmasim_memory_run");
  // To a fixed time, a 1 ps sampling period is known to be too much before the run.
  const Run timed =
      rdmasim({"run", kQuickstart, "--set", "stop.until=time", "--set", "stop.time=1ms", "--set",
               "outputs.timeseries.interval=1ps", "--max-memory", "1GiB", "-o", "timed", "-q"},
              dir);
  INFO(timed.out << timed.err);
  CHECK(timed.exit_code == 2);
  CHECK(contains(timed.err, "samples 178.8GiB"));
  CHECK_FALSE(fs::exists(dir / "timed"));
  // Until the workload is done, the run finds out: stopped when the process passes the limit,
  // nothing written.
  const Run grown = rdmasim({"run", kQuickstart, "--set", "outputs.timeseries.interval=1ps",
                             "--max-memory", "256MiB", "-o", "grown", "-q"},
                            dir);
  INFO(grown.out << grown.err);
  CHECK(grown.exit_code == 2);
  CHECK(contains(grown.err, "the process reached"));
  CHECK(contains(grown.err, "outputs.timeseries.interval"));
  CHECK_FALSE(fs::exists(dir / "grown"));
  // The quickstart as shipped runs within the same limit: the guard does not fire on a run
  // that fits.
  const Run fits = rdmasim({"run", kQuickstart, "--max-memory", "256MiB", "-o", "fits", "-q"}, dir);
  INFO(fits.out << fits.err);
  CHECK(fits.exit_code == 0);
  CHECK(fs::exists(dir / "fits/summary.json"));
}
