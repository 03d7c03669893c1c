// Wires a validated scenario's topology into models: switches, NICs, links, routes, flows.
#pragma once

#include <memory>
#include <vector>

#include "models/ideal_fct.hpp"
#include "models/network.hpp"
#include "scenarios/loader/scenario.hpp"

namespace scen {

// `node_partition`: [node] its partition in a split run (empty: one event list).
std::unique_ptr<models::Network> build_network(const Scenario& s, sim::Simulator& sim,
                                               std::vector<int> node_partition = {});

// PFC headroom at switch `switch_node` for its ingress from topology link `link`.
int64_t pfc_headroom(const Scenario& s, int switch_node, int link);
// Headroom a host's NIC receive buffer needs above fabric.nic.pfc_xoff so that NIC-sent PFC
// never overflows it (fabric.nic.rx_buffer >= pfc_xoff + this).
int64_t nic_pfc_headroom(const Scenario& s, uint32_t host);

// The hops a packet from src to dst takes (ECMP resolved with the given entropy), as the
// ideal-FCT recursion needs them. Empty if the destination is unreachable.
std::vector<models::PathHop> trace_path(const Scenario& s, const models::Network& net,
                                        uint32_t src_host, uint32_t dst_host, uint16_t udp_sport,
                                        uint32_t route_id);

}  // namespace scen
