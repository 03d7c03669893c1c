// Algorithm "nvls_tree": NCCL's NVLS_TREE all-reduce across GPU servers (NVIDIA/nccl
// src/device/all_reduce.h, RunWorkElement<..., NCCL_ALGO_NVLS_TREE, NCCL_PROTO_SIMPLE>;
// docs/collectives.md "NVLS-tree"). Per server, every GPU pushes each chunk into the NVSwitch,
// which reduces it (multimem.ld_reduce) and hands it to the chunk's head: the GPU next to
// the chunk's rail NIC (chunk j: rail j mod R, R the server's NICs). The heads of one rail
// form a binary tree across the servers (two trees, mirrored, alternating by rail, as NCCL's
// double binary tree: every server is interior in at most one): a head waits for its own
// server's chunk and its children's partial sums, adds them and sends the sum up; the root's
// sum is the chunk's result, which goes back down the tree, and every head that has it sends
// it up to its NVSwitch, which multicasts it to every GPU of the server (multimem.st). All of
// it chunk by chunk: no phase waits for another to end.
#include <algorithm>
#include <stdexcept>

#include "models/collectives/collective_runner.hpp"
#include "models/collectives/nccl_chunking.hpp"
#include "models/sharp/sharp_allreduce.hpp"

namespace models {

void CollectiveRunner::run_nvls_tree(int64_t size) {
  if (sharp_ == nullptr || !spec_.nvls_tree_available || spec_.op != CollectiveOp::AllReduce) {
    throw std::logic_error(
        "collective algorithm nvls_tree needs an all-reduce of GPU ranks on servers with NVLS");
  }
  protocol_ = CollectiveProtocol::Simple;  // NCCL runs NVLS_TREE with Simple only (tuning.cc)
  current_.protocol = CollectiveProtocol::Simple;
  iteration_start_ = ctx_.sim.now();
  begin_timeline();
  if (!nvls_tree_) {
    nvls_tree_ = std::make_unique<NvlsTreeState>();
    NvlsTreeState& st = *nvls_tree_;
    st.servers = spec_.nvls_tree_servers;
    st.heads = static_cast<int>(st.servers.front().nic.size());
    const int n = static_cast<int>(st.servers.size());
    st.parent.resize(2);
    st.child.resize(2);
    for (int t = 0; t < 2; ++t) {
      st.parent[t] = binary_tree_parents(n, t);
      st.child[t].assign(static_cast<size_t>(n), {});
      for (int s = 0; s < n; ++s) {
        if (st.parent[t][s] >= 0) st.child[t][static_cast<size_t>(st.parent[t][s])].push_back(s);
      }
    }
  }
  NvlsTreeState& st = *nvls_tree_;
  // NCCL's chunk for the call unless the collective sets one (nccl_chunking.hpp).
  const int64_t nccl = nccl_nvls_call_chunk(spec_, CollectiveAlgorithm::NvlsTree, size);
  const int64_t chunk = nccl > 0 ? nccl : spec_.nvls_tree.chunk_bytes;
  st.chunk_bytes = chunk;
  current_.chunk_bytes = chunk;
  const SharpChunks chunks{size, chunk, 1, 0};  // chunk counts only
  st.chunks = chunks.chunks();
  st.pending.assign(st.servers.size() * static_cast<size_t>(st.chunks), 0);
  for (size_t s = 0; s < st.servers.size(); ++s) {
    for (int64_t j = 0; j < st.chunks; ++j) {
      st.pending[s * static_cast<size_t>(st.chunks) + static_cast<size_t>(j)] =
          static_cast<uint8_t>(1 + st.child[nvls_tree_tree(j)][s].size());
    }
  }
  st.in_flight.reset();
  for (size_t s = 0; s < st.servers.size(); ++s) {
    NvlsTreeServer& server = st.servers[s];
    std::vector<uint32_t> hosts;
    for (uint32_t r : server.ranks) hosts.push_back(spec_.rank_nvlink[r]);
    server.group = sharp_->group(hosts, static_cast<uint8_t>(spec_.priority), spec_.nvls_tree,
                                 /*dedicated=*/true);
    std::vector<size_t> heads;
    for (uint32_t head : server.head_rank) {
      heads.push_back(static_cast<size_t>(
          std::find(server.ranks.begin(), server.ranks.end(), head) - server.ranks.begin()));
    }
    sharp_->set_heads(server.group, heads,
                      [this, s](size_t, int64_t j) { nvls_tree_step(static_cast<int>(s), j); });
  }
  if (over_processes_) {
    in_network_running_ = true;
    in_network_open_ = 0;
    in_network_groups_done_ = 0;
    in_network_groups_ = st.servers.size();
  }
  for (size_t s = 0; s < st.servers.size(); ++s) {
    sharp_->start(
        st.servers[s].group, size, [this] { in_network_group_done(); }, {}, chunk, over_processes_);
    // Over processes each server's GPUs start where the server is.
    if (over_processes_) start_in_network_hosts(st.servers[s].group, st.servers[s].ranks);
  }
}

int CollectiveRunner::nvls_tree_tree(int64_t chunk) const {
  return static_cast<int>((chunk % nvls_tree_->heads) % 2);
}

// One of what chunk j's step at server position s waits for has arrived.
void CollectiveRunner::nvls_tree_step(int s, int64_t j) {
  NvlsTreeState& st = *nvls_tree_;
  uint8_t& pending =
      st.pending[static_cast<size_t>(s) * static_cast<size_t>(st.chunks) + static_cast<size_t>(j)];
  if (--pending > 0) return;
  const int parent = st.parent[nvls_tree_tree(j)][static_cast<size_t>(s)];
  if (parent < 0) {
    nvls_tree_result(s, j);
  } else {
    nvls_tree_send(s, parent, j, /*up=*/true);
  }
}

// Server position s's head has chunk j's result: down to its tree children, and up to its
// NVSwitch for the multicast to the server's GPUs.
void CollectiveRunner::nvls_tree_result(int s, int64_t j) {
  NvlsTreeState& st = *nvls_tree_;
  for (int c : st.child[nvls_tree_tree(j)][static_cast<size_t>(s)]) {
    nvls_tree_send(s, c, j, /*up=*/false);
  }
  sharp_->multicast(st.servers[static_cast<size_t>(s)].group, j);
}

void CollectiveRunner::nvls_tree_send(int from, int to, int64_t j, bool up) {
  NvlsTreeState& st = *nvls_tree_;
  const SharpChunks chunks{sizes_[size_index_], st.chunk_bytes, 1, 0};
  NvlsTreeMessage m;
  m.chunk = j;
  m.from = from;
  m.to = to;
  m.up = up;
  m.bytes = chunks.chunk_bytes(j);
  // From now on the collective is not done before it is acknowledged.
  const uint32_t index = st.in_flight.add(m);
  // The software time before the head posts it, as for any network message of a collective
  // (step_cost): the step latency set for Simple, and with GPUDirect RDMA off the staging
  // through host memory (the head's store before the send, the receiving head's load after
  // it). NCCL's own NVLS_TREE latency is the launch cost (nccl_tuning.cpp), not a per-step
  // one.
  const sim::Time cost = step_latency(protocol_) + staging_time(m.bytes);
  if (cost.ps > 0) {
    // The sending head's post: where its server is.
    const uint32_t head =
        st.servers[static_cast<size_t>(from)].head_rank[static_cast<size_t>(j % st.heads)];
    ctx_.sim.after(cost, &agent(head), kNvlsTreePost, index);
  } else {
    nvls_tree_post(index);
  }
}

void CollectiveRunner::nvls_tree_post(uint32_t index) {
  NvlsTreeState& st = *nvls_tree_;
  const NvlsTreeMessage& m = st.in_flight[index];
  const size_t rail = static_cast<size_t>(m.chunk % st.heads);
  const NvlsTreeServer& a = st.servers[static_cast<size_t>(m.from)];
  const NvlsTreeServer& b = st.servers[static_cast<size_t>(m.to)];
  // One connection per pair of heads and direction, as NCCL's tree connections: its
  // messages in order.
  const uint32_t flow = add_message_flow(
      static_cast<int>(a.nic[rail]), static_cast<int>(b.nic[rail]), m.bytes,
      connection_sport(a.head_rank[rail], b.head_rank[rail], static_cast<uint32_t>(rail) | 0x400u));
  // Over processes the message itself, for the receiver's process to read.
  transport_.set_owner(flow, this,
                       over_processes_ ? nvls_tree_tag(m) : static_cast<int64_t>(index) + 1);
  Tally& t = tally_.local();
  t.wire_bytes += m.bytes;
  t.network_bytes += m.bytes;
  ++t.messages;
  current_.rank_data_sent[a.head_rank[rail]] += m.bytes;
  note_in_network(kPostedNetwork, a.head_rank[rail], m.bytes);
  transport_.start_flow_in_order(flow);
}

bool CollectiveRunner::nvls_tree_delivered(uint32_t flow) {
  if (current_.algorithm != CollectiveAlgorithm::NvlsTree || !nvls_tree_) return false;
  const FlowState& f = transport_.flow(flow);
  if (f.owner != this || f.owner_tag <= 0) return true;  // not ours: its only flows are the call's
  const NvlsTreeMessage m = over_processes_
                                ? nvls_tree_message(f.owner_tag)
                                : nvls_tree_->in_flight[static_cast<uint32_t>(f.owner_tag - 1)];
  const NvlsTreeServer& b = nvls_tree_->servers[static_cast<size_t>(m.to)];
  const uint32_t head = b.head_rank[static_cast<size_t>(m.chunk % nvls_tree_->heads)];
  current_.rank_data_received[head] += m.bytes;
  note_in_network(kDelivered, head, m.bytes);
  if (m.up) {
    nvls_tree_step(m.to, m.chunk);
  } else {
    nvls_tree_result(m.to, m.chunk);
  }
  return true;
}

bool CollectiveRunner::nvls_tree_completed(uint32_t flow) {
  if (current_.algorithm != CollectiveAlgorithm::NvlsTree || !nvls_tree_) return false;
  const FlowState& f = transport_.flow(flow);
  if (f.owner != this || f.owner_tag <= 0) return true;
  transport_.set_owner(flow, this, 0);
  in_network_message_complete();
  return true;
}

// Done when every GPU has every result chunk and every network message is acknowledged: at
// the latest of those, which each partition noted.
void CollectiveRunner::nvls_tree_finish() {
  NvlsTreeState& st = *nvls_tree_;
  for (const NvlsTreeServer& server : st.servers) {
    // Messages: each chunk a GPU pushes, and (below) each multicast a head sends.
    add_in_network_counters(server.group, server.ranks, /*nvlink=*/true);
    current_.messages += static_cast<uint64_t>(sharp_->chunks(server.group).chunks());
    note_group_done_times(server.group);
  }
  finish_iteration();
}

}  // namespace models
