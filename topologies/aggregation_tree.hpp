// The aggregation tree of an in-network reduction (SHARP) over the switches of a fabric, for a
// group of hosts: pure data, computed once per group.
//
// Construction (deterministic):
//  1. Each switch's level is its hop distance to the nearest host (leaves 1, spines or
//     aggregation 2, cores 3 ...). The root is a switch of the highest level, the lowest node
//     index among them, of the part of the graph that holds the group's first host (a GPU
//     server's NVLink domain is a part of its own: its NVSwitch is the root there).
//  2. A breadth-first search from the root over switch-to-switch links, ports in index order,
//     gives every switch its parent (the first switch that reached it): the shortest-path tree
//     from the root. A host hangs below the switch at the end of its port 0 (its NIC's link).
//  3. Subtrees holding no host of the group are cut; while the root has a single child and it
//     is a switch, that child becomes the root (a group inside one leaf is reduced by the leaf
//     alone, a group inside one pod by the pod's switch).
// Every tree edge is a cable, so a chunk always goes one hop to the next aggregation node, as
// SHARP trees follow the fabric's links (the subnet manager's aggregation-manager trees).
#pragma once

#include <string>
#include <vector>

#include "topologies/topology.hpp"

namespace topo {

struct AggregationSwitch {
  int node = -1;                 // fabric node (a switch)
  int parent = -1;               // index into AggregationTree::switches; -1 at the root
  int parent_port = -1;          // this switch's port towards its parent; -1 at the root
  std::vector<int> child_ports;  // this switch's ports towards its children, in port order
  int depth = 0;                 // 1 at the root, +1 per level down
};

struct AggregationTree {
  std::vector<AggregationSwitch> switches;  // root first, then breadth-first
  int depth = 0;  // D: the most switches between a group host and the root's result (root incl.)
  std::vector<int> host_switch;  // [i]: the tree switch above the group's i-th host
};

// The tree for the hosts (node indices) of a group. Throws std::invalid_argument when a host
// is not a host, appears twice, or the group has fewer than two hosts.
AggregationTree build_aggregation_tree(const Fabric& f, const std::vector<int>& host_nodes);

}  // namespace topo
