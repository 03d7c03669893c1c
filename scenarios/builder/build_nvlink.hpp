// The GPU servers' NVLink domains (topologies/gpu_nodes.hpp) as their own link layer: NVLink
// is lossless by credits — a port sends only into receive-buffer space the next hop granted,
// and its links retry corrupted flits themselves — whatever the scale-out fabric is. So on
// RoCE the NVSwitch has neither PFC nor ECN, on InfiniBand it has NVLink's buffers rather
// than the fabric's VL buffers, and nowhere does it take the fabric switch's parameters but
// its class count (so that a packet keeps its class across the server).
#pragma once

#include <cstdint>
#include <vector>

#include "models/network.hpp"
#include "models/switch.hpp"
#include "scenarios/loader/scenario.hpp"

namespace scen {

// [node]: a GPU's NVLink endpoint or an NVSwitch.
std::vector<bool> nvlink_domain(const topo::Fabric& f);

// Classes (credit-controlled buffers per port) on NVLink: the fabric's data VLs on
// InfiniBand (packets keep the VL their SL gave them), the 8 priorities on Ethernet.
int nvlink_classes(const Scenario& s);

// Receive buffer per (NVLink port, class): topology.nodes.nvlink_buffer, or "auto": 1.25 x the
// credit loop at the NVLink rate — to the next hop and back (2 x nvlink_latency), the
// NVSwitch's latency and one credit-update interval — plus two frames, rounded up to 1 KiB.
// The quarter covers what lengthens the loop now and then (an NVLS chunk held until every
// GPU's share is in): without it an NVLS all-reduce loses 2 % to credit stalls.
// Refused (exit 2) below one frame.
int64_t nvlink_buffer_bytes(const Scenario& s);

// An NVSwitch with `ports` ports: its own latency, cut-through, a buffer of exactly its credit
// buffers, no adaptive routing; ECN, PFC and the fabric's overrides never reach it.
models::SwitchParams nvswitch_params(const Scenario& s, size_t ports);

// After the links exist: credit gates and returns on every NVLink port (credit_domain.hpp).
void wire_nvlink(const Scenario& s, models::Network& net);

}  // namespace scen
