#include <unistd.h>

#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>
#include <memory>
#include <sstream>

#include "scenarios/loader/input_error.hpp"
#include "scenarios/loader/memory_estimate.hpp"
#include "scenarios/loader/param_registry.hpp"
#include "scenarios/loader/scenario.hpp"
#include "scenarios/outputs/collectives_table.hpp"
#include "scenarios/outputs/fabric_comparison.hpp"
#include "scenarios/outputs/output_folder.hpp"
#include "scenarios/outputs/result_text.hpp"
#include "scenarios/outputs/timeline_json.hpp"
#include "scenarios/outputs/write_outputs.hpp"
#include "scenarios/run/percentiles.hpp"
#include "scenarios/run/run_scenario.hpp"
#include "sim/rank_exchange.hpp"
#include "sim/units.hpp"
#include "tools/cli/commands.hpp"
#include "tools/cli/mpi_launch.hpp"
#include "tools/cli/parse_options.hpp"

namespace po = boost::program_options;

namespace cli {
namespace {

using scen::result_text;

void print_headline(const scen::Scenario& s, const scen::RunOutcome& out, const std::string& dir) {
  const auto& r = out.results;
  std::printf("scenario %s  seed %llu  (%zu hosts, %zu switches, %zu links)\n", s.name.c_str(),
              static_cast<unsigned long long>(s.seed), s.fabric.host_node.size(),
              s.fabric.topo.nodes.size() - s.fabric.host_node.size(), s.fabric.topo.links.size());
  std::printf("  %-26s %s (%s)\n", "simulated until",
              (result_text(r["end_time_ns"]) + " ns").c_str(),
              result_text(r["stop_reason"]).c_str());
  std::printf("  %-26s %s of %s\n", "flows completed", result_text(r["flows_completed"]).c_str(),
              result_text(r["flows"]).c_str());
  std::printf("  %-26s %s / %s / %s ns\n", "FCT p50 / p99 / max",
              result_text(r["fct_p50_ns"]).c_str(), result_text(r["fct_p99_ns"]).c_str(),
              result_text(r["fct_max_ns"]).c_str());
  std::printf("  %-26s %s / %s\n", "slowdown p50 / p99", result_text(r["slowdown_p50"]).c_str(),
              result_text(r["slowdown_p99"]).c_str());
  if (r.contains("goodput_Gbps")) {
    std::printf("  %-26s %s Gb/s\n", "aggregate goodput", result_text(r["goodput_Gbps"]).c_str());
  }
  const auto& d = r["drops"];
  std::printf("  %-26s tail %s, ttl %s, no-route %s, link loss %s\n", "drops",
              result_text(d["tail"]).c_str(), result_text(d["ttl"]).c_str(),
              result_text(d["no_route"]).c_str(), result_text(d["link_loss"]).c_str());
  std::printf("  %-26s %s (timeouts %s, NACKs %s)\n", "retransmitted packets",
              result_text(r["retransmitted_packets"]).c_str(), result_text(r["timeouts"]).c_str(),
              result_text(r["nacks"]).c_str());
  if (r.contains("pfc")) {
    const auto& p = r["pfc"];
    std::printf(
        "  %-26s %s pause frames, %s ns paused, %s headroom exhaustions, %s lossless drops\n",
        "pfc", result_text(p["pause_frames"]).c_str(), result_text(p["paused_time_ns"]).c_str(),
        result_text(p["headroom_exhaustions"]).c_str(), result_text(d["lossless"]).c_str());
  }
  if (r.contains("infiniband")) {
    const auto& ib = r["infiniband"];
    std::printf("  %-26s %s credit stalls, %s ns stalled, peak VL buffer %s of %s blocks\n",
                "infiniband", result_text(ib["credit_stalls"]).c_str(),
                result_text(ib["credit_stalled_ns"]).c_str(),
                result_text(ib["peak_vl_buffer_blocks"]).c_str(),
                result_text(ib["vl_buffer_blocks"]).c_str());
    if (ib.contains("cc")) {
      const auto& cc = ib["cc"];
      std::printf("  %-26s %s FECN marks, %s BECNs received, max CCTI %s, lowest rate %s Gb/s\n",
                  "infiniband cc", result_text(cc["fecn_marks"]).c_str(),
                  result_text(cc["becns_received"]).c_str(), result_text(cc["max_ccti"]).c_str(),
                  result_text(cc["min_rate_Gbps"]).c_str());
    }
  }
  if (r.contains("routing") &&
      (r["routing"]["adaptive"].get<bool>() || r["routing"]["algorithm"] != "shortest-path")) {
    const auto& rt = r["routing"];  // shown when not the default per-flow ECMP
    std::printf("  %-26s %s, adaptive %s: %s packets rerouted, %s out of order\n", "routing",
                result_text(rt["algorithm"]).c_str(), rt["adaptive"].get<bool>() ? "on" : "off",
                result_text(rt["adaptive_reroutes"]).c_str(),
                result_text(rt["out_of_order_packets"]).c_str());
  }
  if (r.contains("deadlock_events")) {
    for (const auto& e : r["deadlock_events"]) {
      std::string cycle;
      for (const auto& m : e["cycle"]) cycle += result_text(m) + " -> ";
      cycle += result_text(e["cycle"][0]);
      std::printf("  %-26s formed %s ns, detected %s ns: %s (%zu flows, %s bytes frozen)\n",
                  "PFC DEADLOCK", result_text(e["formed_ns"]).c_str(),
                  result_text(e["detected_ns"]).c_str(), cycle.c_str(), e["flows"].size(),
                  result_text(e["frozen_bytes"]).c_str());
    }
  }
  if (r.contains("ecn")) {
    std::printf("  %-26s %s packets marked\n", "ecn", result_text(r["ecn"]["marks"]).c_str());
  }
  if (r.contains("dcqcn")) {
    const auto& c = r["dcqcn"];
    std::printf("  %-26s %s: %s CNPs, %s flagged ACKs, %s decreases, min rate %s Gb/s\n", "dcqcn",
                result_text(c["preset"]).c_str(), result_text(c["cnps_sent"]).c_str(),
                result_text(c["congestion_flagged_acks"]).c_str(),
                result_text(c["rate_decreases"]).c_str(), result_text(c["min_rate_Gbps"]).c_str());
  }
  if (r.contains("cc")) {
    const auto& c = r["cc"];
    std::printf("  %-26s %s (%s): %s updates, %s decreases, base RTT %s ns, min rate %s Gb/s\n",
                "congestion control", result_text(c["algorithm"]).c_str(),
                result_text(c["preset"]).c_str(), result_text(c["updates"]).c_str(),
                result_text(c["rate_decreases"]).c_str(), result_text(c["base_rtt_ns"]).c_str(),
                result_text(c["min_rate_Gbps"]).c_str());
  }
  if (r.contains("tcp")) {
    const auto& t = r["tcp"];
    std::printf(
        "  %-26s %s: %s segments, %s retransmitted (%s fast recoveries, %s timeouts), %s "
        "ECN cuts, CPU %s us\n",
        "tcp", result_text(t["cc"]).c_str(), result_text(t["segments_sent"]).c_str(),
        result_text(t["segments_retransmitted"]).c_str(), result_text(t["fast_recoveries"]).c_str(),
        result_text(t["timeouts"]).c_str(), result_text(t["ecn_reductions"]).c_str(),
        result_text(t["cpu_time_us"]).c_str());
  }
  std::printf("  %-26s %.3f s, %.2f M events/s, %.2f M packet-hops/s\n", "wall time",
              out.wall_seconds, out.wall_seconds > 0 ? out.events / out.wall_seconds / 1e6 : 0.0,
              out.wall_seconds > 0 ? out.packet_hops / out.wall_seconds / 1e6 : 0.0);
  std::printf("  outputs in %s/\n", dir.c_str());
}

struct TimelineRequest {
  std::string file;  // empty: no timeline
  models::TimelineOptions options;
};

// --timeline FILE, --timeline-window FROM:TO, --timeline-ports A:1,B:2, --timeline-max-spans N.
TimelineRequest timeline_request(const std::string& file, const std::string& window,
                                 const std::string& ports, int64_t max_spans) {
  TimelineRequest t;
  t.file = file;
  t.options.enabled = !file.empty();
  if (!window.empty()) {
    const size_t colon = window.find(':');
    const char* expected =
        "FROM:TO with durations and FROM < TO (e.g. 100us:2ms; either may be empty)";
    if (colon == std::string::npos) throw scen::InputError("--timeline-window", window, expected);
    try {
      const std::string from = window.substr(0, colon);
      if (!from.empty() && from != "0") t.options.from = sim::parse_time(from);
      if (colon + 1 < window.size()) t.options.to = sim::parse_time(window.substr(colon + 1));
    } catch (const sim::UnitError&) {
      throw scen::InputError("--timeline-window", window, expected);
    }
    if (t.options.from.ps < 0 || t.options.from >= t.options.to) {
      throw scen::InputError("--timeline-window", window, expected);
    }
  }
  std::stringstream list(ports);
  for (std::string port; std::getline(list, port, ',');) {
    if (!port.empty()) t.options.ports.push_back(port);
  }
  if (max_spans <= 0) {
    throw scen::InputError("--timeline-max-spans", std::to_string(max_spans), "a positive count");
  }
  t.options.max_spans = static_cast<size_t>(max_spans);
  if ((!window.empty() || !ports.empty()) && file.empty()) {
    throw scen::InputError("--timeline", "",
                           "a FILE when --timeline-window or --timeline-ports is given");
  }
  return t;
}

// `file` for one fabric of a list: "t.json" -> "t-infiniband.json".
std::string per_fabric(const std::string& file, const std::string& fabric) {
  const size_t slash = file.find_last_of('/');
  const size_t dot = file.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) {
    return file + "-" + fabric;
  }
  return file.substr(0, dot) + "-" + fabric + file.substr(dot);
}

void write_timeline(const scen::RunOutcome& out, const std::string& file, bool quiet) {
  if (!out.timeline) return;
  scen::write_file_atomic(file, scen::chrome_trace_json(*out.timeline));
  if (!quiet) {
    std::printf("  %-26s %zu spans (%llu left out) in %s\n", "timeline",
                out.timeline->spans().size(),
                static_cast<unsigned long long>(out.timeline->left_out()), file.c_str());
  }
}

// --threads: a count from 1 to 1024, or `auto` (0: the run decides, run_scenario.hpp).
int threads_option(const std::string& text) {
  if (text == "auto") return 0;
  int n = 0;
  bool ok = !text.empty() && text.size() <= 4;
  for (char c : text) {
    ok = ok && c >= '0' && c <= '9';
    if (ok) n = n * 10 + (c - '0');
  }
  if (!ok || n < 1 || n > 1024) {
    throw scen::InputError("--threads", text, "a count from 1 to 1024, or auto");
  }
  return n;
}

// "fabric": [...]: every fabric loaded first (bad input refused before any run), then each run
// into <out>/<fabric>/, then one table comparing them (also <out>/comparison.csv).
int run_each_fabric(const std::string& file, scen::LoadOptions lo, const scen::Scenario& first,
                    const std::string& out_dir, bool quiet, const TimelineRequest& timeline,
                    bool report, int partitions, int threads, sim::RankExchange* ranks) {
  const bool writer = ranks == nullptr || ranks->rank() == 0;  // the others' results go there
  std::vector<scen::Scenario> scenarios;
  for (const std::string& f : first.fabrics) {
    lo.fabric = f;
    scenarios.push_back(scen::load_scenario_file(file, lo));
  }
  // Every fabric's estimate before the first run, as every fabric's input.
  for (const auto& s : scenarios)
    scen::check_memory_estimate(scen::estimate_memory(s), lo.max_memory_bytes);
  std::vector<scen::RunOutcome> outcomes;
  outcomes.reserve(scenarios.size());
  for (size_t i = 0; i < scenarios.size(); ++i) {
    scen::RunOptions ro;
    ro.progress = writer && !quiet && isatty(STDERR_FILENO);
    ro.timeline = timeline.options;
    ro.max_memory_bytes = lo.max_memory_bytes;
    ro.partitions = partitions;
    ro.threads = threads;
    ro.ranks = ranks;
    outcomes.push_back(scen::run_scenario(scenarios[i], ro));
    if (!writer) continue;
    const std::string dir = out_dir + "/" + first.fabrics[i];
    if (i == 0) scen::clear_earlier_run(out_dir);  // e.g. a single-fabric run's files at the top
    scen::write_outputs(scenarios[i], outcomes.back(), dir);
    if (!quiet) {
      std::printf("[%s]\n", first.fabrics[i].c_str());
      print_headline(scenarios[i], outcomes.back(), dir);
    }
    write_timeline(outcomes.back(), per_fabric(timeline.file, first.fabrics[i]), quiet);
    if (report) {
      const int code = write_report(dir, "", "");
      if (code != kOk) return code;
    }
  }
  if (!writer) return kOk;
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
  std::string timeline_file, timeline_window, timeline_ports;
  int64_t timeline_max = 200000;
  std::string max_memory;
  int partitions = 1;
  std::string threads_text;
  opts.add_options()("help,h", "this help")("out,o", po::value(&out_dir),
                                            "output folder (default ./out/<scenario name>)")(
      "set", po::value(&sets)->composing(),
      "override a value: --set fabric.switch.latency=300ns (repeatable; array elements as "
      "links[3].rate)")("seed", po::value(&seed), "random seed (overrides the scenario's)")(
      "quiet,q", "no progress line")(
      "max-memory", po::value(&max_memory),
      "refuse a scenario whose estimated memory is beyond SIZE, and stop a run whose process "
      "grows beyond it (default: this machine's memory)")(
      "force",
      "write into a non-empty --out that is not an earlier run's (replacing only the "
      "files a run writes)")("list-params", "print every model parameter and exit")(
      "timeline", po::value(&timeline_file),
      "write a Chrome trace (Perfetto, chrome://tracing) of collective steps, compute phases, "
      "flows and port pauses/credit stalls to FILE")(
      "timeline-window", po::value(&timeline_window),
      "only spans overlapping FROM:TO (e.g. 100us:2ms, 0:1ms, 5ms:)")(
      "timeline-ports", po::value(&timeline_ports),
      "ports with pause/stall tracks, NODE:PORT,... (default: the 16 most held)")(
      "timeline-max-spans", po::value(&timeline_max)->default_value(200000),
      "at most this many spans (later ones are counted, not kept)")(
      "report", "also write OUT/report.html: the results on one page (rdmasim report)")(
      "partitions", po::value(&partitions)->default_value(1),
      "split the fabric into N partitions with an event list each, run in windows of the "
      "lookahead (default: one per thread): the same outputs")(
      "threads", po::value(&threads_text)->default_value("1"),
      "run the partitions on N threads, or `auto` (this machine's cores; 1 for a scenario a "
      "split run cannot run yet): the same outputs at every count");
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
  const TimelineRequest timeline =
      timeline_request(timeline_file, timeline_window, timeline_ports, timeline_max);
  if (partitions < 1 || partitions > 1024) {
    throw scen::InputError("--partitions", std::to_string(partitions), "a count from 1 to 1024");
  }
  const int threads = threads_option(threads_text);
  scen::LoadOptions lo;
  lo.sets = sets;
  lo.has_seed = vm.count("seed") > 0;
  lo.seed = seed;
  lo.max_memory_bytes = max_memory_option(max_memory);
  const scen::Scenario s = scen::load_scenario_file(scenario, lo);
  if (out_dir.empty()) out_dir = "out/" + s.name;
  // Where the results go is checked before the simulation (output_folder.hpp).
  scen::check_output_folder(out_dir, vm.count("force") > 0);
  if (!timeline.file.empty()) {
    for (const std::string& f : s.fabrics.size() > 1 ? s.fabrics : std::vector<std::string>{""}) {
      scen::check_output_file("--timeline",
                              f.empty() ? timeline.file : per_fabric(timeline.file, f));
    }
  }
  // Launched as several processes (mpirun, srun): one run over them, written by the first.
  const Launch launch = launch_from_environment();
  std::unique_ptr<LaunchedRanks> mpi;
  if (launch.ranks > 1) mpi = std::make_unique<LaunchedRanks>(launch, argc, argv);
  sim::RankExchange* ranks = mpi ? &mpi->exchange() : nullptr;
  if (s.fabrics.size() > 1) {
    return run_each_fabric(scenario, lo, s, out_dir, vm.count("quiet") > 0, timeline,
                           vm.count("report") > 0, partitions, threads, ranks);
  }
  scen::RunOptions ro;
  ro.max_memory_bytes = lo.max_memory_bytes;
  ro.partitions = partitions;
  ro.threads = threads;
  ro.ranks = ranks;
  ro.progress = launch.rank == 0 && !vm.count("quiet") && isatty(STDERR_FILENO);
  ro.timeline = timeline.options;
  const scen::RunOutcome out = scen::run_scenario(s, ro);
  if (out.results_elsewhere) return kOk;  // the first process writes them
  scen::write_outputs(s, out, out_dir);
  if (!vm.count("quiet")) {
    if (!s.collectives.empty()) {
      std::printf("%s", scen::collectives_table(out.collectives, s.collectives).c_str());
    }
    if (!out.training_steps.empty()) std::printf("%s", scen::training_summary(out).c_str());
    if (!out.chakra_ranks.empty()) std::printf("%s", scen::chakra_summary(out).c_str());
    print_headline(s, out, out_dir);
  }
  write_timeline(out, timeline.file, vm.count("quiet") > 0);
  return vm.count("report") ? write_report(out_dir, "", "") : kOk;
}

}  // namespace cli
