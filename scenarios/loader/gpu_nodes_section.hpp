// topology.nodes of the "rail" and "leaf-spine" generators: GPU servers (topologies/
// gpu_nodes.hpp) instead of plain NIC endpoints.
//   "nodes": {"count": 16, "preset": "dgx-h100"}
//   "nodes": {"count": 4, "preset": "generic", "gpus": 4, "nics": 2, "nic_rate": "200Gbps",
//             "nvlink_rate": "1200Gbps"}
// The preset sets every parameter; the keys after it change single ones ("generic" has no
// values of its own: gpus, nics, nic_rate and nvlink_rate are then required).
#pragma once

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

// The tunable keys (for --list-params).
const FieldTable<topo::GpuNodeParams>& gpu_node_fields();

}  // namespace scen
