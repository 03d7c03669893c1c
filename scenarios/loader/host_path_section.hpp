// The NICs' PCIe path (models/host_path.hpp) in a scenario:
//   fabric.nic.doorbell_latency / dma_read_latency / dma_write_latency / pcie_rate: every NIC
//   endpoint (not the NVLink endpoints of GPU servers);
//   topology.nodes.host_path: "pcie-gen5-x16" | "pcie-gen4-x16" | "none", or an object
//   {"preset": ..., "doorbell_latency": ..., ...}: the NICs of every GPU server;
//   topology.nodes.host_path_overrides: [{"servers": [0, 3], "rails": [1], "pcie_rate": ...}]:
//   single servers and/or rails (NIC k of a server), applied in order, empty lists = all.
// A key absent at one level keeps the level below (fabric.nic < host_path < overrides).
#pragma once

#include "models/host_path.hpp"
#include "scenarios/loader/json_reader.hpp"
#include "scenarios/loader/param_table.hpp"
#include "topologies/gpu_nodes.hpp"

namespace scen {

// fabric.nic's four keys on NicParams::host (listed and echoed with the NIC's fields).
const FieldTable<models::HostPathParams>& host_path_fields();

// topology.nodes.host_path and host_path_overrides of the GPU section `r` (of `servers`
// servers) into `p`.
void read_gpu_host_paths(JsonReader& r, int servers, topo::GpuNodeParams& p);

// `base` with the keys `d` sets.
models::HostPathParams apply_host_path(models::HostPathParams base, const topo::HostPathData& d);

// The PCIe path of NIC `rail` of GPU server `server`: fabric.nic's, the server's, then the
// matching overrides.
models::HostPathParams gpu_nic_host_path(const models::HostPathParams& fabric_default,
                                         const topo::GpuNodeParams& p, int server, int rail);

}  // namespace scen
