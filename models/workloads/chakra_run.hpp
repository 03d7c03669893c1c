// Runs a Chakra workload (chakra_spec.hpp): every rank starts the nodes whose dependencies are
// met, as ASTRA-sim's workload layer does with an ET feeder. A compute node is a delay; a
// collective node joins its process group's collective, which runs on the packet fabric
// (CollectiveRunner, NCCL's algorithms and costs) once every member has reached it, one at a
// time per group in the order the ranks issue them (a communicator's stream); a send and its
// receive move their bytes GPU to GPU (NVLink inside a server, else NIC to NIC) once the send is
// posted and the receiver's clear-to-send (sent when the receive is posted) has reached the
// sender, the receive done when the data has arrived, the send when it is acknowledged. Per
// rank: the iteration's end, the time it computed and its exposed communication (the rest).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "models/collectives/collective_runner.hpp"
#include "models/workloads/chakra_spec.hpp"
#include "sim/event_arg.hpp"

namespace models {

struct ChakraRankResult {
  std::string name;
  sim::Time iteration;  // from the workload's start to the rank's last node
  sim::Time compute;    // time at least one of its compute nodes ran
  sim::Time exposed;    // iteration - compute
  uint32_t nodes = 0, collectives = 0, sends = 0, recvs = 0;
};

class ChakraRunner final : public CompletionListener, public sim::EventHandler {
 public:
  ChakraRunner(Context& ctx, Transport& transport, ChakraSpec spec, uint32_t index, uint64_t seed);
  void start();
  bool done() const { return done_; }
  double work_done() const {
    return total_nodes_ == 0 ? 1.0 : static_cast<double>(nodes_done_) / total_nodes_;
  }
  const std::vector<ChakraRankResult>& results() const { return results_; }
  // Every collective, one row each, in the order they ended.
  const std::vector<CollectiveResult>& collective_rows() const { return rows_; }
  void set_on_done(std::function<void()> fn) { on_done_ = std::move(fn); }
  void set_sharp(SharpAllReduce* sharp);

  void on_flow_complete(uint32_t flow) override;
  void on_flow_delivered(uint32_t flow) override;
  void on_event(uint32_t kind, uint64_t arg) override;

 private:
  enum Kind : uint32_t { kStart = 0, kNodeDone = 1 };
  struct RankState {
    std::vector<uint32_t> waiting;  // [node] dependencies not yet done
    uint32_t remaining = 0;         // nodes not yet done
    int computing = 0;              // compute nodes running
    sim::Time compute_since, end;
  };
  struct GroupState {
    std::deque<uint32_t> order;  // its collectives, in issue order
    bool busy = false;
  };
  struct TransferState {
    bool send_posted = false, recv_posted = false;
    bool clear_to_send = false;  // the receiver's clear-to-send has reached the sender
  };
  static uint64_t node_arg(uint32_t rank, uint32_t node) { return sim::pack_arg(rank, node); }
  void begin(uint32_t rank, uint32_t node);
  void node_done(uint32_t rank, uint32_t node);
  void try_group(uint32_t group);
  void try_transfer(uint32_t transfer);
  uint16_t connection_sport(uint32_t src, uint32_t dst) const;
  void timeline_span(uint32_t rank, const ChakraNode& n, sim::Time start);

  Context& ctx_;
  Transport& transport_;
  ChakraSpec spec_;
  uint32_t index_;
  uint64_t seed_;
  std::map<std::pair<uint32_t, CollectiveOp>, std::unique_ptr<CollectiveRunner>> runners_;
  std::vector<RankState> ranks_;
  std::vector<std::vector<sim::Time>> started_;  // [rank][node] when it began (timeline)
  std::vector<GroupState> groups_;
  std::vector<uint32_t> joined_;  // [collective] members that have reached it
  std::vector<TransferState> transfers_;
  std::vector<uint32_t> transfer_of_flow_;  // [flow] transfer + 1, 0 = not ours
  std::vector<uint32_t> clear_of_flow_;     // [flow] transfer + 1 of a clear-to-send
  std::vector<CollectiveResult> rows_;
  std::vector<ChakraRankResult> results_;
  std::string timeline_process_;
  uint64_t total_nodes_ = 0, nodes_done_ = 0;
  uint32_t ranks_done_ = 0;
  bool done_ = false;
  std::function<void()> on_done_;
};

}  // namespace models
