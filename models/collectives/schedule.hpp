// A collective of one size as a dependency graph of messages between ranks: a message may be
// posted once every message it depends on has completed (its data has arrived where it is
// needed, or the connection's previous message is done). The algorithms (ring.cpp,
// halving_doubling.cpp, double_binary_tree.cpp, direct.cpp) only build such graphs; the
// runner (collective_runner.hpp) turns messages into transport messages and completions into
// the next posts, so the same schedules run on any fabric.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "models/collectives/collective_spec.hpp"

namespace models {

// A message whose source is its destination is a join (ScheduleBuilder::join): the runner
// completes it at once, without the transport.
struct CollectiveMessage {
  uint32_t src_rank = 0;
  uint32_t dst_rank = 0;
  uint32_t channel = 0;
  int64_t data_bytes = 0;  // collective data it carries
  int64_t wire_bytes = 0;  // transport payload under the protocol
  uint32_t waiting = 0;    // dependencies not yet completed
  uint32_t first_successor = 0;
  uint32_t successor_count = 0;
};

struct CollectiveSchedule {
  std::vector<CollectiveMessage> messages;
  std::vector<uint32_t> successors;  // CSR: messages[i]'s successors
};

// Collects messages and dependencies, then freezes them into a schedule.
class ScheduleBuilder {
 public:
  explicit ScheduleBuilder(CollectiveProtocol protocol) : protocol_(protocol) {}
  uint32_t add(uint32_t src, uint32_t dst, uint32_t channel, int64_t data_bytes);
  // A join: no data and no transport message (source = destination); it completes as soon as
  // its dependencies have, so that m predecessors and n successors need m + n edges, not m x n.
  uint32_t join(uint32_t rank);
  // `after` may only be posted once `before` has completed.
  void depend(uint32_t before, uint32_t after) { edges_.emplace_back(before, after); }
  CollectiveSchedule finish();

 private:
  CollectiveProtocol protocol_;
  std::vector<CollectiveMessage> messages_;
  std::vector<std::pair<uint32_t, uint32_t>> edges_;
};

// `bytes` split into `parts` pieces on `grain`-byte boundaries, as equal as possible (the
// first pieces take the extra elements; a remainder below one grain goes to the last).
std::vector<int64_t> split_bytes(int64_t bytes, int64_t parts, int64_t grain);

// Pieces of a step's data when pipelined in chunks of `chunk_bytes` (0 = one piece).
int64_t chunk_count(int64_t bytes, int64_t chunk_bytes);

// The receive buffer slots of a connection (NCCL_STEPS): chunk k may be posted on a
// connection once chunk k - slots on it has completed, so up to `slots` chunks are in flight
// per connection. Keeps, per connection position, the ids of the last `slots` chunks.
class SlotWindow {
 public:
  SlotWindow(int slots, size_t connections)
      : slots_(slots), ids_(static_cast<size_t>(slots) * connections, 0), width_(connections) {}
  // Records `id` as chunk `k` on `connection`, making it wait for chunk k - slots there.
  void add(ScheduleBuilder& b, int64_t k, size_t connection, uint32_t id) {
    uint32_t& cell = ids_[static_cast<size_t>(k % slots_) * width_ + connection];
    if (k >= slots_) b.depend(cell, id);
    cell = id;
  }

 private:
  int slots_;
  std::vector<uint32_t> ids_;
  size_t width_;
};

struct ScheduleRequest {
  CollectiveOp op = CollectiveOp::AllReduce;
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::Ring;
  CollectiveProtocol protocol = CollectiveProtocol::Simple;
  int ranks = 2;
  int64_t size_bytes = 0;  // nccl-tests' size convention (collective_spec.hpp)
  int64_t type_bytes = 4;
  int channels = 1;
  int64_t chunk_bytes = 0;
  int slots = 8;
  int root = 0;
  // The server of each rank (hierarchical.cpp); empty when the ranks are plain hosts.
  std::vector<int> rank_server;
  // Per channel, the ranks in the order its ring visits them, or its tree's server chains one
  // after another (NCCL's placement, channel_placement.hpp); empty = rank order, flat trees.
  std::vector<std::vector<uint32_t>> channel_orders;
};

// The schedule of one collective; throws std::invalid_argument for a combination that does
// not exist (the loader refuses those first, with the JSON path).
CollectiveSchedule build_schedule(const ScheduleRequest& r);

// The algorithms.
void ring_schedule(const ScheduleRequest& r, ScheduleBuilder& b);
void halving_doubling_schedule(const ScheduleRequest& r, ScheduleBuilder& b);
void double_binary_tree_schedule(const ScheduleRequest& r, ScheduleBuilder& b);
void direct_schedule(const ScheduleRequest& r, ScheduleBuilder& b);
void hierarchical_schedule(const ScheduleRequest& r, ScheduleBuilder& b);

// The parent of each rank in NCCL's two binary trees (-1 for a root): tree 0 is the in-order
// tree in which odd ranks are leaves; tree 1 is tree 0 mirrored (even rank count) or shifted
// by one (odd), so that every rank is interior in at most one tree (NCCL's double binary tree,
// docs/references.md "Collectives").
std::vector<int> binary_tree_parents(int ranks, int tree);

}  // namespace models
