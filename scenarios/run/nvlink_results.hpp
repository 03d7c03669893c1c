// What the GPU servers' NVLink reports on any fabric (scenarios/builder/build_nvlink.hpp):
// its credit-controlled links' stalls and the domain's buffer, peak and flow-control packets.
#pragma once

#include "models/network.hpp"
#include "scenarios/run/run_scenario.hpp"

namespace scen {

// out.links[*] of NVLink ports, res["nvlink"] (buffer, peak, flow-control packets, stalls).
// Nothing without GPUs. Throws std::logic_error if NVLink dropped a packet.
void add_nvlink_results(const Scenario& s, models::Network& net, RunOutcome& out, Json& res);

}  // namespace scen
