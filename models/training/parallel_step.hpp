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
// arrived. Once a replica has run its last backward, each of its GPUs all-reduces the
// gradients over its data-parallel group bucket after bucket (Megatron's DDP without
// --overlap-grad-reduce issues them after backward): each GPU starts its part of a bucket's
// all-reduce when its own stream reaches it, as NCCL runs a collective kernel per GPU, and the
// all-reduce waits for the group's last GPU to join (CollectiveRunner::run_gated). Each
// group's optimizer runs when its last bucket is done. The step ends at the last optimizer.
// A replica's state is its GPU server's (its compute events are its Agent's, its side of each
// pipeline transfer its own), so a run split into partitions runs it (ARCHITECTURE.md).
// Over several processes (share_over_processes), each runs its own replicas, their tensor
// groups in their partitions alone; the data groups' calls run rank by rank as any collective's
// over processes; a replica's figures for the step's row (its tensor and pipeline times, its
// backward's end) are told to every process once its program is over, before any group's
// optimizer can end the step.
#pragma once

#include <atomic>
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
#include "sim/simulator.hpp"

namespace models {

// Per pipeline stage, the gradient buckets of one GPU (the stage's layers split evenly), in the
// order backward fills them (its last layer first).
std::vector<std::vector<int64_t>> stage_gradient_buckets(const TrainingSpec& spec);

class ParallelTraining final : public CompletionListener,
                               public sim::EventHandler,
                               public sim::RankShare {
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

  // A run over several processes: its data groups' runners and the replicas' figures are
  // swapped between windows (parallel_step_processes.cpp).
  void share_over_processes(sim::Simulator& sim);
  void pack_share(sim::Bytes& out) override;
  void take_share(sim::ByteReader& in, uint32_t rank) override;
  void shares_taken() override;
  bool share_pending() const override;

 private:
  // kProgramStarts: over processes, a replica's program at the step's start (begin_step).
  enum Kind : uint32_t {
    kStepBegins = 0,
    kComputeDone = 1,
    kOptimizerDone = 2,
    kProgramStarts = 3
  };
  enum class Direction : uint8_t { Forward, Backward };  // activations down, gradients up
  using Op = PipelineOp;
  // A replica's events (its compute phases), in the partition of its GPU server; or a data
  // group's optimizer, a boundary event stamped by the group's own handler (asked for by
  // whichever partition ends the group's last bucket).
  class Agent final : public sim::EventHandler {
   public:
    Agent(sim::Simulator& sim, ParallelTraining& training, int index, bool replica)
        : EventHandler(sim), training_(training), index_(index), replica_(replica) {}
    void on_event(uint32_t kind, uint64_t arg) override;

   private:
    ParallelTraining& training_;
    int index_;
    bool replica_;
  };
  // One pipeline message (tp flows, one per tensor rank) between two replicas, as its sender
  // sees it (each side's state is its own: the two may be in different partitions).
  struct SendSide {
    bool posted = false;
    int incomplete = 0;  // flows not yet acknowledged
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
    std::unordered_map<uint32_t, SendSide> sends;  // by transfer (transfer_index)
    std::unordered_map<uint32_t, int> receives;    // by transfer: its flows not yet delivered
  };
  // What a replica's program leaves for the step's row, told to every process over several.
  struct ReplicaFigures {
    int64_t replica = 0;  // (64 bits: no padding in what is packed)
    sim::Time tensor_time, p2p_time, p2p_wait, backward_end;
    int64_t messages_sent = 0;
  };
  struct DataGroup {
    std::unique_ptr<CollectiveRunner> runner;
    std::unique_ptr<Agent> agent;
    size_t next_bucket = 0;
    sim::Time end;
    std::vector<CollectiveResult> rows;  // this step's buckets
  };

  int stage_of(int replica) const { return replica / spec_.parallel.dp; }
  int rank_of(int stage, int d, int t) const {
    return t + spec_.parallel.tp * (d + spec_.parallel.dp * stage);
  }
  void begin_step();
  void run(int replica);  // executes ops from its pc until one waits
  void on_replica_event(int replica, uint32_t kind);
  bool post_call(int replica, const Op& op);
  void post_side(int replica, Direction dir, int micro, bool send);
  // The transfers of a step, numbered by receiver, direction and micro-batch; their sender.
  uint32_t transfer_index(int receiver, Direction dir, int micro) const;
  int sender_of(uint32_t transfer) const;
  int receiver_of(uint32_t transfer) const;
  // A pipeline flow's owner tag (Transport::set_owner): its transfer, tensor rank and whether
  // it is the clear-to-send.
  int64_t flow_tag(uint32_t transfer, int tr, bool clear) const;
  // Tensor rank `tr`'s flow of a transfer whose send is posted and whose receiver has cleared
  // it (start_clear_to_send), where the sender is.
  void start_flow(int sender, uint32_t transfer, SendSide& s, int tr);
  void item_done(int replica);
  void replica_finished(int replica);
  void next_bucket(int group);  // data groups that run bucket after bucket (not gated)
  // The group's last bucket ended at `end`: its optimizer, then kOptimizerDone.
  void group_done(int group, sim::Time end);
  void on_group_event(int group);
  void step_done();
  TrainingStepResult step_result() const;  // parallel_step_results.cpp
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
  std::vector<std::unique_ptr<Agent>> replica_agents_;     // [replica]
  std::vector<std::unique_ptr<CollectiveRunner>> tensor_;  // [replica]
  std::vector<DataGroup> data_;                            // [stage * tp + t]
  // Each GPU joins its data group's bucket all-reduces when its own backward is done (calls
  // asked for at the step's start: CollectiveRunner::run_gated); false when the data groups'
  // algorithm reduces in the network, whose calls start for every rank at once: the stage's
  // buckets then start when its last replica is done.
  bool data_gated_ = false;
  std::vector<int64_t> stage_gradient_bytes_;        // per GPU
  std::vector<std::vector<int64_t>> stage_buckets_;  // [stage] bucket sizes
  // A stage's replicas yet to finish, and their latest end (any partition's replica may be the
  // last to count): a stage without gradients is done then, or its buckets start (not gated).
  std::unique_ptr<std::atomic<int>[]> stage_left_;
  std::unique_ptr<std::atomic<int64_t>[]> stage_end_ps_;
  int groups_done_ = 0;
  int step_ = 0;
  int steps_done_ = 0;
  sim::Time step_start_;
  std::vector<CollectiveResult> data_rows_;
  std::string timeline_process_;
  // Over processes: the figures of the replicas each partition finished since the last share;
  // per stage whose groups are done with its last replica (no gated buckets), its replicas
  // yet to be told of and their latest end; the stages all told of in the last share.
  std::vector<std::vector<ReplicaFigures>> finished_told_;  // [partition]
  std::vector<int> stage_told_left_;
  std::vector<sim::Time> stage_told_end_;
  std::vector<int> stages_told_;
  bool done_ = false;
  std::function<void(TrainingStepResult)> on_step_;
  std::function<void()> on_done_;
};

}  // namespace models
