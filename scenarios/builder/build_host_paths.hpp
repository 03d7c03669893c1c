// Each NIC's PCIe path (models/host_path.hpp): fabric.nic's for plain hosts, none for the
// NVLink endpoints of GPU servers (GPU memory to NVSwitch crosses no PCIe), and for the NICs
// of GPU servers the server's and its overrides' (loader/host_path_section.hpp); and the NVLink
// endpoints' own parameters.
#pragma once

#include "models/network.hpp"
#include "scenarios/loader/scenario.hpp"

namespace scen {

// The PCIe path of the NIC endpoint `node` (a scan: for checks, not per packet).
models::HostPathParams host_path_of(const Scenario& s, int node);

// fabric.nic as a GPU's NVLink endpoint takes it: the packet format, ACKs and latencies, none
// of the NIC's send-engine, message-rate, inline or host receive-path limits (calibrated NIC
// parameters never touch NVLink).
models::NicParams nvlink_endpoint_params(const models::NicParams& nic);

// After the NICs exist, before any message is posted; NVLink endpoints also get
// nvlink_endpoint_params.
void apply_host_paths(const Scenario& s, models::Network& net);

}  // namespace scen
