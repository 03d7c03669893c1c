// A training step with tensor, pipeline and data parallelism, as Megatron-LM runs it
// (docs/references.md "Parallel training"). Each replica of a pipeline stage (its `tp` GPUs,
// one tensor-parallel group, in lockstep since every layer ends in their all-reduce) runs
// Megatron's non-interleaved 1F1B schedule (schedules.py,
// forward_backward_pipelining_without_interleaving): warm-up forwards, then one forward and
// one backward in turn, then the cool-down backwards. A micro-batch's forward through a layer
// is two halves (attention, MLP) each ending in an all-reduce of the activations over the
// tensor group; its backward the same in reverse (Megatron-LM's f and g operators: two
// all-reduces forward, two backward per layer). Between stages each GPU sends its micro-batch's
// activations (forward) or their gradients (backward) to the same tensor rank of the
// neighbouring stage: a point-to-point call (p2p_communication.py: batched isend/irecv,
// waited on) that moves the data once the sender has posted it and the receiver's
// clear-to-send has reached the sender (start_clear_to_send: NCCL's receiver writes the sender
// where to put the data) and ends when its sends are acknowledged and its receives have
// arrived. Once a stage's replicas have all run their last backward, its data-parallel
// groups all-reduce the gradients bucket after bucket (Megatron's DDP without
// --overlap-grad-reduce), and each GPU's optimizer runs when its group is done. The step ends
// at the last optimizer.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "models/collectives/collective_runner.hpp"
#include "models/training/pipeline_schedule.hpp"
#include "models/training/training_result.hpp"
#include "models/training/training_spec.hpp"

namespace models {

class ParallelTraining final : public CompletionListener, public sim::EventHandler {
 public:
  ParallelTraining(Context& ctx, Transport& transport, const TrainingSpec& spec, uint32_t index,
                   uint64_t seed);
  void start();
  bool done() const { return done_; }
  int steps_done() const { return steps_done_; }
  // Per step: the step row (with its groups) ready to join the training's results.
  void set_on_step(std::function<void(TrainingStepResult)> fn) { on_step_ = std::move(fn); }
  void set_on_done(std::function<void()> fn) { on_done_ = std::move(fn); }
  void set_sharp(SharpAllReduce* sharp);
  // The data-parallel groups' bucket all-reduces, one row each, in the order they ended.
  const std::vector<CollectiveResult>& data_all_reduces() const { return data_rows_; }

  void on_flow_complete(uint32_t flow) override;
  void on_flow_delivered(uint32_t flow) override;
  void on_event(uint32_t kind, uint64_t arg) override;

 private:
  enum Kind : uint32_t { kStepBegins = 0, kComputeDone = 1, kOptimizerDone = 2 };
  enum class Direction : uint8_t { Forward, Backward };  // activations down, gradients up
  using Op = PipelineOp;
  // One pipeline message (tp flows, one per tensor rank) between two replicas.
  struct Transfer {
    bool send_posted = false, recv_posted = false;
    int undelivered = 0, incomplete = 0;
    int sender = 0, receiver = 0;  // replicas
    // [tensor rank] its receiver's clear-to-send has reached the sender; its data has started.
    std::vector<bool> clear, started;
  };
  struct Replica {
    size_t pc = 0;       // next op of its stage's program
    int open_items = 0;  // the current point-to-point call's sends and receives not yet done
    sim::Time op_start;
    sim::Time last_transfer_start;  // of the current call's transfers
    sim::Time tensor_time, p2p_time, p2p_wait, backward_end;
    int64_t messages_sent = 0;
  };
  struct DataGroup {
    std::unique_ptr<CollectiveRunner> runner;
    size_t next_bucket = 0;
    sim::Time start, end;
  };

  int stage_of(int replica) const { return replica / spec_.parallel.dp; }
  int rank_of(int stage, int d, int t) const {
    return t + spec_.parallel.tp * (d + spec_.parallel.dp * stage);
  }
  void begin_step();
  void run(int replica);  // executes ops from its pc until one waits
  bool post_call(int replica, const Op& op);
  void post_side(int replica, Direction dir, int micro, bool send);
  // Tensor rank `tr`'s flow of a transfer whose send is posted and whose receiver has cleared
  // it (start_clear_to_send).
  void start_flow(uint64_t key, Transfer& t, int tr);
  // The transport's news of one flow of a pipeline transfer (delivered, or completed).
  void flow_done(uint32_t flow, bool delivered);
  void item_done(int replica);
  void replica_finished(int replica);
  void next_bucket(int group);
  void step_done();
  TrainingStepResult step_result() const;  // parallel_step_results.cpp
  uint64_t transfer_key(int receiver, Direction dir, int micro) const;
  uint16_t connection_sport(int src_rank, int dst_rank) const;
  void timeline_span(int replica, bool compute, const std::string& name, sim::Time start);

  Context& ctx_;
  Transport& transport_;
  TrainingSpec spec_;
  uint32_t index_;
  uint64_t seed_;
  int replicas_ = 0;
  std::vector<std::vector<Op>> programs_;  // [stage]
  std::vector<Replica> replica_;
  std::vector<std::unique_ptr<CollectiveRunner>> tensor_;  // [replica]
  std::vector<DataGroup> data_;                            // [stage * tp + t]
  std::vector<int64_t> stage_gradient_bytes_;              // per GPU
  std::vector<std::vector<int64_t>> stage_buckets_;        // [stage] bucket sizes
  std::unordered_map<uint64_t, Transfer> transfers_;
  // [transport flow id] the transfer key + 1 of one of its flows, 0 = not ours
  std::vector<uint64_t> transfer_of_flow_;
  // [transport flow id] of a clear-to-send: its transfer key + 1 (0 = none) and tensor rank
  std::vector<std::pair<uint64_t, int>> clear_of_flow_;
  std::vector<int> stage_replicas_done_;
  int groups_done_ = 0;
  int step_ = 0;
  int steps_done_ = 0;
  sim::Time step_start_;
  std::vector<CollectiveResult> data_rows_;
  std::string timeline_process_;
  bool done_ = false;
  std::function<void(TrainingStepResult)> on_step_;
  std::function<void()> on_done_;
};

}  // namespace models
