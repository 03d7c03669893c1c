// InfiniBand congestion control wiring (IBA annex A10): a FECN marker on every switch output port
// and one controller (BECN -> CCTI -> injection rate) for every NIC.
#pragma once

#include "models/network.hpp"
#include "scenarios/loader/scenario.hpp"

namespace scen {

// After wire_infiniband (the markers read the ports' credit gates). Nothing when
// infiniband.cc.enabled is false.
void wire_ib_congestion_control(const Scenario& s, models::Network& net);

}  // namespace scen
