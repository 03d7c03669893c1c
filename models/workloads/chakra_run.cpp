#include "models/workloads/chakra_run.hpp"

#include <algorithm>
#include <limits>

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
  const auto groups = spec_.groups.size();
  group_order_.resize(groups);
  group_rank_.assign(
      groups, std::vector<uint32_t>(spec_.ranks.size(), std::numeric_limits<uint32_t>::max()));
  gated_.assign(groups, 1);
  joined_.assign(spec_.collectives.size(), 0);
  row_of_.resize(spec_.collectives.size());
  // Each rank's events where its GPU (or host) is: its endpoint's partition.
  const uint32_t building = ctx_.sim.building_partition();
  for (uint32_t r = 0; r < spec_.ranks.size(); ++r) {
    const sim::EventHandler* nic =
        r < spec_.endpoints.nic.size() ? transport_.nic_handler(spec_.endpoints.nic[r]) : nullptr;
    ctx_.sim.set_building_partition(nic != nullptr ? nic->partition() : building);
    agents_.push_back(std::make_unique<Agent>(ctx_.sim, *this, r));
  }
  for (uint32_t c = 0; c < spec_.collectives.size(); ++c) {
    const ChakraCollective& coll = spec_.collectives[c];
    group_order_[coll.group].push_back(c);
    for (uint32_t pos = 0; pos < coll.members.size(); ++pos) {
      group_rank_[coll.group][coll.members[pos].first] = pos;
    }
    const auto key = std::make_pair(coll.group, coll.op);
    if (runners_.count(key) == 0) {
      // A group whose members are all in one partition (one GPU server's): its runner there
      // too, so that its calls, asked for by the members' events, are that partition's.
      uint32_t where = agents_[coll.members.front().first]->partition();
      for (const auto& [rank, node] : coll.members) {
        if (agents_[rank]->partition() != where) where = building;
      }
      ctx_.sim.set_building_partition(where);
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
      ctx_.sim.set_building_partition(building);
    }
    if (!runners_.at(key)->rank_paced(coll.bytes)) gated_[coll.group] = 0;
  }
  groups_.resize(groups);
  transfers_.resize(spec_.transfers.size());
  ranks_.resize(spec_.ranks.size());
  for (const auto& nodes : spec_.ranks) total_nodes_ += nodes.size();
  transport_.add_listener(this);
  transport_.register_owner(this);  // its transfers' flows, told to other processes
}

void ChakraRunner::set_sharp(SharpAllReduce* sharp) {
  for (auto& [key, runner] : runners_) runner->set_sharp(sharp);
  // An in-network group (an NVLS group inside a server) built before the run: its calls are
  // asked for by its members' events (CollectiveRunner::prepare_in_network).
  for (const ChakraCollective& coll : spec_.collectives) {
    runners_.at(std::make_pair(coll.group, coll.op))->prepare_in_network(coll.bytes);
  }
}

void ChakraRunner::start() {
  // Every rank begins at once: between windows in a split run.
  ctx_.sim.at_boundary(spec_.start, this, kStart, 0);
}

CollectiveRunner& ChakraRunner::runner_of(uint32_t collective) {
  const ChakraCollective& coll = spec_.collectives[collective];
  return *runners_.at(std::make_pair(coll.group, coll.op));
}

// The iteration begins (a boundary event): every rank starts its nodes without dependencies,
// in file order; the gated groups' collectives are asked for in their issue order, each rank
// joining its part where it is.
void ChakraRunner::on_event(uint32_t, uint64_t) {
  if (TimelineRecorder* t = ctx_.timeline; t != nullptr) {
    started_.resize(spec_.ranks.size());
    for (size_t r = 0; r < spec_.ranks.size(); ++r) started_[r].resize(spec_.ranks[r].size());
    // Every track, in rank order (a timeline numbers them in the order asked for).
    for (uint32_t r = 0; r < spec_.ranks.size(); ++r) {
      for (const bool compute : {true, false}) {
        tracks_.push_back(t->track(timeline_process_,
                                   "rank " + std::to_string(r) + " " + spec_.rank_names[r] +
                                       (compute ? " compute" : " comm"),
                                   2 * static_cast<int64_t>(r) + (compute ? 0 : 1)));
      }
    }
    for (auto& [key, runner] : runners_) runner->prepare_timeline();
  }
  results_.assign(spec_.ranks.size(), ChakraRankResult{});
  for (uint32_t g = 0; g < spec_.groups.size(); ++g) {
    if (!gated_[g]) continue;
    for (const uint32_t c : group_order_[g]) {
      const ChakraCollective& coll = spec_.collectives[c];
      runner_of(c).run_gated(
          coll.bytes, [this, c] { collective_done(c); }, ctx_.sim.now(),
          [this, c](uint32_t pos) {
            const ChakraCollective& x = spec_.collectives[c];
            const auto [rank, node] = x.members[pos];
            ranks_[rank].streams[x.group].busy = false;
            node_done(rank, node);
            try_stream(rank, x.group);
          });
    }
  }
  uint32_t empty = 0;
  for (uint32_t r = 0; r < spec_.ranks.size(); ++r) {
    RankState& st = ranks_[r];
    const std::vector<ChakraNode>& nodes = spec_.ranks[r];
    st.remaining = static_cast<uint32_t>(nodes.size());
    st.waiting.resize(nodes.size());
    st.begun.assign(nodes.size(), 0);
    st.streams.assign(spec_.groups.size(), RankStream{});
    for (uint32_t n = 0; n < nodes.size(); ++n) st.waiting[n] = nodes[n].parents;
    results_[r].name = spec_.rank_names[r];
    results_[r].nodes = st.remaining;
    if (nodes.empty()) ++empty;
  }
  for (uint32_t r = 0; r < spec_.ranks.size(); ++r) {
    if (!over_processes_) {
      start_rank(r);
      continue;
    }
    // Over processes a rank's first nodes may post flows, which only its own partition's
    // events may do there (what a boundary event adds, every process would): they start with
    // an event of its agent, first among the events of this time in its partition, not
    // counted (one process runs them here). Another process's rank starts there.
    Agent& agent = *agents_[r];
    if (!ctx_.sim.is_local(agent.partition())) continue;
    ctx_.sim.at(sim::Scheduler::take_first_place_for(ctx_.sim.now(), agent), &agent, kRankStarts);
  }
  if (over_processes_) {
    ranks_told_done_ = empty;  // every process counts them alike
    if (empty == spec_.ranks.size()) finish();
    return;
  }
  if (empty > 0 &&
      ranks_done_.fetch_add(empty, std::memory_order_acq_rel) + empty == spec_.ranks.size()) {
    done_.store(true, std::memory_order_release);
    if (on_done_) on_done_();
  }
}

void ChakraRunner::start_rank(uint32_t rank) {
  if (over_processes_ && ctx_.sim.in_window()) ctx_.sim.uncount_running_event();
  for (uint32_t n = 0; n < spec_.ranks[rank].size(); ++n) {
    if (ranks_[rank].waiting[n] == 0) begin(rank, n);
  }
}

// Where the rank is.
void ChakraRunner::begin(uint32_t rank, uint32_t node) {
  const ChakraNode& n = spec_.ranks[rank][node];
  if (!started_.empty()) started_[rank][node] = ctx_.sim.now();
  RankState& st = ranks_[rank];
  st.begun[node] = 1;
  switch (n.kind) {
    case ChakraNode::Kind::Compute: {
      if (st.computing++ == 0) st.compute_since = ctx_.sim.now();
      ctx_.sim.after(n.duration, agents_[rank].get(), kNodeDone, node);
      return;
    }
    case ChakraNode::Kind::Other:
      // No time; done through the queue so that a long chain does not recurse.
      ctx_.sim.after(sim::Time(0), agents_[rank].get(), kNodeDone, node);
      return;
    case ChakraNode::Kind::Collective: {
      ++results_[rank].collectives;
      const uint32_t group = spec_.collectives[n.match].group;
      if (gated_[group]) {
        try_stream(rank, group);
      } else {
        ++joined_[n.match];
        try_group(group);
      }
      return;
    }
    case ChakraNode::Kind::Send:
      ++results_[rank].sends;
      transfers_[n.match].send_posted = true;
      try_transfer(n.match);
      return;
    case ChakraNode::Kind::Recv: {
      ++results_[rank].recvs;
      // The receiver tells the sender where to write (start_clear_to_send).
      const ChakraTransfer& x = spec_.transfers[n.match];
      const uint32_t flow =
          start_clear_to_send(transport_, spec_.endpoints, x.dst_rank, x.src_rank, ctx_.sim.now(),
                              connection_sport(x.dst_rank, x.src_rank) ^ 0x1a5a);
      transport_.set_owner(flow, this, 2 * static_cast<int64_t>(n.match) + 2);
      return;
    }
  }
}

// Where the rank is.
void ChakraRunner::node_done(uint32_t rank, uint32_t node) {
  const ChakraNode& n = spec_.ranks[rank][node];
  RankState& st = ranks_[rank];
  const sim::Time now = ctx_.sim.now();
  if (n.kind == ChakraNode::Kind::Compute && --st.computing == 0) {
    results_[rank].compute += now - st.compute_since;
  }
  if (!started_.empty()) timeline_span(rank, n, started_[rank][node]);
  nodes_done_.fetch_add(1, std::memory_order_relaxed);
  for (uint32_t child : n.children) {
    if (--st.waiting[child] == 0) begin(rank, child);
  }
  if (--st.remaining > 0) return;
  ChakraRankResult& res = results_[rank];
  res.iteration = now - spec_.start;
  res.exposed = res.iteration - res.compute;
  if (over_processes_) {
    ended_told_[sim::Simulator::thread_partition()].push_back(
        {rank, res.iteration, res.compute, res.exposed, res.collectives, res.sends, res.recvs});
    if (on_rank_done_) on_rank_done_();
    return;
  }
  if (ranks_done_.fetch_add(1, std::memory_order_acq_rel) + 1 < spec_.ranks.size()) return;
  finish();
  if (on_done_) on_done_();
}

void ChakraRunner::finish() {
  // Every rank is done, so is every collective (a rank's part ends after its row's end is
  // counted): their rows in the order they ended.
  std::vector<uint32_t> order(spec_.collectives.size());
  for (uint32_t c = 0; c < order.size(); ++c) order[c] = c;
  std::stable_sort(order.begin(), order.end(),
                   [this](uint32_t a, uint32_t b) { return row_of_[a].end < row_of_[b].end; });
  for (const uint32_t c : order) rows_.push_back(row_of_[c]);
  done_.store(true, std::memory_order_release);
}

void ChakraRunner::try_stream(uint32_t rank, uint32_t group) {
  RankStream& s = ranks_[rank].streams[group];
  if (s.busy || s.next >= group_order_[group].size()) return;
  const uint32_t c = group_order_[group][s.next];
  const uint32_t pos = group_rank_[group][rank];
  if (!ranks_[rank].begun[spec_.collectives[c].members[pos].second]) return;
  s.busy = true;
  ++s.next;
  runner_of(c).join(pos);
}

void ChakraRunner::collective_done(uint32_t collective) {
  row_of_[collective] = runner_of(collective).results().back();
  // Over processes a gated group's row ends in every process; an in-network group's where its
  // members are.
  const uint32_t group = spec_.collectives[collective].group;
  if (over_processes_ && !gated_[group]) {
    rows_told_[sim::Simulator::thread_partition()].push_back(collective);
  }
}

// A group that reduces in the network (a run of one list: split_blockers.cpp).
void ChakraRunner::try_group(uint32_t group) {
  GroupState& g = groups_[group];
  if (g.busy || g.next >= group_order_[group].size()) return;
  const uint32_t c = group_order_[group][g.next];
  const ChakraCollective& coll = spec_.collectives[c];
  if (joined_[c] < coll.members.size()) return;
  ++g.next;
  g.busy = true;
  runner_of(c).run_one(coll.bytes, [this, c, group] {
    collective_done(c);
    groups_[group].busy = false;
    for (const auto& [rank, node] : spec_.collectives[c].members) node_done(rank, node);
    try_group(group);
  });
}

uint16_t ChakraRunner::connection_sport(uint32_t src, uint32_t dst) const {
  return connection_source_port(seed_ ^ (static_cast<uint64_t>(index_) << 48) ^
                                (static_cast<uint64_t>(src) << 24) ^ dst ^ 0xc4a4ull << 52);
}

// Where the sender is.
void ChakraRunner::try_transfer(uint32_t transfer) {
  const TransferState& t = transfers_[transfer];
  if (!t.send_posted || !t.clear_to_send) return;
  const ChakraTransfer& x = spec_.transfers[transfer];
  const uint32_t flow =
      start_p2p_flow(transport_, spec_.endpoints, x.src_rank, x.dst_rank, x.bytes, ctx_.sim.now(),
                     "chakra", connection_sport(x.src_rank, x.dst_rank));
  transport_.set_owner(flow, this, 2 * static_cast<int64_t>(transfer) + 1);
}

// A transfer's flows carry owner tag 2 transfer + 1 (its data) or + 2 (its clear-to-send).
void ChakraRunner::on_flow_delivered(uint32_t flow) {
  const FlowState& f = transport_.flow(flow);
  if (f.owner != this || f.owner_tag <= 0) return;
  const auto transfer = static_cast<uint32_t>((f.owner_tag - 1) / 2);
  if ((f.owner_tag - 1) % 2 == 1) {  // the clear-to-send, where the sender is
    transfers_[transfer].clear_to_send = true;
    try_transfer(transfer);
    return;
  }
  const ChakraTransfer& x = spec_.transfers[transfer];
  node_done(x.dst_rank, x.recv_node);  // where the receiver is
}

void ChakraRunner::on_flow_complete(uint32_t flow) {
  const FlowState& f = transport_.flow(flow);
  if (f.owner != this || f.owner_tag <= 0 || (f.owner_tag - 1) % 2 == 1) return;
  const ChakraTransfer& x = spec_.transfers[static_cast<uint32_t>((f.owner_tag - 1) / 2)];
  node_done(x.src_rank, x.send_node);  // where the sender is
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
  t->span(tracks_[2 * static_cast<size_t>(rank) + (compute ? 0 : 1)], t->name(n.name), start, now);
}

}  // namespace models
