// What an Ethernet (RoCEv2) run reports beyond the headline, each block only when its mechanism
// is on: the NIC receive path, ECN, DCQCN, PFC (frames, paused time, watchdog, MMU pools) and
// the deadlocks found with their cycles.
#pragma once

#include "scenarios/run/link_results.hpp"
#include "scenarios/run/packet_conservation.hpp"

namespace scen {

// Adds res["nic_rx"], ["ecn"], ["dcqcn"], ["pfc"], ["deadlocks"]; fills out.pfc_events and
// out.deadlocks. Needs out.links filled.
void add_roce_results(const Scenario& s, const models::Network& net, const FabricTotals& fabric,
                      const PacketTotals& packets, RunOutcome& out, Json& res);

}  // namespace scen
