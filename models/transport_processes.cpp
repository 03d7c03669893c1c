// The transport in a run over several processes (Transport::run_over_processes; ARCHITECTURE.md,
// "Runs over processes"). Each process holds the whole fabric's tables, but a flow added while
// the run goes on (a collective's message) is added by the process of its sender only. Two
// things make every process hold it under the same ids before any packet of it reaches them:
//  - ids that no other process could take: partition p's k-th block of flow ids (and of QP
//    ids) is at the same place in every process, whatever the others took meanwhile;
//  - the processes tell each other of the flows they added, between windows (sim::RankShare).
//    A packet crosses from one partition to another no sooner than the lookahead, the length
//    of a window, so it is unpacked only after the window's shares have been taken in.
// A finished recycle flow's slot (transport_recycling.cpp) is reused by its sender's process
// once no process holds a packet of it at a window's end: each process tells which of the
// finished flows it still holds packets of, before it packs its events (when every packet is
// in exactly one process's pool). A slot reused is told as a flow added is; where its receiver
// is, the receiver's side of its last use joins the retired totals first.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "models/transport.hpp"

namespace models {

namespace {
constexpr uint32_t kFlowBlock = 64;  // flow ids a partition takes at once
constexpr uint32_t kQpBlock = 256;   // QP ids a partition takes at once (a flow's are contiguous)
}  // namespace

void Transport::run_over_processes() {
  over_processes_ = true;
  flow_base_ = flows_.size();
  qp_base_ = qps_.size();
  id_blocks_.resize(ctx_.sim.partitions());
  added_.resize(ctx_.sim.partitions());
  finished_.resize(ctx_.sim.partitions());
}

void Transport::grow_flows(size_t n) {
  if (n <= flows_.size()) return;
  spare_flows_ += n - flows_.size();
  flows_.grow_to(n);
}

void Transport::grow_qps(size_t n) {
  if (n <= qps_.size()) return;
  qps_.grow_to(n);
  ctx_.pool.reserve_qp_counts(static_cast<uint32_t>(qps_.size()));
  if (qp_reserver_) qp_reserver_(qps_.size());
}

std::pair<uint32_t, uint32_t> Transport::block_ids(uint32_t partition, uint32_t qps) {
  if (qps > kQpBlock) {
    throw std::invalid_argument("a message of " + std::to_string(qps) +
                                " QPs in a run over processes: at most " +
                                std::to_string(kQpBlock));
  }
  const uint64_t partitions = ctx_.sim.partitions();
  IdBlocks& b = id_blocks_[partition];
  if (b.next_flow == b.flow_end) {
    const uint64_t start = flow_base_ + (b.flow_blocks++ * partitions + partition) * kFlowBlock;
    if (start + kFlowBlock > UINT32_MAX) throw std::length_error("flow ids beyond 2^32");
    b.next_flow = static_cast<uint32_t>(start);
    b.flow_end = static_cast<uint32_t>(start + kFlowBlock);
    grow_flows(b.flow_end);
  }
  if (b.qp_end - b.next_qp < qps) {
    const uint64_t start = qp_base_ + (b.qp_blocks++ * partitions + partition) * kQpBlock;
    if (start + kQpBlock > UINT32_MAX) throw std::length_error("QP ids beyond 2^32");
    b.next_qp = static_cast<uint32_t>(start);
    b.qp_end = static_cast<uint32_t>(start + kQpBlock);
    grow_qps(b.qp_end);
  }
  const uint32_t first_qp = b.next_qp;
  b.next_qp += qps;
  --spare_flows_;
  return {b.next_flow++, first_qp};
}

namespace {

// A block's end: the table is grown to it where the flow is told of, as where it was added.
uint64_t block_end(uint64_t id, uint64_t base, uint64_t block) {
  return base + ((id - base) / block + 1) * block;
}

}  // namespace

// Per flow added (or a slot reused) since the last pack: its ids, what add_flow was given, and
// its owner. Then the recycle flows finished since; then, of those told before and not yet
// seen free of packets, which this process holds packets of now (its events not yet packed:
// every packet counts in exactly one process's pool).
void Transport::pack_share(sim::Bytes& out) {
  uint32_t count = 0;
  for (uint32_t p = 0; p < added_.size(); ++p) count += static_cast<uint32_t>(added_[p].size());
  sim::put_bytes(out, count);
  for (uint32_t p = 0; p < added_.size(); ++p) {
    for (const auto [id, reused] : added_[p]) {
      sim::put_bytes(out, reused);
      const FlowState& f = flows_[id];
      const FlowSpec& s = f.spec;
      const auto owner = static_cast<uint32_t>(std::find(owners_.begin(), owners_.end(), f.owner) -
                                               owners_.begin());
      if (f.owner != nullptr && owner == owners_.size()) {
        throw std::logic_error("flow " + std::to_string(id) +
                               " has an owner unknown to the other processes (register_owner)");
      }
      const QueuePair& q = qps_[f.first_qp];
      sim::put_bytes(out, id);
      sim::put_bytes(out, f.first_qp);
      sim::put_bytes(out, s.src_host);
      sim::put_bytes(out, s.dst_host);
      sim::put_bytes(out, s.bytes);
      sim::put_bytes(out, s.start);
      sim::put_bytes(out, s.priority);
      sim::put_bytes(out, s.dscp);
      sim::put_bytes(out, s.qps);
      sim::put_bytes(out, s.transport);
      sim::put_bytes(out, q.route_id);
      sim::put_bytes(out, q.udp_sport);
      sim::put_bytes(out, f.recycle);
      sim::put_bytes(out, f.owner != nullptr ? owner : UINT32_MAX);
      sim::put_bytes(out, f.owner_tag);
      sim::put_bytes(out, static_cast<uint32_t>(s.route.size()));
      for (const int node : s.route) sim::put_bytes(out, node);
      sim::put_bytes(out, static_cast<uint32_t>(s.tag.size()));
      for (const char c : s.tag) sim::put_bytes(out, c);
    }
    added_[p].clear();
  }
  count = 0;
  for (uint32_t p = 0; p < finished_.size(); ++p) {
    count += static_cast<uint32_t>(finished_[p].size());
  }
  sim::put_bytes(out, count);
  for (uint32_t p = 0; p < finished_.size(); ++p) {
    for (const uint32_t id : finished_[p]) sim::put_bytes(out, id);
    finished_[p].clear();
  }
  reported_ = clearing_.size();
  sim::put_bytes(out, static_cast<uint64_t>(reported_));
  for (const uint32_t id : clearing_) {
    const FlowState& f = flows_[id];
    uint8_t holds = 0;
    for (uint32_t k = 0; k < f.qp_count && holds == 0; ++k) {
      holds = ctx_.pool.qp_packets(f.first_qp + k) != 0 ? 1 : 0;
    }
    sim::put_bytes(out, holds);
  }
}

void Transport::take_share(sim::ByteReader& in, uint32_t rank) {
  const auto count = in.get<uint32_t>();
  const bool own = ctx_.sim.ranks() != nullptr && rank == ctx_.sim.ranks()->rank();
  for (uint32_t i = 0; i < count; ++i) {
    const auto reused = in.get<bool>();
    const auto id = in.get<uint32_t>();
    const auto first_qp = in.get<uint32_t>();
    FlowSpec s;
    s.src_host = in.get<int>();
    s.dst_host = in.get<int>();
    s.bytes = in.get<int64_t>();
    s.start = in.get<sim::Time>();
    s.priority = in.get<int>();
    s.dscp = in.get<int>();
    s.qps = in.get<int>();
    s.transport = in.get<FlowTransport>();
    const auto route_id = in.get<uint32_t>();
    const auto sport = in.get<uint16_t>();
    const auto recycle = in.get<bool>();
    const auto owner = in.get<uint32_t>();
    const auto owner_tag = in.get<int64_t>();
    s.route.resize(in.get<uint32_t>());
    for (int& node : s.route) node = in.get<int>();
    s.tag.resize(in.get<uint32_t>());
    for (char& c : s.tag) c = in.get<char>();
    if (own) continue;  // added here
    if (id < flow_base_ || first_qp < qp_base_ ||
        (owner != UINT32_MAX && owner >= owners_.size()) || s.src_host < 0 ||
        static_cast<size_t>(s.src_host) >= nics_.size()) {
      throw std::runtime_error("rank " + std::to_string(rank) + " told of flow " +
                               std::to_string(id) + " that this process cannot hold");
    }
    if (reused) {
      if (id >= flows_.size() || flows_[id].spec.src_host < 0 || flows_[id].first_qp != first_qp) {
        throw std::runtime_error("rank " + std::to_string(rank) + " reused flow slot " +
                                 std::to_string(id) + ", which this process does not hold");
      }
      retire_receiver_side(id);
    } else {
      grow_flows(block_end(id, flow_base_, kFlowBlock));
      grow_qps(block_end(first_qp, qp_base_, kQpBlock));
      if (flows_[id].spec.src_host >= 0) {
        throw std::runtime_error("rank " + std::to_string(rank) + " told of flow " +
                                 std::to_string(id) + ", an id already taken here");
      }
      --spare_flows_;
    }
    fill_flow(id, first_qp, s, route_id, sport, recycle, reused);
    set_owner(id, owner != UINT32_MAX ? owners_[owner] : nullptr, owner_tag);
  }
  const auto finished = in.get<uint32_t>();
  for (uint32_t i = 0; i < finished; ++i) {
    const auto id = in.get<uint32_t>();
    if (id >= flows_.size() || !flows_[id].recycle) {
      throw std::runtime_error("rank " + std::to_string(rank) + " told of finished flow " +
                               std::to_string(id) + ", not a recycle flow here");
    }
    told_finished_.push_back(id);
  }
  const auto reported = in.get<uint64_t>();
  if (reported != reported_) {
    throw std::runtime_error("rank " + std::to_string(rank) + " reported on " +
                             std::to_string(reported) + " finished flows, this process on " +
                             std::to_string(reported_));
  }
  held_.resize(reported_);
  for (size_t i = 0; i < reported; ++i) held_[i] |= in.get<uint8_t>();
}

// The finished flows no process held a packet of at the window's end: none can appear any
// more (a finished QP sends nothing, and its receiver answers only data), so its sender may
// reuse the slot. The others wait for the next window; the flows finished in this one join.
void Transport::shares_taken() {
  std::vector<uint32_t> waiting;
  for (size_t i = 0; i < reported_; ++i) {
    const uint32_t id = clearing_[i];
    if (held_[i] != 0) {
      waiting.push_back(id);
      continue;
    }
    const FlowState& f = flows_[id];
    const uint32_t partition = partition_of(f.spec.src_host);
    if (!ctx_.sim.is_local(partition)) continue;
    Retired& r = retired_[partition];
    if (r.by_qps.size() <= f.qp_count) r.by_qps.resize(f.qp_count + 1);
    r.by_qps[f.qp_count].push_back(id);
    ++r.count;
  }
  waiting.insert(waiting.end(), told_finished_.begin(), told_finished_.end());
  clearing_ = std::move(waiting);
  told_finished_.clear();
  held_.assign(clearing_.size(), 0);
  reported_ = 0;
}

// What the slot's reuse overwrites of its receiver's side, where that receiver is: its counts
// join the retired totals (those of its sender's side joined them where the sender is), and
// its bytes delivered are checked.
void Transport::retire_receiver_side(uint32_t flow) {
  const FlowState& f = flows_[flow];
  const uint32_t partition = partition_of(f.spec.dst_host);
  if (!ctx_.sim.is_local(partition)) return;
  uint64_t delivered = 0;
  RetiredFlowTotals& totals = retired_[partition].totals;
  for (uint32_t k = 0; k < f.qp_count; ++k) {
    const QueuePair& q = qps_[f.first_qp + k];
    totals.duplicate_packets += q.duplicate_packets;
    delivered += q.delivered_bytes;
  }
  if (delivered != static_cast<uint64_t>(f.spec.bytes)) {
    throw std::logic_error("flow " + std::to_string(flow) + " completed with " +
                           std::to_string(delivered) + " of " + std::to_string(f.spec.bytes) +
                           " bytes delivered");
  }
}

bool Transport::share_pending() const {
  for (uint32_t p = 0; p < added_.size(); ++p) {
    if (!added_[p].empty() || !finished_[p].empty()) return true;
  }
  return false;
}

}  // namespace models
