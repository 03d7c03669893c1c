// Where each rank's point-to-point messages (pipeline activations, Chakra send/receive)
// enter the fabric, and how one such message becomes a transport flow. Inside one server a
// message crosses NVLink; between servers it goes GPUDirect RDMA from the GPU's first NIC to
// the peer's (NCCL's P2P transport inside a node, its NET transport through the GPU's closest
// NIC between nodes: docs/references.md, "NCCL transports").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/workloads/flow_spec.hpp"
#include "sim/time.hpp"

namespace models {

class Transport;

struct GpuEndpoints {
  // Per rank: its NIC endpoint, its NVLink endpoint (a plain host: the host itself) and its
  // server (-1: a plain host, never on NVLink with another rank).
  std::vector<uint32_t> nic, nvlink;
  std::vector<int> server;
  int priority = 3;  // the messages' traffic class and DSCP
  int dscp = 26;

  void add(uint32_t nic_host, uint32_t nvlink_host, int server_index) {
    nic.push_back(nic_host);
    nvlink.push_back(nvlink_host);
    server.push_back(server_index);
  }
  size_t size() const { return nic.size(); }
  bool same_server(uint32_t a, uint32_t b) const {
    return server[a] >= 0 && server[a] == server[b];
  }
};

// A fixed, well-spread RoCEv2 UDP source port (49152 + [0, span)) for a connection, from the
// splitmix64 hash of its key: a connection keeps its path as a real QP does. The caller's key
// holds whatever makes its connections distinct (seed, runner index, ranks, channel).
inline uint16_t connection_source_port(uint64_t key, uint64_t span = 16383) {
  uint64_t z = key + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return static_cast<uint16_t>(49152 + z % span);
}

// Starts `bytes` from rank src to rank dst now, as the next message of that connection's QP
// (messages of one connection are served in order); returns the flow. The flow's slot is
// recycled once it completes.
uint32_t start_p2p_flow(Transport& transport, const GpuEndpoints& endpoints, uint32_t src,
                        uint32_t dst, int64_t bytes, sim::Time now, const char* tag,
                        uint16_t sport);

// NCCL's point-to-point handshake (docs/references.md, "Point-to-point clear to send"): a send
// moves its data only once the receiver has posted its receive and told the sender where to
// write it — over the network an RDMA write of one 64-byte FIFO element into the sender's
// memory (net_ib's ncclIbPostFifo; ncclIbIsend waits for it), inside a server the receiver's
// buffer pointer over NVLink. The clear-to-send message from `receiver` to `sender`, started
// now on its own connection (`sport`); its delivery at the sender lets the data go.
constexpr int64_t kClearToSendBytes = 64;
uint32_t start_clear_to_send(Transport& transport, const GpuEndpoints& endpoints, uint32_t receiver,
                             uint32_t sender, sim::Time now, uint16_t sport);

}  // namespace models
