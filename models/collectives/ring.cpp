// Ring algorithms (docs/references.md "Collectives"). All-reduce is a reduce-scatter then an
// all-gather around the ring: 2(n-1) steps, at step j rank r sends segment (r - j) mod n to
// rank r + 1, which needs it for its step j + 1; so every rank sends 2(n-1)/n of the data.
// All-gather and reduce-scatter are the n-1 steps of one half. Broadcast pipelines the data
// down the chain root, root+1, ... Each channel runs its own ring on its share of the data;
// a step's segment is cut into chunks that move independently (pipelining), up to `slots` of
// them in flight on each connection. A channel's ring visits the ranks in rank order, or in
// the order NCCL's channel placement gives it (channel_placement.hpp, `channel_orders`).
#include <algorithm>
#include <stdexcept>

#include "models/collectives/schedule.hpp"

namespace models {
namespace {

// The ranks of channel c's ring in ring order.
std::vector<uint32_t> ring_order(const ScheduleRequest& r, int c) {
  if (!r.channel_orders.empty())
    return r.channel_orders[static_cast<size_t>(c) % r.channel_orders.size()];
  std::vector<uint32_t> order(static_cast<size_t>(r.ranks));
  for (int i = 0; i < r.ranks; ++i) order[i] = static_cast<uint32_t>(i);
  return order;
}

// Position p of the ring is rank order[p]; at step j, position p sends segment (p - j) mod n
// to position p + 1.
void ring_steps(const ScheduleRequest& r, ScheduleBuilder& b, int steps, int64_t channel_bytes,
                uint32_t channel, const std::vector<uint32_t>& order) {
  const int n = r.ranks;
  const std::vector<int64_t> segments = split_bytes(channel_bytes, n, r.type_bytes);
  int64_t largest = 0;
  for (int64_t s : segments) largest = std::max(largest, s);
  const int64_t chunks = chunk_count(largest, r.chunk_bytes);
  std::vector<std::vector<int64_t>> pieces;  // [segment][chunk]
  for (int64_t s : segments) pieces.push_back(split_bytes(s, chunks, r.type_bytes));
  // this_chunk[j * n + rank]: the current chunk's message of step j at rank.
  std::vector<uint32_t> this_chunk(static_cast<size_t>(steps) * n, 0);
  SlotWindow window(r.slots, static_cast<size_t>(steps) * n);
  for (int64_t k = 0; k < chunks; ++k) {
    for (int j = 0; j < steps; ++j) {
      for (int rank = 0; rank < n; ++rank) {
        const int segment = ((rank - j) % n + n) % n;
        const uint32_t id = b.add(order[rank], order[(rank + 1) % n], channel, pieces[segment][k]);
        const size_t at = static_cast<size_t>(j) * n + rank;
        this_chunk[at] = id;
        // The data comes from the previous rank's previous step.
        if (j > 0) b.depend(this_chunk[static_cast<size_t>(j - 1) * n + (rank - 1 + n) % n], id);
        window.add(b, k, at, id);
      }
    }
  }
}

void chain_broadcast(const ScheduleRequest& r, ScheduleBuilder& b, int64_t channel_bytes,
                     uint32_t channel, const std::vector<uint32_t>& order) {
  const int n = r.ranks;
  // The chain starts at the root's position in the ring.
  const int root = static_cast<int>(
      std::find(order.begin(), order.end(), static_cast<uint32_t>(r.root)) - order.begin());
  const int64_t chunks = chunk_count(channel_bytes, r.chunk_bytes);
  const std::vector<int64_t> pieces = split_bytes(channel_bytes, chunks, r.type_bytes);
  std::vector<uint32_t> cur(static_cast<size_t>(n), 0);
  SlotWindow window(r.slots, static_cast<size_t>(n));
  for (int64_t k = 0; k < chunks; ++k) {
    for (int hop = 0; hop + 1 < n; ++hop) {
      const uint32_t from = order[(root + hop) % n];
      const uint32_t to = order[(root + hop + 1) % n];
      const uint32_t id = b.add(from, to, channel, pieces[k]);
      cur[hop] = id;
      if (hop > 0) b.depend(cur[hop - 1], id);
      window.add(b, k, static_cast<size_t>(hop), id);
    }
  }
}

}  // namespace

void ring_schedule(const ScheduleRequest& r, ScheduleBuilder& b) {
  const std::vector<int64_t> shares = split_bytes(r.size_bytes, r.channels, r.type_bytes);
  for (int c = 0; c < r.channels; ++c) {
    const auto channel = static_cast<uint32_t>(c);
    const std::vector<uint32_t> order = ring_order(r, c);
    switch (r.op) {
      case CollectiveOp::AllReduce:
        ring_steps(r, b, 2 * (r.ranks - 1), shares[c], channel, order);
        break;
      case CollectiveOp::AllGather:
      case CollectiveOp::ReduceScatter:
        ring_steps(r, b, r.ranks - 1, shares[c], channel, order);
        break;
      case CollectiveOp::Broadcast:
        chain_broadcast(r, b, shares[c], channel, order);
        break;
      default:
        throw std::invalid_argument(
            "the ring runs all_reduce, all_gather, reduce_scatter, broadcast");
    }
  }
}

}  // namespace models
