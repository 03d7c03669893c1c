// A parallel training step over several processes (parallel_step.hpp; ARCHITECTURE.md, "Runs
// over processes"). Each process runs the replicas of its own partitions: their compute events,
// their sides of the pipeline transfers (the flows told to the other processes by the
// transport, this training their owner by its registered number), and their tensor groups,
// whose calls only the replica's own events ask for (CollectiveRunner::run_in_own_partition).
// The data groups' bucket all-reduces are asked for at the step's start, a boundary event
// every process runs, and their ranks join where they are, as any collective's calls over
// processes; the row ends everywhere at once, and so does the group's optimizer (a stage
// without such buckets — dp 1, no gradients — ends its groups once every process has told of
// its replicas' ends, at the last of them). The step's row
// reads every replica's figures: each process tells the others those of its replicas as their
// programs end, which is before their data groups' last bucket can end, a boundary event and an
// optimizer step (at least 1 us) before the step's end.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "models/training/parallel_step.hpp"
#include "sim/partition_lists.hpp"

namespace models {

void ParallelTraining::share_over_processes(sim::Simulator& sim) {
  for (size_t r = 0; r < tensor_.size(); ++r) {
    if (!tensor_[r]->run_in_own_partition()) {
      throw std::logic_error("tensor group of replica " + std::to_string(r) +
                             " spans partitions: it cannot run over processes");
    }
  }
  for (DataGroup& d : data_) {
    if (d.runner) sim.add_rank_share(*d.runner);
  }
  finished_told_.resize(sim.partitions());
  sim.add_rank_share(*this);
}

void ParallelTraining::pack_share(sim::Bytes& out) {
  sim::pack_partition_lists(ctx_.sim, finished_told_, out);
}

void ParallelTraining::take_share(sim::ByteReader& in, uint32_t rank) {
  const bool own = rank == ctx_.sim.ranks()->rank();
  const auto count = in.get<uint64_t>();
  for (uint64_t i = 0; i < count; ++i) {
    const auto f = in.get<ReplicaFigures>();
    if (f.replica < 0 || f.replica >= replicas_) {
      throw std::runtime_error("rank " + std::to_string(rank) + " told of training replica " +
                               std::to_string(f.replica) + " of " + std::to_string(replicas_));
    }
    // A stage without gated buckets: its groups are done with its last replica.
    const int stage = stage_of(static_cast<int>(f.replica));
    if (!data_gated_ || stage_buckets_[static_cast<size_t>(stage)].empty()) {
      sim::Time& end = stage_told_end_[static_cast<size_t>(stage)];
      end = std::max(end, f.backward_end);
      if (--stage_told_left_[static_cast<size_t>(stage)] == 0) stages_told_.push_back(stage);
    }
    if (own) continue;
    Replica& R = replica_[static_cast<size_t>(f.replica)];
    R.tensor_time = f.tensor_time;
    R.p2p_time = f.p2p_time;
    R.p2p_wait = f.p2p_wait;
    R.backward_end = f.backward_end;
    R.messages_sent = f.messages_sent;
  }
}

// Every process at once: a stage whose replicas have all been told of ends its groups at its
// last replica's end (as that replica's event does in one process: the optimizer that follows
// is a boundary event at least 1 us later, past this window).
void ParallelTraining::shares_taken() {
  std::vector<int> stages;
  stages.swap(stages_told_);
  for (const int stage : stages) {
    const sim::Time end = stage_told_end_[static_cast<size_t>(stage)];
    for (int t = 0; t < spec_.parallel.tp; ++t) group_done(stage * spec_.parallel.tp + t, end);
  }
}

bool ParallelTraining::share_pending() const {
  return sim::partition_lists_pending(ctx_.sim, finished_told_);
}

}  // namespace models
