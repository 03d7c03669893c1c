// The state of one NVLS-tree all-reduce (nvls_tree_run.cpp) while it runs: per server its
// NVSwitch group and heads, per chunk and server what its tree step still waits for (written
// only where the server is: its heads' partition), and the network messages in flight.
#pragma once

#include <cstdint>
#include <vector>

#include "models/collectives/in_flight.hpp"

namespace models {

struct NvlsTreeServer {
  int server = -1;              // topologies/gpu_nodes.hpp server number
  std::vector<uint32_t> ranks;  // the collective's ranks on it, in rank order
  uint32_t group = 0;           // its SharpAllReduce group (the GPUs' NVLink endpoints)
  // Per rail (= head position): the NIC endpoint, and the rank of the GPU next to it.
  std::vector<uint32_t> nic;
  std::vector<uint32_t> head_rank;
};

struct NvlsTreeMessage {
  int64_t chunk = 0;
  int from = 0, to = 0;  // positions in NvlsTreeState::servers
  bool up = true;        // towards the tree's root (a partial sum), else the result going down
  int64_t bytes = 0;
};

struct NvlsTreeState {
  std::vector<NvlsTreeServer> servers;
  int heads = 0;                                     // rails per server
  std::vector<std::vector<int>> parent;              // [tree][server position] (-1: root)
  std::vector<std::vector<std::vector<int>>> child;  // [tree][server position]
  int64_t chunk_bytes = 0;                           // the call's chunk
  int64_t chunks = 0;
  // [server position * chunks + chunk]: what the chunk's step at that server still waits for
  // (its own NVSwitch reduction, and each tree child's partial sum).
  std::vector<uint8_t> pending;
  InFlight<NvlsTreeMessage> in_flight;  // network messages; a group per server
};

}  // namespace models
