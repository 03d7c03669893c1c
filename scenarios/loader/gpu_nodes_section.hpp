// topology.nodes of the "rail" and "leaf-spine" generators: GPU servers (topologies/
// gpu_nodes.hpp) instead of plain NIC endpoints.
//   "nodes": {"count": 16, "preset": "dgx-h100"}
//   "nodes": {"count": 4, "preset": "generic", "gpus": 4, "nics": 2, "nic_rate": "200Gbps",
//             "nvlink_rate": "1200Gbps"}
// The preset sets every parameter; the keys after it change single ones ("generic" has no
// values of its own: gpus, nics, nic_rate and nvlink_rate are then required).
#pragma once

#include <functional>
#include <string>

#include "scenarios/loader/json_reader.hpp"
#include "scenarios/loader/param_table.hpp"
#include "topologies/gpu_nodes.hpp"

namespace scen {

struct GpuNodesSection {
  int count = 0;  // servers
  topo::GpuNodeParams params;
};

// Reads the "nodes" object `r` (finishes it).
GpuNodesSection read_gpu_nodes(JsonReader& r);

// An inline topology's (or a topology file's) "gpu_servers": the same keys as "nodes" but,
// instead of "count", "servers": for each server the names of its NIC hosts in rail order
//   "gpu_servers": {"preset": "dgx-h100", "servers": [["n0r0", ..., "n0r7"], ...]}
// The NVSwitch and NVLink endpoints are added as the generators add them (gpu_nodes.hpp), so a
// file written by `rdmasim topo gen` loads back to the same network. `node_index` maps the
// topology's node names; the NIC nodes are checked to be hosts, each in one server.
// Adds the servers to `t` (finishes `r`).
void read_inline_gpu_servers(JsonReader& r, topo::Topology& t,
                             const std::function<int(JsonReader&, size_t)>& nic_node);

// "gpu_servers" of a topology with GPU servers (for topology_to_json); null when it has none.
Json gpu_servers_to_json(const topo::Topology& t);

// The tunable keys (for --list-params).
const FieldTable<topo::GpuNodeParams>& gpu_node_fields();

}  // namespace scen
