// Up*/down* routing (Schroeder et al., "Autonet: a High-speed, Self-configuring Local Area
// Network Using Point-to-Point Links", IEEE JSAC 1991), with levels counted from the hosts as
// in a Clos fabric. Every node gets a rank (level, node index): hosts are level 0, a switch is
// one more than its nearest host's distance (leaves 1, spines 2, cores 3 in a Clos), on the
// full topology so that a failed link never changes a switch's role. A hop is "up" when it
// goes to a higher rank, "down" otherwise. A legal route is some up hops followed by down hops
// only: no valley (down then up). Every buffer dependency then goes up the rank order, then
// down it, so a cycle of them would have to go up again after going down — the channel
// dependency graph is acyclic and routing alone can never deadlock a lossless class (Dally and
// Seitz, IEEE Trans. Computers 1987; Hu et al., HotNets 2016).
//
// Tables are destination-based like the shortest-path ones: a node that has a down-only path
// to the destination takes the shortest such ones (ECMP over them), whichever way the packet
// came in; any other node goes up towards the nearest nodes that have one. The route is then
// up*-down* whatever the hash picks, and shortest among up*-down* routes in a Clos fabric. A
// pair with no up*-down* route gets no route (distance -1): the price of deadlock freedom when
// failures leave only valleys.
//
// Pure data, shared by every fabric model (RoCE, InfiniBand).
#pragma once

#include <vector>

#include "topologies/routing.hpp"
#include "topologies/topology.hpp"

namespace topo {

// Level of every node on the full topology (all links): hosts 0, switches their hop distance
// to the nearest host; -1 for a switch no host can reach.
std::vector<int> updown_levels(const Fabric& f);

// Whether the hop from node `a` to neighbour `b` goes up: (level, index) increases.
inline bool updown_is_up(const std::vector<int>& level, int a, int b) {
  return level[b] != level[a] ? level[b] > level[a] : b > a;
}

// Up*/down* routing tables over the links that are up (link_up as for compute_routes).
RoutingTables compute_updown_routes(const Fabric& f, const std::vector<bool>& link_up = {});

}  // namespace topo
