// Each NIC's PCIe path (models/host_path.hpp): fabric.nic's for plain hosts, none for the
// NVLink endpoints of GPU servers (GPU memory to NVSwitch crosses no PCIe), and for the NICs
// of GPU servers the server's and its overrides' (loader/host_path_section.hpp).
#pragma once

#include "models/network.hpp"
#include "scenarios/loader/scenario.hpp"

namespace scen {

// The PCIe path of the NIC endpoint `node` (a scan: for checks, not per packet).
models::HostPathParams host_path_of(const Scenario& s, int node);

// After the NICs exist, before any message is posted.
void apply_host_paths(const Scenario& s, models::Network& net);

}  // namespace scen
