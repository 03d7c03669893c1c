#include "scenarios/outputs/fabric_comparison.hpp"

#include <cstdio>

#include "scenarios/outputs/result_text.hpp"

namespace scen {
namespace {

struct Row {
  std::string fabric, flows, p50, p99, max, holds, held_ns, drops;
};

Row row_of(const FabricRun& run) {
  const Json& r = run.outcome->results;
  Row w;
  w.fabric = run.fabric;
  w.flows = result_text(r["flows_completed"]) + "/" + result_text(r["flows"]);
  w.p50 = result_text(r["fct_p50_ns"]);
  w.p99 = result_text(r["fct_p99_ns"]);
  w.max = result_text(r["fct_max_ns"]);
  if (r.contains("infiniband")) {
    w.holds = result_text(r["infiniband"]["credit_stalls"]) + " credit stalls";
    w.held_ns = result_text(r["infiniband"]["credit_stalled_ns"]);
  } else if (r.contains("pfc")) {
    w.holds = result_text(r["pfc"]["pause_frames"]) + " pauses";
    w.held_ns = result_text(r["pfc"]["paused_time_ns"]);
  } else {
    w.holds = "none (lossy)";
    w.held_ns = "0.000";
  }
  uint64_t drops = 0;
  for (const auto& [kind, n] : r["drops"].items()) drops += n.get<uint64_t>();
  w.drops = std::to_string(drops);
  return w;
}

}  // namespace

std::string fabric_comparison_table(const std::vector<FabricRun>& runs) {
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line, "%-11s %-9s %14s %14s %14s %-22s %16s %7s\n", "fabric", "flows",
                "FCT p50 ns", "FCT p99 ns", "FCT max ns", "flow-control holds", "held ns", "drops");
  out += line;
  for (const FabricRun& run : runs) {
    const Row w = row_of(run);
    std::snprintf(line, sizeof line, "%-11s %-9s %14s %14s %14s %-22s %16s %7s\n", w.fabric.c_str(),
                  w.flows.c_str(), w.p50.c_str(), w.p99.c_str(), w.max.c_str(), w.holds.c_str(),
                  w.held_ns.c_str(), w.drops.c_str());
    out += line;
  }
  // A training workload: its step on each fabric.
  bool training = false;
  for (const FabricRun& run : runs)
    training = training || run.outcome->results.contains("training");
  if (!training) return out;
  std::snprintf(line, sizeof line, "\n%-11s %14s %14s %14s %14s %8s\n", "fabric", "step us",
                "compute us", "comm us", "exposed us", "MFU %");
  out += line;
  for (const FabricRun& run : runs) {
    const Json& t = run.outcome->results.value("training", Json::object());
    if (t.empty()) continue;
    std::snprintf(line, sizeof line, "%-11s %14s %14s %14s %14s %8s\n", run.fabric.c_str(),
                  result_text(t["step_time_us"]).c_str(), result_text(t["compute_us"]).c_str(),
                  result_text(t["communication_us"]).c_str(),
                  result_text(t["exposed_communication_us"]).c_str(),
                  result_text(t["mfu_percent"]).c_str());
    out += line;
  }
  return out;
}

std::string fabric_comparison_csv(const std::vector<FabricRun>& runs) {
  std::string out =
      "fabric,flows_completed,fct_p50_ns,fct_p99_ns,fct_max_ns,flow_control_holds,held_ns,drops\n";
  for (const FabricRun& run : runs) {
    const Row w = row_of(run);
    const std::string holds = w.holds.substr(0, w.holds.find(' '));
    out += w.fabric + "," + w.flows.substr(0, w.flows.find('/')) + "," + w.p50 + "," + w.p99 + "," +
           w.max + "," + (holds == "none" ? "0" : holds) + "," + w.held_ns + "," + w.drops + "\n";
  }
  return out;
}

}  // namespace scen
