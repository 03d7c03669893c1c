#include <unistd.h>

#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>

#include "scenarios/loader/scenario.hpp"
#include "scenarios/outputs/collectives_table.hpp"
#include "scenarios/outputs/fabric_comparison.hpp"
#include "scenarios/outputs/percentiles.hpp"
#include "scenarios/outputs/write_outputs.hpp"
#include "scenarios/run/run_scenario.hpp"
#include "tools/cli/commands.hpp"
#include "tools/cli/parse_options.hpp"

namespace po = boost::program_options;

namespace cli {
namespace {

std::string str(const scen::Json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

void print_headline(const scen::Scenario& s, const scen::RunOutcome& out, const std::string& dir) {
  const auto& r = out.results;
  std::printf("scenario %s  seed %llu  (%zu hosts, %zu switches, %zu links)\n", s.name.c_str(),
              static_cast<unsigned long long>(s.seed), s.fabric.host_node.size(),
              s.fabric.topo.nodes.size() - s.fabric.host_node.size(), s.fabric.topo.links.size());
  std::printf("  %-26s %s (%s)\n", "simulated until", (str(r["end_time_ns"]) + " ns").c_str(),
              str(r["stop_reason"]).c_str());
  std::printf("  %-26s %s of %s\n", "flows completed", str(r["flows_completed"]).c_str(),
              str(r["flows"]).c_str());
  std::printf("  %-26s %s / %s / %s ns\n", "FCT p50 / p99 / max", str(r["fct_p50_ns"]).c_str(),
              str(r["fct_p99_ns"]).c_str(), str(r["fct_max_ns"]).c_str());
  std::printf("  %-26s %s / %s\n", "slowdown p50 / p99", str(r["slowdown_p50"]).c_str(),
              str(r["slowdown_p99"]).c_str());
  if (r.contains("goodput_gbps")) {
    std::printf("  %-26s %s Gb/s\n", "aggregate goodput", str(r["goodput_gbps"]).c_str());
  }
  const auto& d = r["drops"];
  std::printf("  %-26s tail %s, ttl %s, no-route %s, link loss %s\n", "drops",
              str(d["tail"]).c_str(), str(d["ttl"]).c_str(), str(d["no_route"]).c_str(),
              str(d["link_loss"]).c_str());
  std::printf("  %-26s %s (timeouts %s, NACKs %s)\n", "retransmitted packets",
              str(r["retransmitted_packets"]).c_str(), str(r["timeouts"]).c_str(),
              str(r["nacks"]).c_str());
  if (r.contains("pfc")) {
    const auto& p = r["pfc"];
    std::printf(
        "  %-26s %s pause frames, %s ns paused, %s headroom exhaustions, %s lossless drops\n",
        "pfc", str(p["pause_frames"]).c_str(), str(p["paused_time_ns"]).c_str(),
        str(p["headroom_exhaustions"]).c_str(), str(d["lossless"]).c_str());
  }
  if (r.contains("infiniband")) {
    const auto& ib = r["infiniband"];
    std::printf("  %-26s %s credit stalls, %s ns stalled, peak VL buffer %s of %s blocks\n",
                "infiniband", str(ib["credit_stalls"]).c_str(),
                str(ib["credit_stalled_ns"]).c_str(), str(ib["peak_vl_buffer_blocks"]).c_str(),
                str(ib["vl_buffer_blocks"]).c_str());
  }
  if (r.contains("routing") &&
      (r["routing"]["adaptive"].get<bool>() || r["routing"]["algorithm"] != "shortest-path")) {
    const auto& rt = r["routing"];  // shown when not the default per-flow ECMP
    std::printf("  %-26s %s, adaptive %s: %s packets rerouted, %s out of order\n", "routing",
                str(rt["algorithm"]).c_str(), rt["adaptive"].get<bool>() ? "on" : "off",
                str(rt["adaptive_reroutes"]).c_str(), str(rt["out_of_order_packets"]).c_str());
  }
  if (r.contains("deadlock_events")) {
    for (const auto& e : r["deadlock_events"]) {
      std::string cycle;
      for (const auto& m : e["cycle"]) cycle += str(m) + " -> ";
      cycle += str(e["cycle"][0]);
      std::printf("  %-26s formed %s ns, detected %s ns: %s (%zu flows, %s bytes frozen)\n",
                  "PFC DEADLOCK", str(e["formed_ns"]).c_str(), str(e["detected_ns"]).c_str(),
                  cycle.c_str(), e["flows"].size(), str(e["frozen_bytes"]).c_str());
    }
  }
  if (r.contains("ecn")) {
    std::printf("  %-26s %s packets marked\n", "ecn", str(r["ecn"]["marks"]).c_str());
  }
  if (r.contains("dcqcn")) {
    const auto& c = r["dcqcn"];
    std::printf("  %-26s %s: %s CNPs, %s flagged ACKs, %s decreases, min rate %s Gb/s\n", "dcqcn",
                str(c["preset"]).c_str(), str(c["cnps_sent"]).c_str(),
                str(c["congestion_flagged_acks"]).c_str(), str(c["rate_decreases"]).c_str(),
                str(c["min_rate_gbps"]).c_str());
  }
  std::printf("  %-26s %.3f s, %.2f M events/s, %.2f M packet-hops/s\n", "wall time",
              out.wall_seconds, out.wall_seconds > 0 ? out.events / out.wall_seconds / 1e6 : 0.0,
              out.wall_seconds > 0 ? out.packet_hops / out.wall_seconds / 1e6 : 0.0);
  std::printf("  outputs in %s/\n", dir.c_str());
}

// "fabric": [...]: every fabric loaded first (bad input refused before any run), then each run
// into <out>/<fabric>/, then one table comparing them (also <out>/comparison.csv).
int run_each_fabric(const std::string& file, scen::LoadOptions lo, const scen::Scenario& first,
                    const std::string& out_dir, bool quiet) {
  std::vector<scen::Scenario> scenarios;
  for (const std::string& f : first.fabrics) {
    lo.fabric = f;
    scenarios.push_back(scen::load_scenario_file(file, lo));
  }
  std::vector<scen::RunOutcome> outcomes;
  outcomes.reserve(scenarios.size());
  for (size_t i = 0; i < scenarios.size(); ++i) {
    scen::RunOptions ro;
    ro.progress = !quiet && isatty(STDERR_FILENO);
    outcomes.push_back(scen::run_scenario(scenarios[i], ro));
    const std::string dir = out_dir + "/" + first.fabrics[i];
    scen::write_outputs(scenarios[i], outcomes.back(), dir);
    if (!quiet) {
      std::printf("[%s]\n", first.fabrics[i].c_str());
      print_headline(scenarios[i], outcomes.back(), dir);
    }
  }
  std::vector<scen::FabricRun> runs;
  for (size_t i = 0; i < scenarios.size(); ++i) runs.push_back({first.fabrics[i], &outcomes[i]});
  scen::write_file_atomic(out_dir + "/comparison.csv", scen::fabric_comparison_csv(runs));
  if (!quiet) std::printf("\n%s", scen::fabric_comparison_table(runs).c_str());
  return kOk;
}

}  // namespace

int cmd_run(int argc, char** argv) {
  po::options_description opts("rdmasim run SCENARIO [options]");
  std::string out_dir;
  std::vector<std::string> sets;
  uint64_t seed = 0;
  opts.add_options()("help,h", "this help")("out,o", po::value(&out_dir),
                                            "output folder (default ./out/<scenario name>)")(
      "set", po::value(&sets)->composing(),
      "override a value: --set fabric.switch.latency=300ns (repeatable; array elements as "
      "links[3].rate)")("seed", po::value(&seed), "random seed (overrides the scenario's)")(
      "quiet,q", "no progress line")("list-params", "print every model parameter and exit");
  std::string scenario;
  const po::variables_map vm = parse_options(argc, argv, opts, "scenario", scenario);
  if (vm.count("help")) {
    std::cout << opts << "\n";
    return kOk;
  }
  if (vm.count("list-params")) {
    std::cout << scen::list_parameters();
    return kOk;
  }
  if (scenario.empty()) {
    std::cerr << "rdmasim run: missing SCENARIO\n" << opts << "\n";
    return kBadInput;
  }
  scen::LoadOptions lo;
  lo.sets = sets;
  lo.has_seed = vm.count("seed") > 0;
  lo.seed = seed;
  const scen::Scenario s = scen::load_scenario_file(scenario, lo);
  if (out_dir.empty()) out_dir = "out/" + s.name;
  if (s.fabrics.size() > 1) return run_each_fabric(scenario, lo, s, out_dir, vm.count("quiet") > 0);
  scen::RunOptions ro;
  ro.progress = !vm.count("quiet") && isatty(STDERR_FILENO);
  const scen::RunOutcome out = scen::run_scenario(s, ro);
  scen::write_outputs(s, out, out_dir);
  if (!vm.count("quiet")) {
    if (!s.collectives.empty()) {
      std::printf("%s", scen::collectives_table(out.collectives, s.collectives).c_str());
    }
    if (!out.training_steps.empty()) std::printf("%s", scen::training_summary(out).c_str());
    print_headline(s, out, out_dir);
  }
  return kOk;
}

}  // namespace cli
