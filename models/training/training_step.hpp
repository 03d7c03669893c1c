// A training step (tensor/pipeline parallelism: parallel_step.hpp, which this runner hands the
// step to). A data-parallel training step (docs/references.md: MFU): forward over the layers,
// backward in reverse, each layer's gradients joining the current bucket; a full bucket (or the
// last layer's) is all-reduced as soon as it is ready, one all-reduce at a time in bucket order
// (one communication stream, as PyTorch DDP with NCCL); the optimizer runs once backward is
// done and every bucket is reduced. With `overlap` off, all-reduces wait for the end of
// backward (communication fully exposed). Compute is the same on every rank (synchronous data
// parallelism), so it is one timeline of compute phases. The stream is each GPU's: a rank
// starts a bucket's all-reduce once the bucket is ready and its own part of the one before
// has ended (CollectiveRunner::run_one, rank by rank for schedule algorithms); an in-network
// algorithm's all-reduce starts at the end of the one before, for every rank.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "models/collectives/collective_runner.hpp"
#include "models/training/parallel_step.hpp"
#include "models/training/training_result.hpp"
#include "models/training/training_spec.hpp"

namespace models {

// The sizes of a data-parallel step's gradient buckets, in the order backward fills them
// (the last layer's first): each closes once it holds bucket_bytes, the last with the first
// layer's gradients.
std::vector<int64_t> gradient_buckets(const TrainingSpec& spec);

class TrainingRunner final : public sim::EventHandler {
 public:
  TrainingRunner(Context& ctx, Transport& transport, TrainingSpec spec, uint32_t index,
                 uint64_t seed);
  void start();
  bool done() const { return done_; }
  // The share of its steps done, 0..1.
  double work_done() const {
    return done_ ? 1.0 : static_cast<double>(results_.size()) / std::max(1, spec_.steps);
  }
  const std::vector<TrainingStepResult>& results() const { return results_; }
  // Every bucket's all-reduce, one row each (with parallel groups: the data-parallel groups').
  const std::vector<CollectiveResult>& all_reduces() const {
    return parallel_ ? parallel_->data_all_reduces() : comm_->results();
  }
  void set_on_done(std::function<void()> fn) { on_done_ = std::move(fn); }
  // A run over several processes (data parallel: its phases are boundary events, which every
  // process runs; its all-reduces' runner tells the others what its ranks did; with parallel
  // groups: parallel_step_processes.cpp).
  void share_over_processes(sim::Simulator& sim) {
    if (parallel_) {
      parallel_->share_over_processes(sim);
    } else if (comm_) {
      sim.add_rank_share(*comm_);
    }
  }
  void on_event(uint32_t kind, uint64_t arg) override;
  // Where an all-reduce of algorithm "sharp" runs (CollectiveRunner::set_sharp).
  void set_sharp(SharpAllReduce* sharp) {
    if (parallel_) {
      parallel_->set_sharp(sharp);
    } else {
      comm_->set_sharp(sharp);
    }
  }

 private:
  // Compute phases end at boundary events (Simulator::at_boundary_stamped): what follows
  // them (a bucket's all-reduce) starts on every rank. `after` runs phase `kind` ending
  // `d` after the runner's clock (at once when `d` is 0).
  enum Kind : uint32_t { kForwardDone = 0, kBackwardLayerDone = 1, kOptimizerDone = 2 };
  void after(sim::Time d, Kind kind, uint64_t arg = 0);
  void on_phase(uint32_t kind, uint64_t arg);  // a phase ends at clock_
  void begin_step();
  void bucket_ready(int64_t bytes);
  void next_all_reduce();
  void all_reduce_done();
  void maybe_optimize();
  // `run --timeline`: a compute phase or a bucket's all-reduce that has just ended.
  void timeline_span(bool compute, const std::string& name, sim::Time start, int64_t bytes = -1);

  Context& ctx_;
  TrainingSpec spec_;
  // The step's time: its events' time, or the end of the all-reduce just done (in a split
  // run, found by whichever partition's event saw its last completion, maybe earlier).
  sim::Time clock_;
  std::unique_ptr<CollectiveRunner> comm_;      // data parallel only
  std::unique_ptr<ParallelTraining> parallel_;  // tensor/pipeline/data parallel
  std::string timeline_process_;
  // Its two tracks, asked for together at its first span (a compute phase: a boundary event,
  // outside a split run's windows, where the bucket spans are recorded).
  uint32_t compute_track_ = 0, stream_track_ = 0;
  bool has_tracks_ = false;
  int step_ = 0;
  sim::Time step_start_, backward_end_, comm_end_;
  int layer_ = 0;  // next layer whose backward completes
  int64_t bucket_fill_ = 0;
  std::deque<int64_t> pending_;  // closed buckets waiting for the stream
  bool comm_busy_ = false;       // an in-network stream's all-reduce is under way
  // Every bucket's all-reduce runs rank by rank: asked for as soon as it is ready (the runner
  // queues it behind the ones before, per rank); how many are under way.
  bool rank_paced_ = false;
  int comm_open_ = 0;
  bool backward_done_ = false;
  int buckets_ = 0;
  sim::Time comm_total_;
  std::vector<TrainingStepResult> results_;
  bool done_ = false;
  std::function<void()> on_done_;
};

}  // namespace models
