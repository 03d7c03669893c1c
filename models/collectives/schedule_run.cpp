// A call that runs a schedule of messages (ring, double binary tree, halving-doubling, direct,
// hierarchical: models/collectives/schedule.hpp): a message is posted once every message it
// waits for is in — the receiver's next sends wait for the data only, anything else for the
// completion —, after its step's cost and its channel's throughput; it becomes a transport flow
// (over NVLink inside a server, through a PXN relay or the rank's own NIC between servers), and
// its delivery and completion release the messages after it. A split run counts completions
// in the partition that sees them (ARCHITECTURE.md, "Partitions"); the last one ends the call.
#include <algorithm>
#include <cmath>

#include "models/collectives/collective_runner.hpp"
#include "models/collectives/collective_timeline.hpp"
#include "models/workloads/gpu_endpoints.hpp"

namespace models {

void CollectiveRunner::ready(uint32_t message) {
  const CollectiveMessage& m = schedule_.messages[message];
  sim::Time lat = step_cost(m);
  if (channel_rate_bps_ > 0) {
    // The protocol's throughput: this channel of the sender posts no sooner than its previous
    // message's data at the channel's share of the rank's rate.
    const int channels = std::max(1, spec_.channels);
    sim::Time& free = channel_free_[static_cast<size_t>(m.src_rank) * channels +
                                    m.channel % static_cast<uint32_t>(channels)];
    const sim::Time at = std::max(ctx_.sim.now() + lat, free);
    free =
        at + sim::Time(std::llround(static_cast<double>(m.data_bytes) * 8e12 / channel_rate_bps_));
    lat = at - ctx_.sim.now();
  }
  if (lat.ps > 0) {
    ctx_.sim.after(lat, &agent(m.src_rank), kPost, message);
  } else {
    post(message);
  }
}

void CollectiveRunner::post(uint32_t message) {
  const CollectiveMessage& m = schedule_.messages[message];
  if (timeline_) timeline_->posted(message, ctx_.sim.now());
  const auto& src_ends = spec_.rank_endpoints[m.src_rank];
  const auto& dst_ends = spec_.rank_endpoints[m.dst_rank];
  int src = static_cast<int>(src_ends[m.channel % src_ends.size()]);
  int dst = static_cast<int>(dst_ends[m.channel % dst_ends.size()]);
  // Two GPUs of one server talk over NVLink (topologies/gpu_nodes.hpp).
  if (same_server(m)) {
    src = static_cast<int>(spec_.rank_nvlink[m.src_rank]);
    dst = static_cast<int>(spec_.rank_nvlink[m.dst_rank]);
    tally_.local().nvlink_bytes += m.wire_bytes;
  } else if (layouts_ != nullptr &&
             channel_layout(m).exit_rail[spec_.rank_server[m.src_rank]] >= 0) {
    // NCCL's placement: out by the channel's exit rail, in by the next server's entry rail
    // (channel_placement.hpp).
    const ChannelLayout& layout = channel_layout(m);
    const int from_server = spec_.rank_server[m.src_rank];
    const ServerRails& from = spec_.server_rails[from_server];
    const int rail = layout.exit_rail[from_server];
    src = static_cast<int>(from.nic_endpoint[rail]);
    dst = network_destination(m);
    const bool own_nic =
        std::find(src_ends.begin(), src_ends.end(), static_cast<uint32_t>(src)) != src_ends.end();
    if (!own_nic && spec_.pxn) {
      // PXN: over NVLink to the GPU next to the NIC first; that GPU's proxy then sends.
      tally_.local().nvlink_bytes += m.wire_bytes;
      start_message_flow(message, static_cast<int>(spec_.rank_nvlink[m.src_rank]),
                         static_cast<int>(from.nic_gpu_nvlink[rail]), m.wire_bytes,
                         /*relay=*/true);
      return;
    }
    tally_.local().network_bytes += m.wire_bytes;
  } else {
    tally_.local().network_bytes += m.wire_bytes;
  }
  start_message_flow(message, src, dst, m.wire_bytes, /*relay=*/false);
}

const ChannelLayout& CollectiveRunner::channel_layout(const CollectiveMessage& m) const {
  return (*layouts_)[m.channel % layouts_->size()];
}

int CollectiveRunner::network_destination(const CollectiveMessage& m) const {
  const ChannelLayout& layout = channel_layout(m);
  const int to_server = spec_.rank_server[m.dst_rank];
  return static_cast<int>(spec_.server_rails[to_server].nic_endpoint[layout.entry_rail[to_server]]);
}

void CollectiveRunner::post_after_relay(uint32_t message) {
  const CollectiveMessage& m = schedule_.messages[message];
  const ChannelLayout& layout = channel_layout(m);
  const int from_server = spec_.rank_server[m.src_rank];
  const int src =
      static_cast<int>(spec_.server_rails[from_server].nic_endpoint[layout.exit_rail[from_server]]);
  tally_.local().network_bytes += m.wire_bytes;
  start_message_flow(message, src, network_destination(m), m.wire_bytes, /*relay=*/false);
}

uint32_t CollectiveRunner::add_message_flow(int src_host, int dst_host, int64_t bytes,
                                            uint16_t sport) {
  FlowSpec fs;
  fs.src_host = src_host;
  fs.dst_host = dst_host;
  fs.bytes = bytes;
  fs.start = ctx_.sim.now();
  fs.priority = spec_.priority;
  fs.dscp = spec_.dscp;
  fs.qps = spec_.qps;
  fs.tag = "collective";
  return transport_.add_flow(fs, 0, sport, /*recycle=*/true);
}

void CollectiveRunner::start_message_flow(uint32_t message, int src_host, int dst_host,
                                          int64_t bytes, bool relay) {
  const CollectiveMessage& m = schedule_.messages[message];
  // The relay leg is its own connection (to the proxy GPU): another source port.
  const uint32_t flow =
      add_message_flow(src_host, dst_host, bytes,
                       connection_sport(m.src_rank, m.dst_rank, m.channel + (relay ? 0x800u : 0u)));
  // The flow's tag: message + 1, or -(message + 1) for a PXN relay leg (0 once heard of).
  transport_.set_owner(
      flow, this, relay ? -(static_cast<int64_t>(message) + 1) : static_cast<int64_t>(message) + 1);
  tally_.local().wire_bytes += bytes;
  transport_.start_flow_in_order(flow);  // a connection's messages in order, as one QP's
}

void CollectiveRunner::on_flow_delivered(uint32_t flow) {
  if (nvls_tree_delivered(flow) || collnet_delivered(flow)) return;
  const FlowState& f = transport_.flow(flow);
  if (f.owner != this || f.owner_tag == 0) return;
  const int64_t entry = f.owner_tag;
  if (entry < 0) {  // a PXN relay leg arrived at the proxy GPU: now the network leg
    transport_.set_owner(flow, this, 0);
    post_after_relay(static_cast<uint32_t>(-entry - 1));
    return;
  }
  // The receiver has the data: its next sends may go (here, where the receiver is).
  released_.local().emplace_back(static_cast<uint32_t>(entry - 1), Release::Delivered);
  drain();
}

void CollectiveRunner::on_flow_complete(uint32_t flow) {
  if (nvls_tree_completed(flow) || collnet_completed(flow)) return;
  const FlowState& f = transport_.flow(flow);
  if (f.owner != this || f.owner_tag <= 0) return;
  // The tag stays: over TCP a split run may hear of the completion (where the sender is)
  // before the partition of the receiver has run its delivery of the same moment.
  const auto message = static_cast<uint32_t>(f.owner_tag - 1);
  const CollectiveMessage& m = schedule_.messages[message];
  current_.rank_data_sent[m.src_rank] += m.data_bytes;
  if (timeline_) timeline_->completed(message, m, ctx_.sim.now());
  complete(message);
}

void CollectiveRunner::complete(uint32_t message) {
  released_.local().emplace_back(message, Release::Completed);
  drain(count_complete());
}

bool CollectiveRunner::count_complete(size_t n) {
  Tally& t = tally_.local();
  t.latest = std::max(t.latest, ctx_.sim.now());
  return remaining_.fetch_sub(n, std::memory_order_acq_rel) == n;
}

void CollectiveRunner::drain(bool last) {
  auto& released = released_.local();
  while (!released.empty()) {
    const auto [message, release] = released.back();
    released.pop_back();
    const CollectiveMessage& m = schedule_.messages[message];
    for (uint32_t k = 0; k < m.successor_count; ++k) {
      const uint32_t next = schedule_.successors[m.first_successor + k];
      CollectiveMessage& n = schedule_.messages[next];
      // The receiver's next sends wait for the data only; anything else for the completion.
      if (release != Release::All &&
          (release == Release::Delivered) != (n.src_rank == m.dst_rank)) {
        continue;
      }
      if (--n.waiting != 0) continue;
      if (n.src_rank == n.dst_rank) {  // a join: complete now
        released.emplace_back(next, Release::All);
        last = count_complete() || last;
      } else {
        ready(next);
      }
    }
  }
  if (last) finish_iteration();
}

}  // namespace models
