// What a run with kernel TCP reports (summary.json "tcp"): segments, loss recovery (SACK fast
// recoveries and timeouts), ECN window cuts, ACKs, the largest window and the host CPU time.
#pragma once

#include "models/network.hpp"
#include "scenarios/loader/scenario.hpp"

namespace scen {

void add_tcp_results(const Scenario& s, const models::Network& net, Json& res);

}  // namespace scen
