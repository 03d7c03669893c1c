// The headline of a run (results.json "results"): why it stopped, flows completed, FCT and
// slowdown percentiles, goodput, retransmissions and drops by cause.
#pragma once

#include "scenarios/run/flow_results.hpp"
#include "scenarios/run/link_results.hpp"
#include "scenarios/run/packet_conservation.hpp"

namespace scen {

// Needs out.flows, out.reason and out.end_time filled.
Json headline_results(const RunOutcome& out, const TransportTotals& transport,
                      const FabricTotals& fabric, const PacketTotals& packets);

}  // namespace scen
