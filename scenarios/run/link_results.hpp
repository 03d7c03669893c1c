// What a run reports per link direction (links.csv, classes.csv): bytes, packets, queue peaks,
// drops, ECN marks, pause frames and paused time, per traffic class too; and the drops and
// headroom exhaustions of the switches, which the headline results and the packet count use.
#pragma once

#include <cstdint>

#include "models/network.hpp"
#include "scenarios/run/run_scenario.hpp"

namespace scen {

// Packets the switches and links dropped, and pause frames the switches consumed.
struct FabricTotals {
  uint64_t tail_drops = 0;
  uint64_t ttl_drops = 0;
  uint64_t no_route = 0;
  uint64_t lost = 0;  // link loss
  uint64_t lossless_drops = 0;
  uint64_t pause_consumed = 0;
  Json exhaustions = Json::array();  // headroom exhaustions: time, switch, port, priority
};

// Fills out.links (closing the ports' and PFC gates' accounting at the end time).
FabricTotals collect_link_results(const Scenario& s, models::Network& net, RunOutcome& out);

}  // namespace scen
