// NVLS wiring: where the GPU servers' NVSwitches reduce (topologies/gpu_nodes.hpp), the run
// needs the in-switch reduction of models/sharp/ on either fabric, since the NVLink domain is
// not the network. On InfiniBand it is already there (build_infiniband.cpp, the fabric's SHARP);
// on RoCE it is built here, for the NVSwitches only.
#pragma once

#include "models/network.hpp"
#include "scenarios/loader/scenario.hpp"

namespace scen {

// After the fabric's own wiring: `net.sharp` when GPU servers have NVLS and there is none yet.
void wire_nvls(const Scenario& s, models::Network& net);

}  // namespace scen
