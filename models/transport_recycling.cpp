// Reuse of finished messages' flow and QP slots (Transport::add_flow with `recycle`).
//
// A collective posts one transport message per step, chunk and channel: tens of millions of
// messages for a large all-reduce on 1,024 GPUs, of which only a few thousand are in flight at
// any time. Keeping every finished message's FlowState and QueuePairs made memory grow with
// the messages posted. Real NICs hold a bounded number of QP contexts; here a finished
// message's slot goes back to a free list and the next message with as many QPs takes it, so
// memory follows the messages in flight.
//
// A slot is reused only when nothing can still refer to its ids, so that results are those of
// fresh ids, bit for bit:
//  - every listener has heard of the completion (retire() runs after them);
//  - no packet of its QPs is alive (a late ACK or CNP, a duplicate after a go-back-N rewind):
//    the packet pool counts them per QP (PacketPool::qp_packets);
//  - no QP is still in its NIC's round-robin list (the NIC drops a finished QP lazily, when
//    its turn comes);
//  - its RTO timers may still have one stale event queued (cancel() leaves it): a reused QP
//    gets a fresh timer, and the old one is kept until its last possible event, one RTO after
//    the QP finished (every arm was at most one RTO ahead of a time before the finish);
//  - nothing keeps per-QP state by id beyond the QP's life (DCQCN does: keep_qp_ids()).
// The per-flow counters summed in the run's statistics are carried over in RetiredFlowTotals.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "models/transport.hpp"

namespace models {

bool Transport::ready_for_reuse(const FlowState& f) const {
  for (uint32_t k = 0; k < f.qp_count; ++k) {
    const QueuePair& q = qps_[f.first_qp + k];
    if (q.in_active_list || ctx_.pool.qp_packets(q.id) != 0) return false;
  }
  return true;
}

RetiredFlowTotals Transport::retired() const {
  RetiredFlowTotals sum;
  for (uint32_t p = 0; p < retired_.size(); ++p) {
    const RetiredFlowTotals& t = retired_[p].totals;
    sum.flows += t.flows;
    sum.retransmitted_packets += t.retransmitted_packets;
    sum.timeouts += t.timeouts;
    sum.nacks_received += t.nacks_received;
    sum.duplicate_packets += t.duplicate_packets;
  }
  return sum;
}

size_t Transport::flows_retired() const {
  size_t n = 0;
  for (uint32_t p = 0; p < retired_.size(); ++p) n += retired_[p].count;
  return n;
}

// Kept by its sender's partition (where it finished), for that partition's senders' next
// messages.
void Transport::retire(uint32_t flow) {
  if (over_processes_) {  // reusable once every process has seen none of its packets
    finished_.local().push_back(flow);
    return;
  }
  const FlowState& f = flows_[flow];
  Retired& r = retired_[partition_of(f.spec.src_host)];
  if (r.by_qps.size() <= f.qp_count) r.by_qps.resize(f.qp_count + 1);
  r.by_qps[f.qp_count].push_back(flow);
  ++r.count;
}

uint32_t Transport::reuse_slot(uint32_t qp_count, uint32_t partition) {
  const sim::Time now = ctx_.sim.now();
  Retired& r = retired_[partition];
  while (!r.timer_graveyard.empty() && r.timer_graveyard.front().first < now) {
    r.timer_graveyard.pop_front();
  }
  if (qp_count >= r.by_qps.size()) return UINT32_MAX;
  auto& retired = r.by_qps[qp_count];
  // The oldest first: the likeliest to be ready. A few tries, so a slot that waits for a late
  // packet does not hold up the ones behind it; the others stay for a later message.
  uint32_t slot = UINT32_MAX;
  for (int tries = 0; tries < 4 && !retired.empty(); ++tries) {
    const uint32_t id = retired.front();
    retired.pop_front();
    if (ready_for_reuse(flows_[id])) {
      slot = id;
      break;
    }
    retired.push_back(id);
  }
  if (slot == UINT32_MAX) return UINT32_MAX;
  --r.count;
  const FlowState& f = flows_[slot];
  uint64_t delivered = 0;
  for (uint32_t k = 0; k < f.qp_count; ++k) {
    QueuePair& q = qps_[f.first_qp + k];
    r.totals.retransmitted_packets += q.retransmitted_packets;
    r.totals.timeouts += q.timeouts;
    r.totals.nacks_received += q.nacks_received;
    r.totals.duplicate_packets += q.duplicate_packets;
    delivered += q.delivered_bytes;
    if (q.rto) {
      r.timer_graveyard.emplace_back(std::max(q.finish + params_.rto, q.rto_horizon),
                                     std::move(q.rto));
    }
  }
  // Conservation of bytes, as run_scenario checks for the slots it sees at the end (over
  // processes, where the receiver is: retire_receiver_side).
  if (ctx_.sim.is_local(partition_of(f.spec.dst_host)) &&
      delivered != static_cast<uint64_t>(f.spec.bytes)) {
    throw std::logic_error("flow " + std::to_string(slot) + " completed with " +
                           std::to_string(delivered) + " of " + std::to_string(f.spec.bytes) +
                           " bytes delivered");
  }
  ++r.totals.flows;
  flows_done_.fetch_sub(1, std::memory_order_relaxed);
  return slot;
}

}  // namespace models
