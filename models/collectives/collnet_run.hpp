// The state of one CollNet all-reduce (collnet_run.cpp) while it runs: per rail the SHARP group
// of the servers' head NICs, per server and chunk what its head still waits for, per server and
// rail how far the intra-server pipeline may run ahead (each server's entries written only
// where the server is), and the NVLink messages in flight.
#pragma once

#include <cstdint>
#include <vector>

#include "models/collectives/nvls_tree_run.hpp"

namespace models {

struct CollNetMessage {
  int64_t chunk = 0;
  int server = 0;     // position in CollNetState::servers
  uint32_t from = 0;  // ranks
  uint32_t to = 0;
  bool up = true;    // towards the head (data to reduce), else the result going out
  int position = 0;  // Chain: the receiver's position on the chain (0 = the head)
  int64_t bytes = 0;
};

struct CollNetState {
  bool direct = true;  // Direct, else Chain
  std::vector<NvlsTreeServer> servers;
  int heads = 0;                // rails per server (Direct's nHeads)
  std::vector<uint32_t> group;  // [rail] its SHARP group: the rail's NIC on every server
  // Chain: [server][rail] the chain's ranks, its head (the GPU next to the rail's NIC) first.
  std::vector<std::vector<std::vector<uint32_t>>> chain;
  int64_t size = 0;
  int64_t chunk_bytes = 0;
  int64_t chunks = 0;
  int64_t window = 1;  // rail-local chunks the intra-server pipeline may run ahead of the head
  // [server * chunks + chunk] Direct: the GPUs' parts the chunk's head still waits for.
  std::vector<uint16_t> pending;
  // [server * heads + rail]: rail-local chunks the head has handed to the network, and those
  // whose data has been started towards the head.
  std::vector<int64_t> released;
  std::vector<int64_t> posted;
  InFlight<CollNetMessage> in_flight;  // NVLink messages; a group per rail
  size_t groups_started = 0;           // the call's SHARP groups (one per rail, empty or not)
};

}  // namespace models
