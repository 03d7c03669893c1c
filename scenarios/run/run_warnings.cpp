#include "scenarios/run/run_warnings.hpp"

#include <string>

#include "sim/logging.hpp"

namespace scen {
namespace {

uint64_t count(const Json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_number_unsigned() ? j[key].get<uint64_t>()
                                                                         : 0;
}

}  // namespace

void add_run_warnings(const Scenario& s, RunOutcome& out) {
  const Json& r = out.results;
  auto warn = [&out](const char* code, std::string message) {
    sim::log_warn(message);
    out.warnings.push_back(RunWarning{code, std::move(message)});
  };
  if (s.tcp_staged_gpus) {
    warn("tcp-stages-gpu-data",
         "topology.nodes.gpudirect_rdma: kernel TCP has no GPUDirect RDMA; the GPUs' data is "
         "staged through host memory (as with gpudirect_rdma false)");
  }
  if (out.reason == sim::StopReason::TimeLimit && s.stop_when_done) {
    std::string left;
    const uint64_t flows = count(r, "flows"), done = count(r, "flows_completed");
    if (done < flows)
      left = std::to_string(flows - done) + " of " + std::to_string(flows) + " flows";
    const uint64_t sizes = count(r, "collective_sizes");
    const uint64_t sizes_done = count(r, "collective_sizes_completed");
    if (sizes_done < sizes) {
      if (!left.empty()) left += ", ";
      left +=
          std::to_string(sizes - sizes_done) + " of " + std::to_string(sizes) + " collective sizes";
    }
    if (!left.empty()) {
      warn("stopped-at-time-limit", "the run reached stop.time (" +
                                        std::to_string(out.end_time.ps / 1000) +
                                        " ns) with work left: " + left + " unfinished");
    }
  }
  if (const uint64_t d = count(r, "deadlocks"); d > 0) {
    warn("pfc-deadlock", std::to_string(d) +
                             " PFC deadlock(s) found: the cycles are in "
                             "deadlocks.json");
  }
  if (r.contains("drops")) {
    if (const uint64_t d = count(r["drops"], "lossless"); d > 0) {
      warn("lossless-drops", std::to_string(d) +
                                 " packet(s) dropped in a lossless class (headroom too small for "
                                 "the link's round trip, or a watchdog drop)");
    }
    if (const uint64_t d = count(r["drops"], "link_loss"); d > 0) {
      warn("link-loss", std::to_string(d) + " packet(s) lost to links' random loss (loss_rate)");
    }
  }
  if (r.contains("pfc")) {
    if (const uint64_t e = count(r["pfc"], "headroom_exhaustions"); e > 0) {
      warn("pfc-headroom-exhausted", std::to_string(e) +
                                         " time(s) a switch ingress queue used up its PFC headroom "
                                         "(pfc.headroom_exhaustion_events in summary.json)");
    }
    if (const uint64_t w = count(r["pfc"], "watchdog_triggers"); w > 0) {
      warn("pfc-watchdog", "the PFC watchdog acted " + std::to_string(w) +
                               " time(s): pauses held too long were overridden");
    }
  }
}

}  // namespace scen
