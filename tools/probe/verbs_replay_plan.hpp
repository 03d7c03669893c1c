// Which queue pairs a rank of a verbs scenario replay creates, and what each carries. The
// replay mirrors the simulator's transport (models/transport.cpp, Transport::add_flow): every
// flow gets its own RC queue pairs, `qps` of them (fewer when the message has fewer MTU
// packets), the message striped over them in contiguous runs of MTU packets with the short
// tail on the last one, all posted at the flow's start. Each share moves as RDMA writes (or
// sends) of at most `chunk_bytes`, so buffers stay bounded whatever the flow size.
// Needs neither libibverbs nor MPI: the unit tests check it against the simulator.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "models/workloads/flow_spec.hpp"
#include "tools/probe/verbs_connection.hpp"

namespace probe {

constexpr int64_t kMaxChunkBytes = 64LL << 20;  // largest single work request (and buffer)
constexpr size_t kMaxQpsPerRank = 4096;         // queue pairs one rank creates, both roles

// A message of `bytes` striped over `qps` queue pairs, as Transport::add_flow does.
inline std::vector<int64_t> stripe_shares(int64_t bytes, int qps, int64_t mtu) {
  const int64_t packets = (bytes + mtu - 1) / mtu;
  const int64_t used = std::min<int64_t>(qps, packets);
  std::vector<int64_t> shares(static_cast<size_t>(used));
  for (int64_t k = 0; k < used; ++k) {
    const int64_t my_packets = packets / used + (k < packets % used ? 1 : 0);
    shares[static_cast<size_t>(k)] = my_packets * mtu;
  }
  if (used > 0) shares.back() -= packets * mtu - bytes;
  return shares;
}

// The largest share of any flow of the scenario, capped at kMaxChunkBytes: the size of every
// rank's send and receive buffer (the same on all ranks, computed from the scenario alone).
inline int64_t replay_chunk_bytes(const std::vector<models::FlowSpec>& flows, int64_t mtu) {
  int64_t largest = 1;
  for (const auto& f : flows) {
    for (int64_t s : stripe_shares(f.bytes, f.qps, mtu)) largest = std::max(largest, s);
  }
  return std::min(largest, kMaxChunkBytes);
}

struct PlannedQp {
  uint32_t flow = 0;
  uint32_t index = 0;
  QpRole role = QpRole::Requester;
  int peer = 0;        // the rank at the other end
  int64_t bytes = 0;   // this queue pair's share of the flow
  int64_t chunks = 0;  // work requests it takes: ceil(bytes / chunk_bytes)
  int priority = 3;    // service level (InfiniBand) / traffic class
  int dscp = 26;       // RoCE: the GRH traffic class is dscp << 2
};

// The queue pairs of `rank`, in a fixed order (flow, stripe index, requester before
// responder): requesters for the flows it sends, responders for the flows it receives (a flow
// from a host to itself gets both).
inline std::vector<PlannedQp> plan_replay_qps(const std::vector<models::FlowSpec>& flows, int rank,
                                              int64_t mtu, int64_t chunk_bytes) {
  std::vector<PlannedQp> out;
  for (size_t i = 0; i < flows.size(); ++i) {
    const models::FlowSpec& f = flows[i];
    if (f.src_host != rank && f.dst_host != rank) continue;
    const auto shares = stripe_shares(f.bytes, f.qps, mtu);
    for (size_t k = 0; k < shares.size(); ++k) {
      PlannedQp q;
      q.flow = static_cast<uint32_t>(i);
      q.index = static_cast<uint32_t>(k);
      q.bytes = shares[k];
      q.chunks = (shares[k] + chunk_bytes - 1) / chunk_bytes;
      q.priority = f.priority;
      q.dscp = f.dscp;
      if (f.src_host == rank) {
        q.role = QpRole::Requester;
        q.peer = f.dst_host;
        out.push_back(q);
      }
      if (f.dst_host == rank) {
        q.role = QpRole::Responder;
        q.peer = f.src_host;
        out.push_back(q);
      }
    }
  }
  return out;
}

}  // namespace probe
