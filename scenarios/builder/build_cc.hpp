// The ACK-driven congestion control of `fabric.cc` (HPCC, DCTCP, TIMELY) put on every NIC, and
// HPCC's telemetry on every switch. Runs last in build_network: the automatic base RTT is
// measured along the workload's flows.
#pragma once

#include "models/network.hpp"
#include "scenarios/loader/scenario.hpp"

namespace scen {

void apply_congestion_control(const Scenario& s, models::Network& net);

// The base RTT the controllers use: fabric.cc.base_rtt, or when 0 the largest unloaded round
// trip (ideal completion of a one-packet message) over the workload's flows. Zero when there
// is no flow to measure.
sim::Time resolved_base_rtt(const Scenario& s, const models::Network& net);

}  // namespace scen
