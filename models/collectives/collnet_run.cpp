// Algorithms "collnet_direct" and "collnet_chain": NCCL's CollNet all-reduce over an InfiniBand
// fabric's SHARP (NVIDIA/nccl src/device/all_reduce.h, RunWorkColl<..., NCCL_ALGO_COLLNET_DIRECT
// / NCCL_ALGO_COLLNET_CHAIN, NCCL_PROTO_SIMPLE>; src/graph/connect.cc, connectCollNet;
// docs/collectives.md "CollNet"). Chunk j belongs to rail h = j mod R (R the server's NICs):
// its head is the GPU next to NIC h, and the heads of rail h on every server form one SHARP
// group, which reduces the chunk across the servers in the switches and multicasts the result
// back.
//   Direct: every other GPU of the server sends its part of the chunk straight to the head
//   (scatter over NVLink); once all are in, the head (which adds its own) hands the chunk to
//   the network; the result goes from the head straight to every other GPU (the broadcast and
//   gather threads).
//   Chain: the server's GPUs form a chain from the head; each adds its part to what it got
//   from the one behind it and passes it on towards the head; the result runs back down.
// All chunk by chunk: each rail's intra-server pipeline runs at most `window` chunks ahead of
// its head's network sends (NCCL_STEPS buffers per channel and connection); the SHARP groups
// keep `window` chunks outstanding each.
#include <algorithm>
#include <stdexcept>

#include "models/collectives/collective_runner.hpp"
#include "models/collectives/nccl_chunking.hpp"
#include "models/sharp/sharp_allreduce.hpp"

namespace models {

void CollectiveRunner::run_collnet(int64_t size) {
  const bool direct = current_.algorithm == CollectiveAlgorithm::CollNetDirect;
  if (sharp_ == nullptr || !spec_.collnet_available || spec_.op != CollectiveOp::AllReduce) {
    throw std::logic_error(
        "collective algorithm collnet needs an all-reduce of GPU ranks on an InfiniBand fabric "
        "with SHARP");
  }
  protocol_ = CollectiveProtocol::Simple;  // NCCL runs CollNet with Simple only (tuning.cc)
  current_.protocol = CollectiveProtocol::Simple;
  iteration_start_ = ctx_.sim.now();
  begin_timeline();
  if (!collnet_ || collnet_->direct != direct) {
    collnet_ = std::make_unique<CollNetState>();
    CollNetState& st = *collnet_;
    st.direct = direct;
    st.servers = spec_.collnet_servers;
    st.heads = static_cast<int>(st.servers.front().nic.size());
    st.window = static_cast<int64_t>(std::max(1, spec_.channels)) * std::max(1, spec_.slots);
    SharpParams params = sharp_->params();
    params.max_outstanding_chunks = static_cast<int>(std::min<int64_t>(st.window, 65'536));
    for (int h = 0; h < st.heads; ++h) {
      std::vector<uint32_t> hosts;
      for (const NvlsTreeServer& server : st.servers) hosts.push_back(server.nic[h]);
      const uint32_t g =
          sharp_->group(hosts, static_cast<uint8_t>(spec_.priority), params, /*dedicated=*/true);
      sharp_->set_gate(g, [this, h](size_t s, int64_t k) {
        collnet_result(static_cast<int>(s), k * collnet_->heads + h);
      });
      st.group.push_back(g);
    }
    st.chain.resize(st.servers.size());
    for (size_t s = 0; s < st.servers.size(); ++s) {
      const std::vector<uint32_t>& ranks = st.servers[s].ranks;
      for (int h = 0; h < st.heads; ++h) {
        // The head first, then the server's other GPUs in rank order after it.
        const auto at = std::find(ranks.begin(), ranks.end(), st.servers[s].head_rank[h]);
        std::vector<uint32_t> order(at, ranks.end());
        order.insert(order.end(), ranks.begin(), at);
        st.chain[s].push_back(std::move(order));
      }
    }
  }
  CollNetState& st = *collnet_;
  // NCCL's chunk for the call unless the collective sets one (nccl_chunking.hpp).
  const int64_t nccl = nccl_collnet_call_chunk(spec_, current_.algorithm, size);
  st.chunk_bytes = nccl > 0                ? nccl
                   : spec_.chunk_bytes > 0 ? spec_.chunk_bytes
                                           : sharp_->params().chunk_bytes;
  current_.chunk_bytes = st.chunk_bytes;
  st.size = size;
  st.chunks = (size + st.chunk_bytes - 1) / st.chunk_bytes;
  const size_t n = st.servers.size();
  const size_t ppn = st.servers.front().ranks.size();
  st.pending.assign(n * static_cast<size_t>(st.chunks), static_cast<uint16_t>(ppn - 1));
  st.released.assign(n * static_cast<size_t>(st.heads), 0);
  st.posted.assign(n * static_cast<size_t>(st.heads), 0);
  st.in_flight.reset();
  st.groups_started = static_cast<size_t>(st.heads);
  if (over_processes_) {
    in_network_running_ = true;
    in_network_open_ = 0;
    in_network_groups_done_ = 0;
    in_network_groups_ = st.groups_started;
  }
  const int64_t last = size - (st.chunks - 1) * st.chunk_bytes;
  for (int h = 0; h < st.heads; ++h) {
    // Rail h's chunks: h, h + R, ...; all whole but the call's last one.
    const int64_t count = h < st.chunks ? (st.chunks - h + st.heads - 1) / st.heads : 0;
    int64_t bytes = count * st.chunk_bytes;
    if (count > 0 && (st.chunks - 1) % st.heads == h) bytes -= st.chunk_bytes - last;
    // (A gated group's hosts send as their chunks are released: over processes, where they are.)
    sharp_->start(
        st.group[static_cast<size_t>(h)], bytes, [this] { in_network_group_done(); }, {},
        st.chunk_bytes, over_processes_);
  }
  const sim::Time now = ctx_.sim.now();
  for (size_t s = 0; s < n; ++s) {
    if (!over_processes_) {
      collnet_feed_server(static_cast<int>(s));
      continue;
    }
    // Over processes each server's GPUs post their first chunks where the server is, first
    // among the events of this time there (what a boundary event posts is every process's).
    RankAgent& a = agent(st.servers[s].ranks.front());
    if (!ctx_.sim.is_local(a.partition())) continue;
    ctx_.sim.at(sim::Scheduler::take_first_place_for(now, a), &a, kCollNetFeed, s);
  }
}

void CollectiveRunner::collnet_feed_server(int s) {
  CollNetState& st = *collnet_;
  const size_t ppn = st.servers.front().ranks.size();
  for (int h = 0; h < st.heads; ++h) {
    if (ppn == 1) {  // no GPU to wait for: each chunk goes out as the window allows
      for (int64_t j = h; j < st.chunks; j += st.heads) collnet_release(s, j);
    } else {
      collnet_feed(s, h);
    }
  }
}

int64_t CollectiveRunner::collnet_chunk_bytes(int64_t j) const {
  const CollNetState& st = *collnet_;
  return j + 1 < st.chunks ? st.chunk_bytes : st.size - (st.chunks - 1) * st.chunk_bytes;
}

// Starts rail h's chunks towards its head at server position s, as far as the window allows.
void CollectiveRunner::collnet_feed(int s, int h) {
  CollNetState& st = *collnet_;
  const size_t at = static_cast<size_t>(s) * static_cast<size_t>(st.heads) + static_cast<size_t>(h);
  const NvlsTreeServer& server = st.servers[static_cast<size_t>(s)];
  while (true) {
    const int64_t k = st.posted[at];
    const int64_t j = k * st.heads + h;
    if (j >= st.chunks || k >= st.released[at] + st.window) return;
    ++st.posted[at];
    if (st.direct) {
      for (uint32_t r : server.ranks) {
        if (r != server.head_rank[static_cast<size_t>(h)]) {
          collnet_send(s, j, r, server.head_rank[static_cast<size_t>(h)], /*up=*/true, 0);
        }
      }
    } else {
      const std::vector<uint32_t>& chain = st.chain[static_cast<size_t>(s)][static_cast<size_t>(h)];
      const int tail = static_cast<int>(chain.size()) - 1;
      collnet_send(s, j, chain[static_cast<size_t>(tail)], chain[static_cast<size_t>(tail - 1)],
                   /*up=*/true, tail - 1);
    }
  }
}

// The head at server position s has chunk j's server sum: to the network.
void CollectiveRunner::collnet_release(int s, int64_t j) {
  CollNetState& st = *collnet_;
  const int h = static_cast<int>(j % st.heads);
  const size_t at = static_cast<size_t>(s) * static_cast<size_t>(st.heads) + static_cast<size_t>(h);
  ++st.released[at];
  sharp_->release(st.group[static_cast<size_t>(h)], static_cast<size_t>(s), j / st.heads);
  if (st.servers[static_cast<size_t>(s)].ranks.size() > 1) collnet_feed(s, h);
}

// The head at server position s has chunk j's global result: out to the server's GPUs.
void CollectiveRunner::collnet_result(int s, int64_t j) {
  CollNetState& st = *collnet_;
  const int h = static_cast<int>(j % st.heads);
  const NvlsTreeServer& server = st.servers[static_cast<size_t>(s)];
  const uint32_t head = server.head_rank[static_cast<size_t>(h)];
  if (st.direct) {
    for (uint32_t r : server.ranks) {
      if (r != head) collnet_send(s, j, head, r, /*up=*/false, 0);
    }
  } else {
    const std::vector<uint32_t>& chain = st.chain[static_cast<size_t>(s)][static_cast<size_t>(h)];
    if (chain.size() > 1) collnet_send(s, j, chain[0], chain[1], /*up=*/false, 1);
  }
}

void CollectiveRunner::collnet_send(int s, int64_t j, uint32_t from, uint32_t to, bool up,
                                    int position) {
  CollNetState& st = *collnet_;
  CollNetMessage m;
  m.chunk = j;
  m.server = s;
  m.from = from;
  m.to = to;
  m.up = up;
  m.position = position;
  m.bytes = collnet_chunk_bytes(j);
  const uint32_t index = st.in_flight.add(m);
  // One connection per pair of GPUs, rail and direction, as NCCL's per-channel connections:
  // its messages in order.
  const auto rail = static_cast<uint32_t>(j % st.heads);
  const uint32_t flow = add_message_flow(
      static_cast<int>(spec_.rank_nvlink[from]), static_cast<int>(spec_.rank_nvlink[to]), m.bytes,
      connection_sport(from, to, rail | (up ? 0x1000u : 0x1800u)));
  transport_.set_owner(flow, this, static_cast<int64_t>(index) + 1);
  Tally& t = tally_.local();
  t.wire_bytes += m.bytes;
  t.nvlink_bytes += m.bytes;
  ++t.messages;
  current_.rank_data_sent[from] += m.bytes;
  note_in_network(kPostedNvlink, from, m.bytes);
  transport_.start_flow_in_order(flow);
}

bool CollectiveRunner::collnet_delivered(uint32_t flow) {
  if (!collnet_call()) return false;
  const FlowState& f = transport_.flow(flow);
  if (f.owner != this || f.owner_tag <= 0) return true;  // not ours: its only flows are the call's
  CollNetState& st = *collnet_;
  const CollNetMessage m = st.in_flight[static_cast<uint32_t>(f.owner_tag - 1)];
  current_.rank_data_received[m.to] += m.bytes;
  note_in_network(kDelivered, m.to, m.bytes);
  const size_t ppn = st.servers[static_cast<size_t>(m.server)].ranks.size();
  if (st.direct) {
    if (!m.up) return true;  // a GPU has its part of the result
    uint16_t& pending = st.pending[static_cast<size_t>(m.server) * static_cast<size_t>(st.chunks) +
                                   static_cast<size_t>(m.chunk)];
    if (--pending == 0) collnet_release(m.server, m.chunk);
    return true;
  }
  const std::vector<uint32_t>& chain =
      st.chain[static_cast<size_t>(m.server)][static_cast<size_t>(m.chunk % st.heads)];
  if (m.up) {
    if (m.position == 0) {
      collnet_release(m.server, m.chunk);
    } else {
      collnet_send(m.server, m.chunk, m.to, chain[static_cast<size_t>(m.position - 1)], true,
                   m.position - 1);
    }
  } else if (static_cast<size_t>(m.position) + 1 < ppn) {
    collnet_send(m.server, m.chunk, m.to, chain[static_cast<size_t>(m.position + 1)], false,
                 m.position + 1);
  }
  return true;
}

bool CollectiveRunner::collnet_completed(uint32_t flow) {
  if (!collnet_call()) return false;
  const FlowState& f = transport_.flow(flow);
  if (f.owner != this || f.owner_tag <= 0) return true;
  transport_.set_owner(flow, this, 0);
  in_network_message_complete();
  return true;
}

// Done when every head has every result chunk and every NVLink message is acknowledged: at
// the latest of those, which each partition noted.
void CollectiveRunner::collnet_finish() {
  CollNetState& st = *collnet_;
  for (int h = 0; h < st.heads; ++h) {
    std::vector<uint32_t> heads;
    for (const NvlsTreeServer& server : st.servers) {
      heads.push_back(server.head_rank[static_cast<size_t>(h)]);
    }
    add_in_network_counters(st.group[static_cast<size_t>(h)], heads, /*nvlink=*/false);
    note_group_done_times(st.group[static_cast<size_t>(h)]);
  }
  finish_iteration();
}

}  // namespace models
