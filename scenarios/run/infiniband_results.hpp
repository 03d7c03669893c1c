// What an InfiniBand run reports: flow-control packets, credit stalls per link and VL, peak VL
// buffer occupancy; and the check that the fabric dropped nothing.
#pragma once

#include "models/network.hpp"
#include "scenarios/run/run_scenario.hpp"

namespace scen {

// Flow-control packets received by switches and NICs (consumed; packet conservation).
uint64_t flow_control_consumed(const models::Network& net);

// Fills out.links[*].credit_stalled, out.credit_stalls and res["infiniband"]. Throws
// std::logic_error if the fabric dropped a packet (credits make that impossible).
void add_infiniband_results(const Scenario& s, models::Network& net, RunOutcome& out, Json& res);

// The GPU servers' NVLink credits (build_nvlink.hpp), on any fabric: out.links[*] of NVLink
// ports, res["nvlink"] (buffer, peak, flow-control packets, stalls). Nothing without GPUs.
void add_nvlink_results(const Scenario& s, models::Network& net, RunOutcome& out, Json& res);

}  // namespace scen
