// The pipeline transfers of a parallel training step (parallel_step.hpp): a point-to-point
// call posts its sends and receives together and ends when all are done (Megatron-LM's
// p2p_communication.py); a transfer moves once its sender has posted it and its receiver's
// clear-to-send has reached the sender (start_clear_to_send). Each side's state is its own
// replica's: the sender's where the sender is, the receiver's where the receiver is.
#include <algorithm>

#include "models/training/parallel_step.hpp"

namespace models {

bool ParallelTraining::post_call(int replica, const Op& op) {
  Replica& R = replica_[static_cast<size_t>(replica)];
  R.last_transfer_start = ctx_.sim.now();
  R.open_items = (op.send_forward >= 0) + (op.send_backward >= 0) + (op.recv_forward >= 0) +
                 (op.recv_backward >= 0);
  if (R.open_items == 0) return false;
  if (op.send_forward >= 0) post_side(replica, Direction::Forward, op.send_forward, true);
  if (op.send_backward >= 0) post_side(replica, Direction::Backward, op.send_backward, true);
  if (op.recv_forward >= 0) post_side(replica, Direction::Forward, op.recv_forward, false);
  if (op.recv_backward >= 0) post_side(replica, Direction::Backward, op.recv_backward, false);
  return true;
}

uint32_t ParallelTraining::transfer_index(int receiver, Direction dir, int micro) const {
  return static_cast<uint32_t>(
      (receiver * 2 + static_cast<int>(dir)) * spec_.parallel.microbatches + micro);
}

// Activations go to the next stage (the same replica index d), gradients to the previous.
int ParallelTraining::receiver_of(uint32_t transfer) const {
  return static_cast<int>(transfer) / spec_.parallel.microbatches / 2;
}

int ParallelTraining::sender_of(uint32_t transfer) const {
  const bool forward = (transfer / static_cast<uint32_t>(spec_.parallel.microbatches)) % 2 == 0;
  return receiver_of(transfer) + (forward ? -spec_.parallel.dp : spec_.parallel.dp);
}

int64_t ParallelTraining::flow_tag(uint32_t transfer, int tr, bool clear) const {
  return ((static_cast<int64_t>(transfer) * spec_.parallel.tp + tr) * 2 + (clear ? 1 : 0)) + 1;
}

void ParallelTraining::post_side(int replica, Direction dir, int micro, bool send) {
  const ParallelGroups& p = spec_.parallel;
  const int dp = p.dp;
  const int peer = dir == Direction::Forward ? (send ? replica + dp : replica - dp)
                                             : (send ? replica - dp : replica + dp);
  const uint32_t transfer = transfer_index(send ? peer : replica, dir, micro);
  Replica& R = replica_[static_cast<size_t>(replica)];
  if (send) {
    SendSide& s = R.sends[transfer];
    if (s.clear.empty()) {
      s.clear.assign(static_cast<size_t>(p.tp), false);
      s.started.assign(static_cast<size_t>(p.tp), false);
      s.incomplete = p.tp;
    }
    s.posted = true;
    ++R.messages_sent;
    for (int tr = 0; tr < p.tp; ++tr) {
      if (s.clear[static_cast<size_t>(tr)]) start_flow(replica, transfer, s, tr);
    }
    return;
  }
  R.receives[transfer] = p.tp;
  // Each tensor rank of the receiver tells its peer where to write (start_clear_to_send).
  const int from_stage = stage_of(peer), to_stage = stage_of(replica);
  const int d = replica % dp;
  for (int tr = 0; tr < p.tp; ++tr) {
    const int src = rank_of(from_stage, d, tr), dst = rank_of(to_stage, d, tr);
    const uint32_t flow = start_clear_to_send(transport_, p.endpoints, static_cast<uint32_t>(dst),
                                              static_cast<uint32_t>(src), ctx_.sim.now(),
                                              connection_sport(dst, src) ^ 0x1a5a);
    transport_.set_owner(flow, this, flow_tag(transfer, tr, /*clear=*/true));
  }
}

uint16_t ParallelTraining::connection_sport(int src_rank, int dst_rank) const {
  return connection_source_port(seed_ ^ (static_cast<uint64_t>(index_) << 48) ^
                                (static_cast<uint64_t>(src_rank) << 24) ^
                                static_cast<uint64_t>(dst_rank));
}

void ParallelTraining::start_flow(int sender, uint32_t transfer, SendSide& s, int tr) {
  const ParallelGroups& p = spec_.parallel;
  if (s.started[static_cast<size_t>(tr)]) return;
  s.started[static_cast<size_t>(tr)] = true;
  const int receiver = receiver_of(transfer);
  const int d = sender % p.dp;
  // Each tensor rank sends its copy of the micro-batch's activations (or their gradients) to
  // the same tensor rank of the other stage: over NVLink inside a server, else NIC to NIC.
  const int src = rank_of(stage_of(sender), d, tr), dst = rank_of(stage_of(receiver), d, tr);
  const uint32_t flow = start_p2p_flow(transport_, p.endpoints, static_cast<uint32_t>(src),
                                       static_cast<uint32_t>(dst), p.activation_bytes,
                                       ctx_.sim.now(), "pipeline", connection_sport(src, dst));
  transport_.set_owner(flow, this, flow_tag(transfer, tr, /*clear=*/false));
  replica_[static_cast<size_t>(sender)].last_transfer_start = ctx_.sim.now();
}

// Where the receiver is: a transfer's data has arrived, or (where the sender is) its
// clear-to-send.
void ParallelTraining::on_flow_delivered(uint32_t flow) {
  const FlowState& f = transport_.flow(flow);
  if (f.owner != this || f.owner_tag <= 0) return;
  const int64_t entry = f.owner_tag - 1;
  const bool clear = (entry & 1) != 0;
  const auto tr = static_cast<int>((entry >> 1) % spec_.parallel.tp);
  const auto transfer = static_cast<uint32_t>((entry >> 1) / spec_.parallel.tp);
  if (clear) {
    const int sender = sender_of(transfer);
    SendSide& s = replica_[static_cast<size_t>(sender)].sends[transfer];
    if (s.clear.empty()) {
      s.clear.assign(static_cast<size_t>(spec_.parallel.tp), false);
      s.started.assign(static_cast<size_t>(spec_.parallel.tp), false);
      s.incomplete = spec_.parallel.tp;
    }
    s.clear[static_cast<size_t>(tr)] = true;
    if (s.posted) start_flow(sender, transfer, s, tr);
    return;
  }
  // The receiver's side is done once every tensor rank's copy has arrived; the transfer
  // started (for its wait) when its latest flow did.
  const int receiver = receiver_of(transfer);
  Replica& R = replica_[static_cast<size_t>(receiver)];
  R.last_transfer_start = std::max(R.last_transfer_start, f.spec.start);
  auto it = R.receives.find(transfer);
  if (it == R.receives.end() || --it->second > 0) return;
  R.receives.erase(it);
  item_done(receiver);
}

// Where the sender is: the sender's side is done once every tensor rank's copy is
// acknowledged.
void ParallelTraining::on_flow_complete(uint32_t flow) {
  const FlowState& f = transport_.flow(flow);
  if (f.owner != this || f.owner_tag <= 0) return;
  const int64_t entry = f.owner_tag - 1;
  if ((entry & 1) != 0) return;  // a clear-to-send's acknowledgement: nothing waits on it
  const auto transfer = static_cast<uint32_t>((entry >> 1) / spec_.parallel.tp);
  const int sender = sender_of(transfer);
  Replica& R = replica_[static_cast<size_t>(sender)];
  auto it = R.sends.find(transfer);
  if (it == R.sends.end() || --it->second.incomplete > 0) return;
  R.sends.erase(it);
  item_done(sender);
}

void ParallelTraining::item_done(int replica) {
  Replica& R = replica_[static_cast<size_t>(replica)];
  if (--R.open_items > 0) return;
  const sim::Time now = ctx_.sim.now();
  R.p2p_wait += R.last_transfer_start - R.op_start;
  R.p2p_time += now - R.last_transfer_start;
  timeline_span(replica, false, "pipeline", R.op_start);
  ++R.pc;
  run(replica);
}

}  // namespace models
