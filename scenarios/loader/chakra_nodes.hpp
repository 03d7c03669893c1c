// One rank's Chakra execution trace, read and checked on its own (scenarios/loader/
// chakra_section matches the ranks' traces to each other): every node's type and attributes,
// its dependencies present and free of cycles; compute nodes become delays, collectives and
// sends/receives are listed for matching across ranks.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "models/collectives/collective_spec.hpp"
#include "models/workloads/chakra_spec.hpp"
#include "scenarios/loader/chakra_trace.hpp"

namespace scen {

struct ChakraRankTrace {
  EtFile file;                            // as read (its nodes name themselves in messages)
  std::vector<models::ChakraNode> nodes;  // in file order, dependencies linked
  struct Collective {
    uint32_t node = 0;
    std::string group;  // pg_name; "" = every rank
    models::CollectiveOp op = models::CollectiveOp::AllReduce;
    int64_t bytes = 0;
  };
  std::vector<Collective> collectives;  // in file order
  struct PointToPoint {
    bool send = true;
    uint32_t peer = 0;  // comm_dst of a send, comm_src of a receive
    int64_t tag = 0;
    uint32_t node = 0;
    int64_t bytes = 0;
  };
  std::vector<PointToPoint> p2p;  // in file order
};

// Reads `file`, the trace of `rank` among `ranks`; throws InputError naming the file and node.
ChakraRankTrace read_chakra_rank(const std::string& file, uint32_t rank, size_t ranks);

// "FILE: node ID (NAME)", how errors name a node.
std::string chakra_node_path(const std::string& file, const ChakraProtoMsg::Node& n);

}  // namespace scen
