// Schedule calls in a run over several processes (collective_runner.hpp, pack_share). Every
// process makes the same rows and calls (they are asked for at boundary events) but runs only
// its own ranks: a rank's messages, its obligations and its cursor are written where it is,
// as in a split run on threads. What a split run on threads counts in shared memory — the
// ranks yet to end a call and a row, the row's earliest start and latest end, each rank's data
// sent, what each partition added to the row — the processes tell each other between windows,
// and each ends a row when it learns that every rank has ended it: at the boundary after the
// window of its last end, in every process at once. What follows a row's end (the next size,
// size_gap later) is a boundary event at least a window after that end, as on threads.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "models/collectives/collective_runner.hpp"
#include "sim/atomic_max.hpp"
#include "sim/partition_lists.hpp"

namespace models {

namespace {
// What a process's partitions added to row `row` (its index in the runner's rows).
struct RowTally {
  uint32_t row = 0;
  CallTally tally;
};
}  // namespace

void CollectiveRunner::pack_share(sim::Bytes& out) {
  uint32_t count = 0;
  for (uint32_t p = 0; p < rank_ends_.size(); ++p) {
    count += static_cast<uint32_t>(rank_ends_[p].size());
  }
  sim::put_bytes(out, count);
  for (uint32_t p = 0; p < rank_ends_.size(); ++p) {
    for (const RankEnd& e : rank_ends_[p]) sim::put_bytes(out, e);
    rank_ends_[p].clear();
  }
  // The rows this process's ranks have all ended: what its partitions added to them is final.
  std::vector<RowTally> tallies;
  for (size_t i = rows_emitted_; i < rows_.size(); ++i) {
    CallRow& row = *rows_[i];
    if (row.tally_shared || row.local_left.load(std::memory_order_acquire) != 0) continue;
    row.tally_shared = true;
    CallTally sum;
    for (uint32_t p = 0; p < row.tally.size(); ++p) sum.add_counts(row.tally[p]);
    tallies.push_back({static_cast<uint32_t>(i), sum});
  }
  sim::put_bytes(out, static_cast<uint32_t>(tallies.size()));
  for (const auto& t : tallies) sim::put_bytes(out, t);
  // An in-network call's messages (in_network_processes.cpp).
  sim::pack_partition_lists(ctx_.sim, in_network_notes_, out);
}

void CollectiveRunner::take_share(sim::ByteReader& in, uint32_t rank) {
  const bool own = rank == ctx_.sim.ranks()->rank();
  const auto ends = in.get<uint32_t>();
  for (uint32_t i = 0; i < ends; ++i) {
    const auto e = in.get<RankEnd>();
    if (e.call >= calls_.size() || e.rank >= agents_.size()) {
      throw std::runtime_error("rank " + std::to_string(rank) + " told of call " +
                               std::to_string(e.call) + " of collective " + std::to_string(index_) +
                               " that this process has not made");
    }
    ScheduleCall& c = call(e.call);
    c.ranks_left.fetch_sub(1, std::memory_order_acq_rel);
    if (!own) {
      // Where the rank is now, as end_rank left it there: its next call started if asked for
      // by then (calls are asked for at boundary events only, none since the end), or waiting
      // for its program to join a gated one.
      RankCursor& cursor = cursors_[e.rank];
      cursor.next_call = e.call + 1;
      cursor.busy = cursor.next_call < calls_.size();
      cursor.gated = cursor.busy && call(cursor.next_call).row->gated &&
                     cursor.next_call == call(cursor.next_call).row->first_call;
    }
    if (!c.last_of_row) continue;
    CallRow& row = *c.row;
    sim::raise_to(row.end_ps, e.end_ps);
    sim::lower_to(row.start_ps, e.start_ps);
    if (!own) row.result.rank_data_sent[e.rank] = e.data_sent;
    if (row.ranks_left.fetch_sub(1, std::memory_order_acq_rel) == 1) rows_ended_.push_back(&row);
  }
  const auto tallies = in.get<uint32_t>();
  for (uint32_t i = 0; i < tallies; ++i) {
    const auto [index, t] = in.get<RowTally>();
    if (index >= rows_.size()) {
      throw std::runtime_error("rank " + std::to_string(rank) + " told of row " +
                               std::to_string(index) + " of collective " + std::to_string(index_) +
                               " that this process has not made");
    }
    if (own) continue;  // in the row's tally already
    rows_[index]->elsewhere.add_counts(t);
  }
  take_in_network_notes(in, own);
}

// Once every process's ends and tallies are in (a process tells its tally in the same pack as
// its last end of the row, or before), the rows every rank has ended end, in order.
void CollectiveRunner::shares_taken() {
  std::vector<CallRow*> ended;
  ended.swap(rows_ended_);
  for (CallRow* row : ended) finish_row(*row);
  free_ended_calls();
  // An in-network call with messages ends once every group is done (SharpAllReduce's
  // shares_taken, before this) and every process's messages are complete.
  if (in_network_running_ && in_network_groups_done_ >= in_network_groups_ &&
      in_network_open_ == 0) {
    finish_in_network();
  }
}

bool CollectiveRunner::share_pending() const {
  if (sim::partition_lists_pending(ctx_.sim, in_network_notes_)) return true;
  for (uint32_t p = 0; p < rank_ends_.size(); ++p) {
    if (!rank_ends_[p].empty()) return true;
  }
  return false;
}

}  // namespace models
