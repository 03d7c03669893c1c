// In-network calls that also send messages — NVLS-tree's partial sums and results between the
// servers' heads, CollNet's chunks inside the servers — in a run over several processes
// (collective_runner.hpp, note_in_network). The SHARP groups (the servers' NVSwitches, the
// rails' head NICs) run host by host, each host's end told (models/sharp/sharp_processes.cpp);
// the messages run where their GPUs are, posted and delivered by those partitions' events. What
// a run of one process counts in shared memory — the messages not yet complete, what each adds
// to the call's row — each process notes for every process to learn between windows: every
// process then knows the same open messages and done groups after each exchange, and ends the
// call at the same boundary once every group is done and no message is open; the call's end
// is the latest completion, told with it, or the groups' hosts' latest.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "models/collectives/collective_runner.hpp"
#include "models/sharp/sharp_params.hpp"
#include "sim/partition_lists.hpp"

namespace models {

void CollectiveRunner::note_in_network(InNetworkNoteKind kind, uint32_t rank, int64_t bytes) {
  if (!over_processes_) return;
  in_network_notes_[sim::Simulator::thread_partition()].push_back(
      {kind, rank, bytes, ctx_.sim.now().ps});
}

void CollectiveRunner::in_network_group_done() {
  if (over_processes_) {
    ++in_network_groups_done_;  // at shares_taken, in every process
    return;
  }
  const bool over = current_.algorithm == CollectiveAlgorithm::NvlsTree
                        ? nvls_tree_->in_flight.group_done(nvls_tree_->servers.size())
                        : collnet_->in_flight.group_done(collnet_->groups_started);
  if (over) finish_in_network();
}

void CollectiveRunner::in_network_message_complete() {
  note_latest();
  if (over_processes_) {
    note_in_network(kCompleted, 0, 0);
    return;
  }
  const bool over = current_.algorithm == CollectiveAlgorithm::NvlsTree
                        ? nvls_tree_->in_flight.complete_message(nvls_tree_->servers.size())
                        : collnet_->in_flight.complete_message(collnet_->groups_started);
  if (over) finish_in_network();
}

void CollectiveRunner::finish_in_network() {
  in_network_running_ = false;
  if (current_.algorithm == CollectiveAlgorithm::NvlsTree) {
    nvls_tree_finish();
  } else {
    collnet_finish();
  }
}

// What another process's partitions added to the call (this process's own is in its rows and
// tallies already): counted into the first partition's tally, and the open messages.
void CollectiveRunner::take_in_network_notes(sim::ByteReader& in, bool own) {
  const auto count = in.get<uint64_t>();
  for (uint64_t i = 0; i < count; ++i) {
    const auto n = in.get<InNetworkNote>();
    if (!in_network_running_ || n.kind > kCompleted || n.rank >= agents_.size()) {
      throw std::runtime_error("a process told of a message of in-network collective " +
                               std::to_string(index_) + " that runs no such call here");
    }
    if (n.kind == kPostedNetwork || n.kind == kPostedNvlink) ++in_network_open_;
    if (n.kind == kCompleted) --in_network_open_;
    if (own) continue;
    Tally& t = tally_[0];  // (between windows: no partition's event writes it now)
    switch (n.kind) {
      case kPostedNetwork:
      case kPostedNvlink:
        t.wire_bytes += n.bytes;
        (n.kind == kPostedNvlink ? t.nvlink_bytes : t.network_bytes) += n.bytes;
        ++t.messages;
        current_.rank_data_sent[n.rank] += n.bytes;
        break;
      case kDelivered:
        current_.rank_data_received[n.rank] += n.bytes;
        break;
      default:
        t.latest = std::max(t.latest, sim::Time(n.at_ps));
    }
  }
}

// A message as an owner tag (> 0): chunk, sending and receiving server positions, direction.
int64_t CollectiveRunner::nvls_tree_tag(const NvlsTreeMessage& m) const {
  constexpr int64_t kPositions = int64_t{1} << 20, kChunks = int64_t{1} << 21;
  if (m.chunk >= kChunks || m.from >= kPositions || m.to >= kPositions) {
    throw std::logic_error("NVLS-tree over processes: chunk " + std::to_string(m.chunk) +
                           " or server positions beyond the owner tag's room");
  }
  return 1 + ((((m.chunk * kPositions + m.from) * kPositions + m.to) << 1) | (m.up ? 1 : 0));
}

NvlsTreeMessage CollectiveRunner::nvls_tree_message(int64_t tag) const {
  constexpr int64_t kPositions = int64_t{1} << 20;
  const int64_t v = tag - 1;
  NvlsTreeMessage m;
  m.up = (v & 1) != 0;
  m.to = static_cast<int>((v >> 1) % kPositions);
  m.from = static_cast<int>(((v >> 1) / kPositions) % kPositions);
  m.chunk = ((v >> 1) / kPositions) / kPositions;
  m.bytes = SharpChunks{sizes_[size_index_], nvls_tree_->chunk_bytes, 1, 0}.chunk_bytes(m.chunk);
  return m;
}

}  // namespace models
