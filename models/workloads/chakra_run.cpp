#include "models/workloads/chakra_run.hpp"

#include "models/timeline.hpp"
#include "sim/event_arg.hpp"

namespace models {

ChakraRunner::ChakraRunner(Context& ctx, Transport& transport, ChakraSpec spec, uint32_t index,
                           uint64_t seed)
    : EventHandler(ctx.sim),
      ctx_(ctx),
      transport_(transport),
      spec_(std::move(spec)),
      index_(index),
      seed_(seed) {
  timeline_process_ = "chakra " + std::to_string(index);
  groups_.resize(spec_.groups.size());
  joined_.assign(spec_.collectives.size(), 0);
  for (uint32_t c = 0; c < spec_.collectives.size(); ++c) {
    const ChakraCollective& coll = spec_.collectives[c];
    groups_[coll.group].order.push_back(c);
    const auto key = std::make_pair(coll.group, coll.op);
    if (runners_.count(key) == 0) {
      CollectiveSpec g = spec_.groups[coll.group];
      g.op = coll.op;
      auto runner = std::make_unique<CollectiveRunner>(
          ctx, transport, std::move(g), index,
          seed ^ (static_cast<uint64_t>(coll.group) << 20) ^ static_cast<uint64_t>(coll.op));
      runner->set_timeline_process(timeline_process_ + ": group " +
                                   (spec_.group_names[coll.group].empty()
                                        ? std::string("world")
                                        : spec_.group_names[coll.group]));
      runner->attach();
      runners_.emplace(key, std::move(runner));
    }
  }
  transfers_.resize(spec_.transfers.size());
  ranks_.resize(spec_.ranks.size());
  for (const auto& nodes : spec_.ranks) total_nodes_ += nodes.size();
  transport_.add_listener(this);
}

void ChakraRunner::set_sharp(SharpAllReduce* sharp) {
  for (auto& [key, runner] : runners_) runner->set_sharp(sharp);
}

void ChakraRunner::start() {
  ctx_.sim.at(spec_.start, this, kStart, 0);
}

void ChakraRunner::on_event(uint32_t kind, uint64_t arg) {
  if (kind == kNodeDone) {
    node_done(sim::arg_high(arg), sim::arg_low(arg));
    return;
  }
  // The iteration begins: every rank starts its nodes without dependencies, in file order.
  if (ctx_.timeline != nullptr) {
    started_.resize(spec_.ranks.size());
    for (size_t r = 0; r < spec_.ranks.size(); ++r) started_[r].resize(spec_.ranks[r].size());
  }
  results_.assign(spec_.ranks.size(), ChakraRankResult{});
  for (uint32_t r = 0; r < spec_.ranks.size(); ++r) {
    RankState& st = ranks_[r];
    const std::vector<ChakraNode>& nodes = spec_.ranks[r];
    st.remaining = static_cast<uint32_t>(nodes.size());
    st.waiting.resize(nodes.size());
    for (uint32_t n = 0; n < nodes.size(); ++n) st.waiting[n] = nodes[n].parents;
    results_[r].name = spec_.rank_names[r];
    results_[r].nodes = st.remaining;
    if (nodes.empty()) ++ranks_done_;
  }
  for (uint32_t r = 0; r < spec_.ranks.size(); ++r) {
    for (uint32_t n = 0; n < spec_.ranks[r].size(); ++n) {
      if (ranks_[r].waiting[n] == 0) begin(r, n);
    }
  }
  if (ranks_done_ == spec_.ranks.size() && !done_) {
    done_ = true;
    if (on_done_) on_done_();
  }
}

void ChakraRunner::begin(uint32_t rank, uint32_t node) {
  const ChakraNode& n = spec_.ranks[rank][node];
  if (!started_.empty()) started_[rank][node] = ctx_.sim.now();
  switch (n.kind) {
    case ChakraNode::Kind::Compute: {
      RankState& st = ranks_[rank];
      if (st.computing++ == 0) st.compute_since = ctx_.sim.now();
      ctx_.sim.after(n.duration, this, kNodeDone, node_arg(rank, node));
      return;
    }
    case ChakraNode::Kind::Other:
      // No time; done through the queue so that a long chain does not recurse.
      ctx_.sim.after(sim::Time(0), this, kNodeDone, node_arg(rank, node));
      return;
    case ChakraNode::Kind::Collective:
      ++results_[rank].collectives;
      ++joined_[n.match];
      try_group(spec_.collectives[n.match].group);
      return;
    case ChakraNode::Kind::Send:
      ++results_[rank].sends;
      transfers_[n.match].send_posted = true;
      try_transfer(n.match);
      return;
    case ChakraNode::Kind::Recv: {
      ++results_[rank].recvs;
      transfers_[n.match].recv_posted = true;
      // The receiver tells the sender where to write (start_clear_to_send).
      const ChakraTransfer& x = spec_.transfers[n.match];
      const uint32_t flow =
          start_clear_to_send(transport_, spec_.endpoints, x.dst_rank, x.src_rank, ctx_.sim.now(),
                              connection_sport(x.dst_rank, x.src_rank) ^ 0x1a5a);
      if (clear_of_flow_.size() <= flow) clear_of_flow_.resize(flow + 1, 0);
      clear_of_flow_[flow] = n.match + 1;
      return;
    }
  }
}

void ChakraRunner::node_done(uint32_t rank, uint32_t node) {
  const ChakraNode& n = spec_.ranks[rank][node];
  RankState& st = ranks_[rank];
  const sim::Time now = ctx_.sim.now();
  if (n.kind == ChakraNode::Kind::Compute && --st.computing == 0) {
    results_[rank].compute += now - st.compute_since;
  }
  if (!started_.empty()) timeline_span(rank, n, started_[rank][node]);
  ++nodes_done_;
  for (uint32_t child : n.children) {
    if (--st.waiting[child] == 0) begin(rank, child);
  }
  if (--st.remaining > 0) return;
  ChakraRankResult& res = results_[rank];
  res.iteration = now - spec_.start;
  res.exposed = res.iteration - res.compute;
  if (++ranks_done_ == spec_.ranks.size()) {
    done_ = true;
    if (on_done_) on_done_();
  }
}

void ChakraRunner::try_group(uint32_t group) {
  GroupState& g = groups_[group];
  if (g.busy || g.order.empty()) return;
  const uint32_t c = g.order.front();
  const ChakraCollective& coll = spec_.collectives[c];
  if (joined_[c] < coll.members.size()) return;
  g.order.pop_front();
  g.busy = true;
  CollectiveRunner& runner = *runners_.at(std::make_pair(coll.group, coll.op));
  runner.run_one(coll.bytes, [this, c, group, &runner] {
    rows_.push_back(runner.results().back());
    groups_[group].busy = false;
    for (const auto& [rank, node] : spec_.collectives[c].members) node_done(rank, node);
    try_group(group);
  });
}

uint16_t ChakraRunner::connection_sport(uint32_t src, uint32_t dst) const {
  return connection_source_port(seed_ ^ (static_cast<uint64_t>(index_) << 48) ^
                                (static_cast<uint64_t>(src) << 24) ^ dst ^ 0xc4a4ull << 52);
}

void ChakraRunner::try_transfer(uint32_t transfer) {
  const TransferState& t = transfers_[transfer];
  if (!t.send_posted || !t.clear_to_send) return;
  const ChakraTransfer& x = spec_.transfers[transfer];
  const uint32_t flow =
      start_p2p_flow(transport_, spec_.endpoints, x.src_rank, x.dst_rank, x.bytes, ctx_.sim.now(),
                     "chakra", connection_sport(x.src_rank, x.dst_rank));
  if (transfer_of_flow_.size() <= flow) transfer_of_flow_.resize(flow + 1, 0);
  transfer_of_flow_[flow] = transfer + 1;
}

void ChakraRunner::on_flow_delivered(uint32_t flow) {
  if (flow < clear_of_flow_.size() && clear_of_flow_[flow] != 0) {
    const uint32_t transfer = clear_of_flow_[flow] - 1;
    clear_of_flow_[flow] = 0;
    transfers_[transfer].clear_to_send = true;
    try_transfer(transfer);
    return;
  }
  if (flow >= transfer_of_flow_.size() || transfer_of_flow_[flow] == 0) return;
  const ChakraTransfer& x = spec_.transfers[transfer_of_flow_[flow] - 1];
  node_done(x.dst_rank, x.recv_node);
}

void ChakraRunner::on_flow_complete(uint32_t flow) {
  if (flow >= transfer_of_flow_.size() || transfer_of_flow_[flow] == 0) return;
  const ChakraTransfer& x = spec_.transfers[transfer_of_flow_[flow] - 1];
  transfer_of_flow_[flow] = 0;
  node_done(x.src_rank, x.send_node);
}

void ChakraRunner::timeline_span(uint32_t rank, const ChakraNode& n, sim::Time start) {
  TimelineRecorder* t = ctx_.timeline;
  const sim::Time now = ctx_.sim.now();
  if (t == nullptr || n.kind == ChakraNode::Kind::Other) return;
  if (!t->wants(start, now)) {
    t->leave_out(start, now);
    return;
  }
  const bool compute = n.kind == ChakraNode::Kind::Compute;
  const uint32_t track = t->track(timeline_process_,
                                  "rank " + std::to_string(rank) + " " + spec_.rank_names[rank] +
                                      (compute ? " compute" : " comm"),
                                  2 * static_cast<int64_t>(rank) + (compute ? 0 : 1));
  t->span(track, t->name(n.name), start, now);
}

}  // namespace models
