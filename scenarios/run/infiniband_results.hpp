// What an InfiniBand run reports: flow-control packets, credit stalls per link and VL, peak VL
// buffer occupancy; and the check that the fabric dropped nothing.
#pragma once

#include "models/network.hpp"
#include "scenarios/run/run_scenario.hpp"

namespace scen {

// Fills out.links[*].credit_stalled, out.credit_stalls and res["infiniband"]. Throws
// std::logic_error if the fabric dropped a packet (credits make that impossible).
void add_infiniband_results(const Scenario& s, models::Network& net, RunOutcome& out, Json& res);

}  // namespace scen
