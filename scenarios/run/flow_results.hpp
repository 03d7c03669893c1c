// What a run reports per flow: sizes, start and finish, FCT and the ideal FCT of its path,
// retransmissions; and the check that every completed flow was delivered exactly once.
#pragma once

#include <cstdint>

#include "models/network.hpp"
#include "scenarios/run/run_scenario.hpp"

namespace scen {

// Transport events over all flows, collective messages included.
struct TransportTotals {
  uint64_t retransmitted = 0;
  uint64_t timeouts = 0;
  uint64_t nacks = 0;
  uint64_t duplicates = 0;
};

// Fills out.flows (all but collective messages, which collectives.csv reports). Throws
// std::logic_error if a completed flow's delivered bytes differ from its size.
TransportTotals collect_flow_results(const Scenario& s, const models::Network& net,
                                     RunOutcome& out);

}  // namespace scen
