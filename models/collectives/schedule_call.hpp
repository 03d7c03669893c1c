// The state of a collective's calls that run a schedule of messages (ring, tree,
// halving-doubling, direct, hierarchical), paced rank by rank as NCCL runs them: on each GPU a
// call is one kernel on the communicator's stream, and the next call's kernel starts when that
// GPU's own kernel has ended (CUDA stream order), whatever the other GPUs are doing
// (docs/references.md, "Collectives": per-rank call boundaries). A rank's part of a call ends
// once every message it sends is complete and every message it receives is delivered; its
// next call launches then (after the launch latency). Calls of a rank run in order; two ranks
// may be in different calls, and a message of a call that reaches a rank still in an earlier
// one waits (held) until that rank launches the call. The result row of a size (or of a
// run_one call) spans its calls: from the first rank's start to the last rank's end.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <vector>

#include "models/collectives/channel_placement.hpp"
#include "models/collectives/collective_result.hpp"
#include "models/collectives/nccl_tuning.hpp"
#include "models/collectives/schedule.hpp"
#include "sim/per_partition.hpp"

namespace models {

// What each partition's ranks add to a row while it runs: summed into the row at its end.
struct CallTally {
  int64_t nvlink_bytes = 0, network_bytes = 0, wire_bytes = 0;
  uint64_t messages = 0;  // posted by NVLS-tree and CollNet as they go
  sim::Time latest;
  // `o`'s bytes and messages added (not its latest).
  void add_counts(const CallTally& o) {
    nvlink_bytes += o.nvlink_bytes;
    network_bytes += o.network_bytes;
    wire_bytes += o.wire_bytes;
    messages += o.messages;
  }
};

// What NCCL picks for a size, shared by its calls.
struct CallSettings {
  CollectiveProtocol protocol = CollectiveProtocol::Simple;
  NcclLatencies nccl;  // this size's NCCL latency terms (when the spec's nccl_costs)
  // The protocol's throughput per channel of a rank (bits/s, 0 = none; CollectiveSpec::
  // ll_rate_bps).
  double channel_rate_bps = 0;
  // The channels as NCCL places them (spec ring_layouts or tree_layouts), or null.
  const std::vector<ChannelLayout>* layouts = nullptr;
  sim::Time launch;  // from a rank's start of a call to its first posts
};

// A result row of schedule calls: a size's iterations, or one run_one call.
struct CallRow {
  CollectiveResult result;
  CallSettings settings;
  int64_t sweep_index = -1;  // which of the spec's sizes (-1: a run_one call)
  uint32_t first_call = 0, calls = 0;
  std::atomic<int> ranks_left{0};          // ranks yet to end its last call
  std::atomic<int64_t> start_ps{0};        // the earliest start of a rank (a minimum)
  std::atomic<int64_t> end_ps{0};          // the latest end of a rank (a maximum)
  std::atomic<uint64_t> messages_done{0};  // of all its calls (progress)
  sim::PerPartition<CallTally> tally;
  std::function<void()> done;  // run_one's
  // Each rank starts it when its program joins it (run_gated), and hears where it is when its
  // own part of the row is over.
  bool gated = false;
  std::function<void(uint32_t rank)> rank_done;
  bool finished = false;  // every rank has ended its last call (under the runner's lock)
  // A run over several processes (CollectiveRunner::pack_share): this process's ranks yet to
  // end its last call; whether what its partitions added to `tally` went to the others; what
  // the others' partitions added.
  std::atomic<int> local_left{0};
  bool tally_shared = false;
  CallTally elsewhere;
};

// One rank's part of a call; read and written only where the rank is (its partition).
struct RankCall {
  uint32_t obligations = 0;  // messages to send until complete or to receive until delivered
  bool launched = false;
  bool launch_at_boundary = false;  // idle when the call was asked for: launched with the others
  sim::Time started;                // when it could start (its previous call's end, or the release)
  std::vector<uint32_t> held;       // messages (and joins) ready before it launched
};

// One call: one iteration of a row's size.
struct ScheduleCall {
  CallRow* row = nullptr;
  uint32_t number = 0;
  bool last_of_row = false;
  CollectiveSchedule schedule;
  std::vector<RankCall> ranks;
  std::vector<sim::Time> posted_at;  // [message], while a timeline is recorded
  std::atomic<int> ranks_left{0};    // ranks yet to end it (its state is freed after)
};

// Where a rank is in its sequence of calls; read and written only where the rank is.
struct RankCursor {
  uint32_t next_call = 0;  // the call it starts next
  bool busy = false;       // started a call it has not ended, or waits to join one
  bool gated = false;      // waits for its program to join call next_call (run_gated)
};

}  // namespace models
