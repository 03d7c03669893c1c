// InfiniBand wiring: credit gates on every sending port of the fabric, a credit return
// (receive buffers per input port and VL) at every node, SL -> VL at the NICs (credit_domain.hpp;
// NVLink domains apart, build_nvlink.hpp); VL arbitration, adaptive routing, SHARP.
#pragma once

#include <cstddef>

#include "models/network.hpp"
#include "scenarios/loader/scenario.hpp"

namespace scen {

// The VL arbitration tables of every port: the scenario's, else one low-priority entry of weight
// 64 (4 KiB) per data VL.
models::VlArbitrationParams infiniband_arbitration(const models::IbParams& ib);

// After the links exist: gates, credit returns, the NICs' SL -> VL tables.
void wire_infiniband(const Scenario& s, models::Network& net);

}  // namespace scen
