// Linear forwarding tables (LFTs) as an InfiniBand subnet manager programs them: destination
// based, exactly ONE output port per (switch, destination), chosen from the equal-cost set of a
// routing table (topologies/routing.hpp for min-hop, topologies/updown_routing.hpp for the
// fat-tree engine). Pure data; the switch forwards by the LFT, and adaptive routing, when on,
// may choose instead among the whole equal-cost set.
//
// MinHop (OpenSM's default "minhop" engine; OpenSM doc/current-routing.txt, osm_ucast_mgr.c):
// each switch takes destinations in LID order (here: host number) and gives each the
// least-used port of its min-hop set so far (the port that carries the fewest destinations),
// ties to the lowest port. Every port of a switch's equal-cost set then carries its number of
// destinations within one of the others'.
//
// FatTree (OpenSM's "ftree" / d-mod-k; Zahavi, "D-Mod-K Routing Providing Non-Blocking Traffic
// for Shift Permutations on Real Life Fat Trees", CCIT report 776, Technion 2010): on the
// up*/down* set, a switch at level L (leaves 1) going up sends destination d to port number
// (d / W(L)) mod m of its m up ports, where W(L) is the product of the up-port counts of the
// levels below (1 at the leaves); going down with several ports, d mod m. Destinations of one
// leaf leave it on different uplinks, and in a k-ary fat-tree every destination is reached
// through one core switch from everywhere, each core serving the same number of destinations.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "topologies/routing.hpp"
#include "topologies/topology.hpp"

namespace topo {

enum class LftAlgorithm : uint8_t { MinHop, FatTree };

// "minhop" | "ftree".
const char* lft_algorithm_name(LftAlgorithm a);

// LFT of every node over `candidates`' next-hop sets: [node * num_hosts + host] -> port, kNoPort
// where the set is empty (no route, or the node is the destination). FatTree expects
// `candidates` from compute_updown_routes (levels from updown_levels).
std::vector<uint16_t> compute_lft(const Fabric& f, const RoutingTables& candidates,
                                  LftAlgorithm algorithm);

// Destinations routed through each port of `node` by `lft`: [port] -> count.
std::vector<int> lft_port_loads(const Fabric& f, const RoutingTables& rt, int node);

}  // namespace topo
