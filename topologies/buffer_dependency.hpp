// The buffer (channel) dependency graph of a lossless fabric, and its cycles. A packet held in
// switch v's ingress buffer (port p, priority c) can leave only into the next switch's ingress
// buffer on its route; if PFC has paused that one, the first waits on it. A cycle of such
// waits — a cyclic buffer dependency — is the precondition of a PFC deadlock (Hu et al.,
// "Deadlocks in Datacenter Networks: Why Do They Form, and How to Avoid Them", HotNets 2016).
// The graph is built from the routing tables over every ECMP next hop, so it covers every path
// a flow may take, not only the one its hash picks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "topologies/routing.hpp"
#include "topologies/topology.hpp"

namespace topo {

// An ingress buffer: (switch node, ingress port, priority).
struct BufferId {
  int node = -1;
  int port = -1;
  int priority = 0;
  bool operator==(const BufferId&) const = default;
};

// Traffic to account for: a source and destination host, the priority, and the explicit route
// (switch nodes in order; empty = the routing tables' ECMP next hops).
struct RouteDemand {
  int src_host = -1;
  int dst_host = -1;
  int priority = 0;
  std::vector<int> route;
};

struct DependencyReport {
  size_t buffers = 0;       // ingress buffers some demand passes through
  size_t dependencies = 0;  // distinct "waits on" edges between them
  // Elementary cycles in waiting order (each buffer waits on the next, the last on the first),
  // each starting at its smallest (node, port); sorted; at most `max_cycles` of them.
  std::vector<std::vector<BufferId>> cycles;
  bool truncated = false;  // more cycles exist than were listed
};

struct ValleyRetag;

// Builds the graph for `demands` and lists its cycles. With `retag` (valley_tagging.hpp), a
// packet that turns up after going down continues on its re-tagged priority.
DependencyReport buffer_dependency_cycles(const Fabric& f, const RoutingTables& rt,
                                          const std::vector<RouteDemand>& demands,
                                          size_t max_cycles = 100,
                                          const ValleyRetag* retag = nullptr);

// "leaf0:3:p3 -> spine1:0:p3 -> ... -> leaf0:3:p3".
std::string format_cycle(const Fabric& f, const std::vector<BufferId>& cycle);

}  // namespace topo
