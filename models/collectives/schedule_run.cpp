// A call that runs a schedule of messages (ring, double binary tree, halving-doubling, direct,
// hierarchical: models/collectives/schedule.hpp): a message is posted once every message it
// waits for is in — the receiver's next sends wait for the data only, anything else for the
// completion — and its sender has launched the call, after its step's cost and its channel's
// throughput; it becomes a transport flow (over NVLink inside a server, through a PXN relay or
// the rank's own NIC between servers), and its delivery and completion release the messages
// after it and settle one obligation of its receiver and sender (rank_calls.cpp). Everything
// here runs where the rank it acts for is (ARCHITECTURE.md, "Partitions").
#include <algorithm>
#include <cmath>

#include "models/collectives/collective_runner.hpp"
#include "models/collectives/collective_timeline.hpp"
#include "models/workloads/gpu_endpoints.hpp"

namespace models {

void CollectiveRunner::ready(ScheduleCall& c, uint32_t message) {
  const CollectiveMessage& m = c.schedule.messages[message];
  RankCall& sender = c.ranks[m.src_rank];
  if (!sender.launched) {  // still in an earlier call
    sender.held.push_back(message);
    return;
  }
  const CallSettings& s = c.row->settings;
  sim::Time lat = step_cost(s, m);
  if (s.channel_rate_bps > 0) {
    // The protocol's throughput: this channel of the sender posts no sooner than its previous
    // message's data at the channel's share of the rank's rate.
    const int channels = std::max(1, spec_.channels);
    sim::Time& free = channel_free_[static_cast<size_t>(m.src_rank) * channels +
                                    m.channel % static_cast<uint32_t>(channels)];
    const sim::Time at = std::max(ctx_.sim.now() + lat, free);
    free =
        at + sim::Time(std::llround(static_cast<double>(m.data_bytes) * 8e12 / s.channel_rate_bps));
    lat = at - ctx_.sim.now();
  }
  if (lat.ps > 0) {
    ctx_.sim.after(lat, &agent(m.src_rank), kPost,
                   (static_cast<uint64_t>(c.number) << 32) | message);
  } else {
    post(c, message);
  }
}

void CollectiveRunner::post(ScheduleCall& c, uint32_t message) {
  const CollectiveMessage& m = c.schedule.messages[message];
  if (timeline_) c.posted_at[message] = ctx_.sim.now();
  const auto& src_ends = spec_.rank_endpoints[m.src_rank];
  const auto& dst_ends = spec_.rank_endpoints[m.dst_rank];
  int src = static_cast<int>(src_ends[m.channel % src_ends.size()]);
  int dst = static_cast<int>(dst_ends[m.channel % dst_ends.size()]);
  // Two GPUs of one server talk over NVLink (topologies/gpu_nodes.hpp).
  if (same_server(m)) {
    src = static_cast<int>(spec_.rank_nvlink[m.src_rank]);
    dst = static_cast<int>(spec_.rank_nvlink[m.dst_rank]);
    c.row->tally.local().nvlink_bytes += m.wire_bytes;
  } else if (c.row->settings.layouts != nullptr &&
             channel_layout(c, m).exit_rail[spec_.rank_server[m.src_rank]] >= 0) {
    // NCCL's placement: out by the channel's exit rail, in by the next server's entry rail
    // (channel_placement.hpp).
    const ChannelLayout& layout = channel_layout(c, m);
    const int from_server = spec_.rank_server[m.src_rank];
    const ServerRails& from = spec_.server_rails[from_server];
    const int rail = layout.exit_rail[from_server];
    src = static_cast<int>(from.nic_endpoint[rail]);
    dst = network_destination(c, m);
    const bool own_nic =
        std::find(src_ends.begin(), src_ends.end(), static_cast<uint32_t>(src)) != src_ends.end();
    if (!own_nic && spec_.pxn) {
      // PXN: over NVLink to the GPU next to the NIC first; that GPU's proxy then sends.
      c.row->tally.local().nvlink_bytes += m.wire_bytes;
      start_message_flow(c, message, static_cast<int>(spec_.rank_nvlink[m.src_rank]),
                         static_cast<int>(from.nic_gpu_nvlink[rail]), m.wire_bytes,
                         /*relay=*/true);
      return;
    }
    c.row->tally.local().network_bytes += m.wire_bytes;
  } else {
    c.row->tally.local().network_bytes += m.wire_bytes;
  }
  start_message_flow(c, message, src, dst, m.wire_bytes, /*relay=*/false);
}

const ChannelLayout& CollectiveRunner::channel_layout(const ScheduleCall& c,
                                                      const CollectiveMessage& m) const {
  const std::vector<ChannelLayout>& layouts = *c.row->settings.layouts;
  return layouts[m.channel % layouts.size()];
}

int CollectiveRunner::network_destination(const ScheduleCall& c, const CollectiveMessage& m) const {
  const ChannelLayout& layout = channel_layout(c, m);
  const int to_server = spec_.rank_server[m.dst_rank];
  return static_cast<int>(spec_.server_rails[to_server].nic_endpoint[layout.entry_rail[to_server]]);
}

void CollectiveRunner::post_after_relay(ScheduleCall& c, uint32_t message) {
  const CollectiveMessage& m = c.schedule.messages[message];
  const ChannelLayout& layout = channel_layout(c, m);
  const int from_server = spec_.rank_server[m.src_rank];
  const int src =
      static_cast<int>(spec_.server_rails[from_server].nic_endpoint[layout.exit_rail[from_server]]);
  c.row->tally.local().network_bytes += m.wire_bytes;
  start_message_flow(c, message, src, network_destination(c, m), m.wire_bytes, /*relay=*/false);
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

int64_t CollectiveRunner::flow_tag(uint32_t call, uint32_t message, bool relay) {
  const int64_t tag = static_cast<int64_t>((static_cast<uint64_t>(call) << 32) | message) + 1;
  return relay ? -tag : tag;
}

void CollectiveRunner::start_message_flow(ScheduleCall& c, uint32_t message, int src_host,
                                          int dst_host, int64_t bytes, bool relay) {
  const CollectiveMessage& m = c.schedule.messages[message];
  // The relay leg is its own connection (to the proxy GPU): another source port.
  const uint32_t flow =
      add_message_flow(src_host, dst_host, bytes,
                       connection_sport(m.src_rank, m.dst_rank, m.channel + (relay ? 0x800u : 0u)));
  transport_.set_owner(flow, this, flow_tag(c.number, message, relay));
  c.row->tally.local().wire_bytes += bytes;
  transport_.start_flow_in_order(flow);  // a connection's messages in order, as one QP's
}

// Every runner hears of every flow, in whichever partition it ends: another's flow is left
// before any of this runner's state is read (a runner of one partition's writes it meanwhile).
void CollectiveRunner::on_flow_delivered(uint32_t flow) {
  const FlowState& f = transport_.flow(flow);
  if (f.owner != this) return;
  if (nvls_tree_delivered(flow) || collnet_delivered(flow)) return;
  if (f.owner_tag == 0) return;
  const int64_t entry = f.owner_tag < 0 ? -f.owner_tag - 1 : f.owner_tag - 1;
  ScheduleCall& c = call(static_cast<uint32_t>(entry >> 32));
  const auto message = static_cast<uint32_t>(entry);
  if (f.owner_tag < 0) {  // a PXN relay leg arrived at the proxy GPU: now the network leg
    transport_.set_owner(flow, this, 0);
    post_after_relay(c, message);
    return;
  }
  // The receiver has the data: its next sends may go (here, where the receiver is).
  released_.local().push_back({&c, message, Release::Delivered});
  drain();
  settle(c, c.schedule.messages[message].dst_rank);
}

void CollectiveRunner::on_flow_complete(uint32_t flow) {
  const FlowState& f = transport_.flow(flow);
  if (f.owner != this) return;
  if (nvls_tree_completed(flow) || collnet_completed(flow)) return;
  if (f.owner_tag <= 0) return;
  // The tag stays: over TCP a split run may hear of the completion (where the sender is)
  // before the partition of the receiver has run its delivery of the same moment.
  const int64_t entry = f.owner_tag - 1;
  ScheduleCall& c = call(static_cast<uint32_t>(entry >> 32));
  const auto message = static_cast<uint32_t>(entry);
  const CollectiveMessage& m = c.schedule.messages[message];
  c.row->result.rank_data_sent[m.src_rank] += m.data_bytes;
  c.row->messages_done.fetch_add(1, std::memory_order_relaxed);
  if (timeline_) timeline_->sent(m, c.posted_at[message], ctx_.sim.now());
  complete(c, message);
  settle(c, m.src_rank);
}

void CollectiveRunner::complete(ScheduleCall& c, uint32_t message) {
  released_.local().push_back({&c, message, Release::Completed});
  drain();
}

void CollectiveRunner::drain() {
  auto& released = released_.local();
  while (!released.empty()) {
    const Released r = released.back();
    released.pop_back();
    ScheduleCall& c = *r.call;
    const CollectiveMessage& m = c.schedule.messages[r.message];
    for (uint32_t k = 0; k < m.successor_count; ++k) {
      const uint32_t next = c.schedule.successors[m.first_successor + k];
      CollectiveMessage& n = c.schedule.messages[next];
      // The receiver's next sends wait for the data only; anything else for the completion.
      if (r.release != Release::All &&
          (r.release == Release::Delivered) != (n.src_rank == m.dst_rank)) {
        continue;
      }
      if (--n.waiting != 0) continue;
      if (n.src_rank == n.dst_rank) {  // a join: complete now
        released.push_back({&c, next, Release::All});
      } else {
        ready(c, next);
      }
    }
  }
}

}  // namespace models
