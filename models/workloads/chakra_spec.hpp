// A workload of per-rank execution traces (MLCommons Chakra ET) as data: each rank's nodes
// with their dependencies, its collectives matched across their process group, its sends
// matched to their receives (scenarios/loader/chakra_section.hpp reads the files; chakra_run.hpp runs it).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/collectives/collective_spec.hpp"
#include "models/workloads/gpu_endpoints.hpp"
#include "sim/time.hpp"

namespace models {

struct ChakraNode {
  // Compute: a delay (a COMP node's duration). Collective: its share of a group collective.
  // Send, Recv: one side of a point-to-point transfer. Other: no time (metadata, memory).
  enum class Kind : uint8_t { Compute, Collective, Send, Recv, Other };
  Kind kind = Kind::Other;
  uint64_t id = 0;  // the node's id in its file
  std::string name;
  sim::Time duration;              // Compute
  uint32_t match = 0;              // Collective: its collective; Send, Recv: its transfer
  uint32_t parents = 0;            // dependencies (data and control) within the rank
  std::vector<uint32_t> children;  // indices of the nodes that depend on this one
};

struct ChakraCollective {
  CollectiveOp op = CollectiveOp::AllReduce;
  int64_t bytes = 0;
  uint32_t group = 0;                                  // index into ChakraSpec::groups
  std::vector<std::pair<uint32_t, uint32_t>> members;  // (rank, node) in the group's order
};

struct ChakraTransfer {
  uint32_t src_rank = 0, dst_rank = 0;
  uint32_t send_node = 0, recv_node = 0;
  int64_t bytes = 0;
};

struct ChakraSpec {
  std::vector<std::string> rank_names;         // the GPU (or host) of each rank
  std::vector<std::vector<ChakraNode>> ranks;  // [rank] nodes in file order
  std::vector<std::string> group_names;        // process groups ("" = every rank)
  // [group] per op its collective over the group's ranks (op set per call).
  std::vector<CollectiveSpec> groups;
  std::vector<ChakraCollective> collectives;
  std::vector<ChakraTransfer> transfers;
  // Point-to-point transfers: where each rank's enter the fabric, and their class.
  GpuEndpoints endpoints;
  sim::Time start;
};

}  // namespace models
