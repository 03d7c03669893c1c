// Runs a Chakra workload (chakra_spec.hpp): every rank starts the nodes whose dependencies are
// met, as ASTRA-sim's workload layer does with an ET feeder. A compute node is a delay; a
// collective node is the rank's part of its process group's collective, which runs on the
// packet fabric (CollectiveRunner, NCCL's algorithms and costs): each rank issues a group's
// collectives in order on the group's stream (a communicator's), starts its part of one when
// it has reached the node and ended its part of the one before, and its node is done when its
// own part is (NCCL's kernel on that GPU: per-rank call boundaries); the collective completes
// once every member has joined. (A group whose algorithm reduces in the network runs each
// collective for every member at once, once all have reached it.) A send and its receive move
// their bytes GPU to GPU (NVLink inside a server, else NIC to NIC) once the send is posted and
// the receiver's clear-to-send (sent when the receive is posted) has reached the sender, the
// receive done when the data has arrived, the send when it is acknowledged. Per rank: the
// iteration's end, the time it computed and its exposed communication (the rest). A rank's
// state is its own, its events its Agent's in its partition: a split run runs it. Over several
// processes (chakra_run_processes.cpp) each runs its own ranks, and tells the others each
// rank's figures as it ends; every process ends the workload once every rank has.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "models/collectives/collective_runner.hpp"
#include "models/workloads/chakra_spec.hpp"
#include "sim/event_arg.hpp"
#include "sim/simulator.hpp"

namespace models {

struct ChakraRankResult {
  std::string name;
  sim::Time iteration;  // from the workload's start to the rank's last node
  sim::Time compute;    // time at least one of its compute nodes ran
  sim::Time exposed;    // iteration - compute
  uint32_t nodes = 0, collectives = 0, sends = 0, recvs = 0;
};

class ChakraRunner final : public CompletionListener,
                           public sim::EventHandler,
                           public sim::RankShare {
 public:
  ChakraRunner(Context& ctx, Transport& transport, ChakraSpec spec, uint32_t index, uint64_t seed);
  void start();
  bool done() const { return done_.load(std::memory_order_acquire); }
  double work_done() const {
    return total_nodes_ == 0 ? 1.0
                             : static_cast<double>(nodes_done_.load(std::memory_order_relaxed)) /
                                   static_cast<double>(total_nodes_);
  }
  const std::vector<ChakraRankResult>& results() const { return results_; }
  // Every collective, one row each, in the order they ended (collectives in their order at
  // equal ends).
  const std::vector<CollectiveResult>& collective_rows() const { return rows_; }
  void set_on_done(std::function<void()> fn) { on_done_ = std::move(fn); }
  void set_sharp(SharpAllReduce* sharp);

  // A run over several processes (chakra_run_processes.cpp): its groups' runners and each
  // rank's end are swapped between windows; `on_rank_done` is called where each rank ends
  // (the workload's end is agreed on by the processes, not found by one: on_done is not
  // called). A group whose collectives reduce in the network runs so when its members are all
  // in one partition (NVLS inside a server): there alone, its rows told to the others.
  void share_over_processes(sim::Simulator& sim, std::function<void()> on_rank_done);
  void pack_share(sim::Bytes& out) override;
  void take_share(sim::ByteReader& in, uint32_t rank) override;
  void shares_taken() override;
  bool share_pending() const override;

  void on_flow_complete(uint32_t flow) override;
  void on_flow_delivered(uint32_t flow) override;
  void on_event(uint32_t kind, uint64_t arg) override;

 private:
  // kRankStarts: over processes, a rank's first nodes at the iteration's start.
  enum Kind : uint32_t { kStart = 0, kNodeDone = 1, kRankStarts = 2 };
  // A rank's events (its nodes' ends), in the partition of its GPU (or host).
  class Agent final : public sim::EventHandler {
   public:
    Agent(sim::Simulator& sim, ChakraRunner& runner, uint32_t rank)
        : EventHandler(sim), runner_(runner), rank_(rank) {}
    void on_event(uint32_t kind, uint64_t node) override {
      if (kind == kRankStarts) {
        runner_.start_rank(rank_);
      } else {
        runner_.node_done(rank_, static_cast<uint32_t>(node));
      }
    }

   private:
    ChakraRunner& runner_;
    uint32_t rank_;
  };
  // A rank's place in one group's collectives (their issue order).
  struct RankStream {
    uint32_t next = 0;  // the group's collective it issues next
    bool busy = false;  // its part of one is under way
  };
  struct RankState {
    std::vector<uint32_t> waiting;    // [node] dependencies not yet done
    std::vector<uint8_t> begun;       // [node] reached
    std::vector<RankStream> streams;  // [group]
    uint32_t remaining = 0;           // nodes not yet done
    int computing = 0;                // compute nodes running
    sim::Time compute_since, end;
  };
  // A group that reduces in the network: its collectives one at a time, once every member
  // has reached it.
  struct GroupState {
    size_t next = 0;  // its next collective to run: an index into its group_order_
    bool busy = false;
  };
  // A transfer as its sender sees it.
  struct TransferState {
    bool send_posted = false;
    bool clear_to_send = false;  // the receiver's clear-to-send has reached the sender
  };
  // Its nodes without dependencies, in file order.
  void start_rank(uint32_t rank);
  void begin(uint32_t rank, uint32_t node);
  void node_done(uint32_t rank, uint32_t node);
  // Every rank is done: the collectives' rows in the order they ended.
  void finish();
  // The rank's next collective of `group`, if it has reached it and is free (gated groups).
  void try_stream(uint32_t rank, uint32_t group);
  void try_group(uint32_t group);             // a group that reduces in the network
  void collective_done(uint32_t collective);  // its row: collective_rows
  void try_transfer(uint32_t transfer);
  CollectiveRunner& runner_of(uint32_t collective);
  uint16_t connection_sport(uint32_t src, uint32_t dst) const;
  void timeline_span(uint32_t rank, const ChakraNode& n, sim::Time start);

  Context& ctx_;
  Transport& transport_;
  ChakraSpec spec_;
  uint32_t index_;
  uint64_t seed_;
  std::map<std::pair<uint32_t, CollectiveOp>, std::unique_ptr<CollectiveRunner>> runners_;
  std::vector<std::unique_ptr<Agent>> agents_;  // [rank]
  std::vector<RankState> ranks_;
  std::vector<std::vector<sim::Time>> started_;     // [rank][node] when it began (timeline)
  std::vector<std::vector<uint32_t>> group_order_;  // [group] its collectives in issue order
  std::vector<std::vector<uint32_t>> group_rank_;   // [group][rank] its place in the group
  std::vector<uint8_t> gated_;  // [group] rank by rank (schedule algorithms), else all at once
  std::vector<GroupState> groups_;
  std::vector<uint32_t> joined_;  // [collective] members that have reached it (not gated)
  std::vector<TransferState> transfers_;
  std::vector<CollectiveResult> row_of_;  // [collective] its row, once ended
  std::vector<CollectiveResult> rows_;
  std::vector<ChakraRankResult> results_;
  std::vector<uint32_t> tracks_;  // [2 rank + comm] the timeline's tracks
  std::string timeline_process_;
  uint64_t total_nodes_ = 0;
  std::atomic<uint64_t> nodes_done_{0};
  std::atomic<uint32_t> ranks_done_{0};
  std::atomic<bool> done_{false};
  std::function<void()> on_done_;
  // Over processes: each partition's ranks ended since the last share, with their figures;
  // the ranks every process has told of (or that have no nodes).
  struct RankEnd {
    uint64_t rank = 0;
    sim::Time iteration, compute, exposed;
    uint64_t collectives = 0, sends = 0, recvs = 0;  // (64 bits: no padding packed)
  };
  bool over_processes_ = false;
  std::vector<std::vector<RankEnd>> ended_told_;  // [partition]
  // The rows of in-network groups' collectives (NVLS inside a server: their runner runs in its
  // partition alone) each partition ended since the last share.
  std::vector<std::vector<uint32_t>> rows_told_;  // [partition] collective
  uint64_t ranks_told_done_ = 0;
  std::function<void()> on_rank_done_;
};

}  // namespace models
