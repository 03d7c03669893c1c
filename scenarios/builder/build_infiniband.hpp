// InfiniBand wiring: credit gates on every sending port, a credit return (receive buffers per
// input port and VL) at every node, SL -> VL at the NICs.
#pragma once

#include <cstddef>

#include "models/network.hpp"
#include "scenarios/loader/scenario.hpp"

namespace scen {

// The MMU of an InfiniBand switch: exactly its VL buffers (ports x data VLs x vl_buffer), no
// reserves, no caps; credits keep every (input port, VL) within its own part, so the shared
// pool can never refuse a packet.
models::SwitchBufferParams infiniband_switch_buffer(const Scenario& s, size_t ports);

// The VL arbitration tables of every port: the scenario's, else one low-priority entry of weight
// 64 (4 KiB) per data VL.
models::VlArbitrationParams infiniband_arbitration(const models::IbParams& ib);

// After the links exist: gates, credit returns, the NICs' SL -> VL tables.
void wire_infiniband(const Scenario& s, models::Network& net);

}  // namespace scen
