// The fabric as pure data: nodes, links, ports. Knows nothing of the simulator or models
// (DESIGN.md: "topologies are data and know neither").
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "topologies/gpu_nodes.hpp"

namespace topo {

enum class NodeKind : uint8_t { Host, Switch };

struct Node {
  std::string name;  // unique, e.g. "h12", "leaf3", "spine0"
  NodeKind kind = NodeKind::Host;
  int radix = 0;   // maximum number of ports; 0 = unlimited
  int tier = 0;    // 0 = host, 1 = leaf/ToR, 2 = spine/aggregation, 3 = core (informational)
  int group = -1;  // pod / rail / leaf group, -1 when not meaningful (informational)
};

// A full-duplex cable between two nodes. Both directions share rate, latency and loss rate.
struct Link {
  int a = -1;              // node index
  int b = -1;              // node index
  int64_t rate_bps = 0;    // bits per second, > 0
  int64_t latency_ps = 0;  // propagation delay in picoseconds, > 0
  double loss_rate = 0.0;  // probability that a packet is lost on this link, per direction
  int a_port = -1;         // port index on node a; -1 = assign implicitly (next free)
  int b_port = -1;         // port index on node b; -1 = assign implicitly
};

struct Topology {
  std::string name;
  std::vector<Node> nodes;
  std::vector<Link> links;
  // GPU servers (gpu_nodes.hpp): their NVLink domains are parts of the graph apart from the
  // fabric; empty for a fabric of plain hosts.
  GpuCluster gpus;
};

// Refused input. `path` locates the offending item, JSON-path style: "links[3].rate".
struct TopologyError : std::runtime_error {
  std::string path;
  TopologyError(std::string p, const std::string& what)
      : std::runtime_error(what), path(std::move(p)) {}
};

// One port of a node, after port assignment: which link and which end of it.
struct PortRef {
  int link = -1;
  bool is_a_side = true;
  int peer_node = -1;
  int peer_port = -1;
};

// The validated fabric: ports resolved, hosts numbered 0..H-1 in node order.
// topo.links carry their resolved a_port/b_port (never -1). ports[node] has one entry per
// index up to the highest port used; explicit port numbers with gaps leave unused entries
// with link == -1 (implicit ports never leave gaps).
struct Fabric {
  Topology topo;
  std::vector<std::vector<PortRef>> ports;          // [node][port]
  std::vector<int> host_index;                      // [node] -> host number or -1 for switches
  std::vector<int> host_node;                       // [host number] -> node index
  int node_by_name(const std::string& name) const;  // -1 if absent
  // name -> node index, filled by build_fabric; node_by_name scans the nodes when it is
  // out of date (a Fabric assembled by hand).
  std::unordered_map<std::string, int> name_index;
};

// Largest number of ports a node may have: routing tables store port numbers as uint16_t.
inline constexpr int kMaxPortsPerNode = 65535;

// Validates (connected, no self-loops, positive rates and latencies, loss in [0,1), unique
// names, explicit ports unique and within radix, port count within radix) and assigns ports.
// Throws TopologyError naming the offending item.
Fabric build_fabric(Topology t);

}  // namespace topo
