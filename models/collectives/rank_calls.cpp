// Schedule calls, rank by rank (schedule_call.hpp). A row is asked for between windows (a
// sweep's size, a training bucket) or, in a run of one list, by the end of another call; its
// calls' states are made then, each with its own copy of the schedule (its waiting counts).
// Each rank starts a call when it has ended the one before and the call is asked for, and
// launches it after the launch latency: where the rank is, or, for the ranks idle when the
// call was asked for, all together (inline, or at one boundary event as before). A rank's part
// ends when its last obligation is settled; the row ends when every rank has ended its last
// call (whichever partition sees that last; rows end in order, under a lock).
#include <algorithm>
#include <limits>

#include "models/collectives/collective_runner.hpp"
#include "models/collectives/collective_timeline.hpp"
#include "sim/atomic_max.hpp"

namespace models {

void CollectiveRunner::release_row(CollectiveResult header, int64_t sweep_index,
                                   std::function<void()> done, sim::Time start, bool boundary,
                                   bool gated, std::function<void(uint32_t)> rank_done) {
  // Between windows nothing runs (nor, for a runner of one partition, anywhere else): the
  // calls every rank has ended may go.
  if (boundary || local_) free_ended_calls();
  const int ranks = spec_.ranks();
  auto made = std::make_unique<CallRow>();
  CallRow& row = *made;
  row.settings = call_settings(header);
  row.result = std::move(header);
  row.sweep_index = sweep_index;
  row.done = std::move(done);
  row.gated = gated;
  row.rank_done = std::move(rank_done);
  row.calls = static_cast<uint32_t>(std::max(1, spec_.iterations));
  row.first_call = static_cast<uint32_t>(calls_.size());
  row.ranks_left.store(ranks, std::memory_order_relaxed);
  row.start_ps.store(std::numeric_limits<int64_t>::max(), std::memory_order_relaxed);
  row.end_ps.store(start.ps, std::memory_order_relaxed);
  row.tally.resize(ctx_.sim.partitions());
  int local = 0;
  for (uint32_t r = 0; r < static_cast<uint32_t>(ranks); ++r) local += runs_here(r) ? 1 : 0;
  row.local_left.store(local, std::memory_order_relaxed);
  rows_open_.fetch_add(1, std::memory_order_relaxed);
  done_ = false;

  ScheduleRequest req;
  req.op = spec_.op;
  req.algorithm = row.result.algorithm;
  req.protocol = row.result.protocol;
  req.ranks = ranks;
  req.size_bytes = row.result.size_bytes;
  req.type_bytes = spec_.type_bytes;
  req.channels = std::max(1, spec_.channels);
  req.chunk_bytes = row.result.chunk_bytes;
  req.slots = spec_.slots;
  req.root = spec_.root;
  req.rank_server = spec_.rank_server;
  if (row.settings.layouts != nullptr) {
    for (const ChannelLayout& l : *row.settings.layouts) req.channel_orders.push_back(l.ring);
  }
  const CollectiveSchedule schedule = build_schedule(req);

  for (uint32_t i = 0; i < row.calls; ++i) {
    auto c = std::make_unique<ScheduleCall>();
    c->row = &row;
    c->number = static_cast<uint32_t>(calls_.size());
    c->last_of_row = i + 1 == row.calls;
    c->schedule = schedule;
    c->ranks.resize(static_cast<size_t>(ranks));
    c->ranks_left.store(ranks, std::memory_order_relaxed);
    if (ctx_.timeline != nullptr) c->posted_at.assign(schedule.messages.size(), sim::Time{});
    for (uint32_t m = 0; m < schedule.messages.size(); ++m) {
      const CollectiveMessage& msg = schedule.messages[m];
      if (msg.src_rank != msg.dst_rank) {
        // Joins are no messages. Every other message reaches its receiver before the row ends:
        // its bytes are counted here, not as each delivery runs.
        ++row.result.messages;
        row.result.rank_data_received[msg.dst_rank] += msg.data_bytes;
        ++c->ranks[msg.src_rank].obligations;
        ++c->ranks[msg.dst_rank].obligations;
      }
      if (msg.waiting == 0) c->ranks[msg.src_rank].held.push_back(m);
    }
    calls_.push_back(std::move(c));
  }
  rows_.push_back(std::move(made));
  if (ctx_.timeline != nullptr) begin_timeline();

  // The ranks idle now start it at once; the others when they end their last call.
  const uint32_t first = row.first_call;
  std::vector<uint32_t> idle;
  bool idle_elsewhere = false;  // over processes: a rank another process starts it on
  for (uint32_t r = 0; r < static_cast<uint32_t>(ranks); ++r) {
    RankCursor& cursor = cursors_[r];  // another process's rank's: as told (take_share)
    if (cursor.busy) continue;
    if (gated) {  // it starts the call when its program joins it
      cursor.busy = cursor.gated = true;
      cursor.next_call = first;
      continue;
    }
    if (!runs_here(r)) {
      cursor.busy = true;
      cursor.next_call = first;
      idle_elsewhere = true;
      continue;
    }
    start_rank(r, first, start);
    idle.push_back(r);
  }
  // (Over processes, a process whose own ranks are all busy still asks for the launch: its
  // boundary events must be every process's.)
  if (idle.empty() && !idle_elsewhere) return;
  const sim::Time launch = row.settings.launch;
  if (launch.ps == 0) {
    launch_ranks_here(first, idle);
    return;
  }
  for (const uint32_t r : idle) call(first).ranks[r].launch_at_boundary = true;
  if (boundary) {
    ctx_.sim.after_boundary(launch, this, kLaunchCall, first);
  } else {
    // Asked for by the end of a call that any partition may have found: stamped by this
    // runner, at least a window ahead (split_blockers.cpp) unless its ranks are all in its
    // own partition (at_stamped).
    at_stamped(start + launch, kLaunchCall, first);
  }
}

void CollectiveRunner::launch_ranks_here(uint32_t number, const std::vector<uint32_t>& ranks) {
  if (!over_processes_) {
    launch_ranks(number, ranks);
    return;
  }
  // Over processes each rank launches where it is, first among the events of its time there:
  // what a boundary event pushes for another process's handlers is left out (that process
  // pushes it too), and only this process launches these ranks.
  const sim::Time now = ctx_.sim.now();
  for (const uint32_t r : ranks) {
    ctx_.sim.at(sim::Scheduler::take_first_place_for(now, agent(r)), &agent(r), kRankLaunchAlone,
                number);
  }
}

void CollectiveRunner::start_rank(uint32_t rank, uint32_t number, sim::Time at) {
  ScheduleCall& c = call(number);
  RankCursor& cursor = cursors_[rank];
  cursor.busy = true;
  cursor.next_call = number;
  c.ranks[rank].started = at;
  sim::lower_to(c.row->start_ps, at.ps);
  if (number == c.row->first_call) {
    // A new size's kernel: its protocol's pacing starts afresh.
    const auto channels = static_cast<size_t>(std::max(1, spec_.channels));
    std::fill_n(channel_free_.begin() + static_cast<std::ptrdiff_t>(rank * channels), channels,
                sim::Time{});
  }
}

void CollectiveRunner::launch_ranks(uint32_t number, const std::vector<uint32_t>& ranks) {
  ScheduleCall& c = call(number);
  std::vector<uint32_t> held;
  for (const uint32_t r : ranks) {
    RankCall& rc = c.ranks[r];
    rc.launched = true;
    rc.launch_at_boundary = false;
    held.insert(held.end(), rc.held.begin(), rc.held.end());
    std::vector<uint32_t>().swap(rc.held);
  }
  // In the schedule's order, messages first: joins ready at the start complete after the first
  // posts (none completes synchronously).
  if (ranks.size() > 1) std::sort(held.begin(), held.end());
  auto& released = released_.local();
  for (const uint32_t m : held) {
    const CollectiveMessage& msg = c.schedule.messages[m];
    if (msg.src_rank != msg.dst_rank) ready(c, m);
  }
  for (const uint32_t m : held) {
    const CollectiveMessage& msg = c.schedule.messages[m];
    if (msg.src_rank == msg.dst_rank) released.push_back({&c, m, Release::All});
  }
  drain();
  for (const uint32_t r : ranks) {
    if (c.ranks[r].obligations == 0) end_rank(c, r);
  }
}

void CollectiveRunner::settle(ScheduleCall& c, uint32_t rank) {
  RankCall& rc = c.ranks[rank];
  if (--rc.obligations == 0 && rc.launched) end_rank(c, rank);
}

void CollectiveRunner::end_rank(ScheduleCall& c, uint32_t rank) {
  const sim::Time now = ctx_.sim.now();
  CallRow& row = *c.row;
  if (timeline_) timeline_->rank_call(rank, row.result, c.ranks[rank].started, now);
  sim::raise_to(row.end_ps, now.ps);
  RankCursor& cursor = cursors_[rank];
  cursor.busy = false;
  cursor.next_call = c.number + 1;
  const bool last_of_row = c.last_of_row;
  if (over_processes_) {
    // Counted by every process once told (take_share).
    rank_ends_.local().push_back({c.number, rank, now.ps,
                                  row.start_ps.load(std::memory_order_relaxed),
                                  last_of_row ? row.result.rank_data_sent[rank] : 0});
    if (last_of_row) row.local_left.fetch_sub(1, std::memory_order_acq_rel);
  } else {
    c.ranks_left.fetch_sub(1, std::memory_order_acq_rel);
    if (last_of_row && row.ranks_left.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      finish_row(row);
    }
  }
  // Its next call, if asked for already (and not started by what the row's end asked for); a
  // gated one when its program joins it.
  const uint32_t next = cursor.next_call;
  if (!cursor.busy && next < calls_.size()) {
    const CallRow& following = *call(next).row;
    if (following.gated && next == following.first_call) {
      cursor.busy = cursor.gated = true;
    } else {
      start_and_launch(rank, next, now);
    }
  }
  // Its part of the row is over, here: the rank's program goes on (run_gated).
  if (last_of_row && row.rank_done) row.rank_done(rank);
}

void CollectiveRunner::start_and_launch(uint32_t rank, uint32_t number, sim::Time at) {
  start_rank(rank, number, at);
  const sim::Time launch = call(number).row->settings.launch;
  if (launch.ps == 0) {
    launch_ranks(number, {rank});
  } else {
    ctx_.sim.after(launch, &agent(rank), kRankLaunch, number);
  }
}

void CollectiveRunner::finish_row(CallRow& row) {
  const std::lock_guard<std::mutex> hold(rows_lock_);
  row.finished = true;
  while (rows_emitted_ < rows_.size() && rows_[rows_emitted_]->finished) {
    emit_row(*rows_[rows_emitted_++]);
  }
}

void CollectiveRunner::emit_row(CallRow& row) {
  CollectiveResult& r = row.result;
  CallTally sum = row.elsewhere;  // other processes' partitions' (rank_calls_processes.cpp)
  for (uint32_t p = 0; p < row.tally.size(); ++p) sum.add_counts(row.tally[p]);
  r.nvlink_bytes += sum.nvlink_bytes;
  r.network_bytes += sum.network_bytes;
  r.wire_bytes += sum.wire_bytes;
  r.messages += sum.messages;
  r.start = sim::Time(row.start_ps.load(std::memory_order_relaxed));
  r.end = sim::Time(row.end_ps.load(std::memory_order_relaxed));
  const auto calls = static_cast<int64_t>(row.calls);
  r.time = sim::Time((r.end - r.start).ps / calls);
  for (auto& b : r.rank_data_sent) b /= calls;
  for (auto& b : r.rank_data_received) b /= calls;
  const sim::Time end = r.end;
  results_.push_back(r);
  const bool last = rows_open_.fetch_sub(1, std::memory_order_acq_rel) == 1;
  if (row.sweep_index >= 0) {
    after_row(end, on_done_);
    return;
  }
  if (last) done_ = true;
  if (row.done) {
    const std::function<void()> fn = row.done;
    fn();
  }
}

void CollectiveRunner::free_ended_calls() {
  while (calls_freed_ < calls_.size() &&
         calls_[calls_freed_]->ranks_left.load(std::memory_order_acquire) == 0) {
    ScheduleCall& c = *calls_[calls_freed_++];
    std::vector<CollectiveMessage>().swap(c.schedule.messages);
    std::vector<uint32_t>().swap(c.schedule.successors);
    std::vector<RankCall>().swap(c.ranks);
    std::vector<sim::Time>().swap(c.posted_at);
  }
}

}  // namespace models
