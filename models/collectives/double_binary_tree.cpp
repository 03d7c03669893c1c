// NCCL's pipelined double binary tree all-reduce (docs/references.md "Collectives"; docs/
// collectives.md "Double binary tree"). Chunks are reduced up to the root (a rank forwards
// chunk k once all its children's chunk k arrived) and broadcast back down (a rank forwards
// chunk k to its children once its parent's arrived; the root once it has reduced it). Up and
// down overlap across chunks: no phase barrier.
//   - Flat (plain hosts, or no channel orders): half of each channel's data goes through each
//     of two binary trees over the ranks; every rank is interior in at most one tree, so each
//     sends and receives about 2S: ≈ 2 log2(n) α + 2 S/B.
//   - NCCL's trees on GPU ranks (`channel_orders`, channel_placement.hpp): inside each server a
//     chain (each GPU's parent the one before it), the chain's first GPU a node of a binary
//     tree over the servers (src/graph/connect.cc, trees.cc). With an even channel count the
//     first half of the channels run tree 0 with all of their data and the second half the
//     mirrored tree 1 (NCCL's duplicated channels); with an odd count each channel splits its
//     data over both.
#include <stdexcept>

#include "models/collectives/schedule.hpp"

namespace models {
namespace {

// One tree (parent per rank, -1 for the root) carrying `bytes`, chunked and pipelined.
void tree_pipeline(const ScheduleRequest& r, ScheduleBuilder& b, const std::vector<int>& parent,
                   int64_t bytes, uint32_t channel) {
  const int n = r.ranks;
  std::vector<std::vector<int>> children(n);
  int root = 0;
  for (int x = 0; x < n; ++x) {
    if (parent[x] >= 0) {
      children[parent[x]].push_back(x);
    } else {
      root = x;
    }
  }
  const int64_t chunks = chunk_count(bytes, r.chunk_bytes);
  const std::vector<int64_t> pieces = split_bytes(bytes, chunks, r.type_bytes);
  // up[x]: x -> parent(x) of the current chunk; down[x]: parent(x) -> x.
  std::vector<uint32_t> up(n), down(n);
  SlotWindow window(r.slots, static_cast<size_t>(2 * n));  // [x]: up, [n + x]: down
  for (int64_t k = 0; k < chunks; ++k) {
    // Ids first; dependencies are added once all of the chunk's messages exist.
    for (int x = 0; x < n; ++x) {
      if (x == root) continue;
      up[x] = b.add(static_cast<uint32_t>(x), static_cast<uint32_t>(parent[x]), channel, pieces[k]);
      down[x] =
          b.add(static_cast<uint32_t>(parent[x]), static_cast<uint32_t>(x), channel, pieces[k]);
    }
    for (int x = 0; x < n; ++x) {
      if (x == root) continue;
      for (int child : children[x]) b.depend(up[child], up[x]);
      const int p = parent[x];
      if (p == root) {
        for (int sibling : children[p]) b.depend(up[sibling], down[x]);
      } else {
        b.depend(down[p], down[x]);
      }
      window.add(b, k, static_cast<size_t>(x), up[x]);
      window.add(b, k, static_cast<size_t>(n + x), down[x]);
    }
  }
}

// NCCL's tree `tree` (0 or 1) of a channel whose server chains are `order` (servers one after
// another, each chain from the GPU next to the channel's NIC).
std::vector<int> nccl_tree_parents(const ScheduleRequest& r, const std::vector<uint32_t>& order,
                                   int tree) {
  std::vector<std::vector<uint32_t>> chains;
  for (size_t i = 0; i < order.size(); ++i) {
    if (i == 0 || r.rank_server[order[i]] != r.rank_server[order[i - 1]]) chains.emplace_back();
    chains.back().push_back(order[i]);
  }
  const std::vector<int> node_parent = binary_tree_parents(static_cast<int>(chains.size()), tree);
  std::vector<int> parent(static_cast<size_t>(r.ranks), -1);
  for (size_t node = 0; node < chains.size(); ++node) {
    const std::vector<uint32_t>& chain = chains[node];
    if (node_parent[node] >= 0) parent[chain[0]] = static_cast<int>(chains[node_parent[node]][0]);
    for (size_t i = 1; i < chain.size(); ++i) parent[chain[i]] = static_cast<int>(chain[i - 1]);
  }
  return parent;
}

}  // namespace

std::vector<int> binary_tree_parents(int ranks, int tree) {
  const int n = ranks;
  // Tree 0 by position: position p > 0 with lowest set bit b hangs below (p ^ b) | 2b, or
  // p ^ b when that is beyond the last rank; position 0 is the root.
  std::vector<int> parent_of_position(n, -1);
  for (int p = 1; p < n; ++p) {
    const int bit = p & -p;
    int up = (p ^ bit) | (bit << 1);
    if (up >= n) up = p ^ bit;
    parent_of_position[p] = up;
  }
  auto rank_of = [&](int position) {
    if (tree == 0) return position;
    return n % 2 == 1 ? (position + 1) % n : n - 1 - position;  // shifted (odd), mirrored (even)
  };
  std::vector<int> parent(n, -1);
  for (int p = 0; p < n; ++p) {
    if (parent_of_position[p] >= 0) parent[rank_of(p)] = rank_of(parent_of_position[p]);
  }
  return parent;
}

void double_binary_tree_schedule(const ScheduleRequest& r, ScheduleBuilder& b) {
  if (r.op != CollectiveOp::AllReduce) {
    throw std::invalid_argument("the double binary tree runs all_reduce only");
  }
  const std::vector<int64_t> shares = split_bytes(r.size_bytes, r.channels, r.type_bytes);
  const bool nccl = !r.channel_orders.empty() && static_cast<int>(r.rank_server.size()) == r.ranks;
  for (int c = 0; c < r.channels; ++c) {
    const auto channel = static_cast<uint32_t>(c);
    auto parents = [&](int tree) {
      if (!nccl) return binary_tree_parents(r.ranks, tree);
      return nccl_tree_parents(
          r, r.channel_orders[static_cast<size_t>(c) % r.channel_orders.size()], tree);
    };
    if (nccl && r.channels % 2 == 0) {
      tree_pipeline(r, b, parents(c < r.channels / 2 ? 0 : 1), shares[c], channel);
      continue;
    }
    const std::vector<int64_t> halves = split_bytes(shares[c], 2, r.type_bytes);
    for (int t = 0; t < 2; ++t) tree_pipeline(r, b, parents(t), halves[t], channel);
  }
}

}  // namespace models
