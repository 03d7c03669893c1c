// NCCL's pipelined double binary tree all-reduce (REFERENCES.md "Collectives"): half of the
// data goes through each of two binary trees; in each, chunks are reduced up to the root
// (a rank forwards chunk k once all its children's chunk k arrived) and broadcast back down
// (a rank forwards chunk k to its children once its parent's arrived; the root once it has
// reduced it). Up and down overlap across chunks. Every rank is interior in at most one tree,
// so each rank sends and receives about 2S in all: ≈ 2 log2(n) α + 2 S/B.
#include <stdexcept>

#include "models/collectives/schedule.hpp"

namespace models {

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
  const int n = r.ranks;
  const std::vector<int64_t> shares = split_bytes(r.size_bytes, r.channels, r.type_bytes);
  for (int c = 0; c < r.channels; ++c) {
    const auto channel = static_cast<uint32_t>(c);
    const std::vector<int64_t> halves = split_bytes(shares[c], 2, r.type_bytes);
    for (int t = 0; t < 2; ++t) {
      const std::vector<int> parent = binary_tree_parents(n, t);
      std::vector<std::vector<int>> children(n);
      int root = 0;
      for (int x = 0; x < n; ++x) {
        if (parent[x] >= 0) {
          children[parent[x]].push_back(x);
        } else {
          root = x;
        }
      }
      const int64_t chunks = chunk_count(halves[t], r.chunk_bytes);
      const std::vector<int64_t> pieces = split_bytes(halves[t], chunks, r.type_bytes);
      // up[x]: x -> parent(x) of the current chunk; down[x]: parent(x) -> x.
      std::vector<uint32_t> up(n), down(n);
      SlotWindow window(r.slots, static_cast<size_t>(2 * n));  // [x]: up, [n + x]: down
      for (int64_t k = 0; k < chunks; ++k) {
        // Reduce: leaves first is not needed for ids; dependencies are added after all exist.
        for (int x = 0; x < n; ++x) {
          if (x == root) continue;
          up[x] =
              b.add(static_cast<uint32_t>(x), static_cast<uint32_t>(parent[x]), channel, pieces[k]);
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
  }
}

}  // namespace models
