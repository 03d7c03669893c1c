// What a credit-controlled domain reports — the InfiniBand fabric, or the GPU servers' NVLink
// (scenarios/builder/credit_domain.hpp) —: its links' credit stalls per class, the flow-control
// packets its receivers sent and its nodes consumed, the peak receive buffer. Shared by the
// InfiniBand results (infiniband_results.hpp) and the NVLink ones (nvlink_results.hpp).
#pragma once

#include <cstdint>
#include <vector>

#include "models/network.hpp"
#include "scenarios/run/run_scenario.hpp"

namespace scen {

// Flow-control packets received by switches and NICs (consumed; packet conservation).
uint64_t flow_control_consumed(const models::Network& net);

// Whether `node` is inside a GPU server's NVLink domain.
bool on_nvlink(const models::Network& net, int node);

// One credit-controlled domain's totals: its links' stalls (into out.links) and receivers.
struct CreditTotals {
  std::vector<sim::Time> vl_stalled;
  std::vector<uint64_t> vl_stalls, vl_bytes;
  uint64_t stalls = 0, fc_sent = 0, fc_received = 0, peak_blocks = 0, capacity_blocks = 0;
  sim::Time stalled;
};

// The totals of one domain (`nvlink`: the NVLink domains, else the fabric) over `vls`
// credit classes (VLs); also fills out.links[*].credit_stalled and its per-class times.
CreditTotals credit_totals(const Scenario& s, models::Network& net, RunOutcome& out, int vls,
                           bool nvlink);

}  // namespace scen
