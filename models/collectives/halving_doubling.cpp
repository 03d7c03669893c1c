// Recursive halving-doubling all-reduce (Rabenseifner; docs/references.md "Collectives"), n a power
// of two. Reduce-scatter by recursive halving: at step i rank r exchanges with r xor n/2^(i+1)
// the half of its current block range that the partner keeps, so after log2(n) steps each rank
// holds one reduced block; the all-gather retraces the steps in reverse, doubling the range.
// 2 log2(n) steps and 2(n-1)/n of the data sent per rank. A step needs the data the previous
// step's partner sent this rank. Channels split the data; chunking does not apply.
#include <stdexcept>

#include "models/collectives/schedule.hpp"

namespace models {
namespace {

int64_t range_bytes(const std::vector<int64_t>& blocks, int lo, int hi) {
  int64_t s = 0;
  for (int i = lo; i < hi; ++i) s += blocks[i];
  return s;
}

}  // namespace

void halving_doubling_schedule(const ScheduleRequest& r, ScheduleBuilder& b) {
  const int n = r.ranks;
  if (r.op != CollectiveOp::AllReduce) {
    throw std::invalid_argument("halving-doubling runs all_reduce only");
  }
  if (n < 2 || (n & (n - 1)) != 0) {
    throw std::invalid_argument("halving-doubling needs a power-of-two number of ranks");
  }
  int levels = 0;
  while ((1 << levels) < n) ++levels;
  const std::vector<int64_t> shares = split_bytes(r.size_bytes, r.channels, r.type_bytes);
  for (int c = 0; c < r.channels; ++c) {
    const auto channel = static_cast<uint32_t>(c);
    const std::vector<int64_t> blocks = split_bytes(shares[c], n, r.type_bytes);
    // kept[i][rank]: the block range rank keeps after reduce-scatter step i.
    std::vector<std::vector<std::pair<int, int>>> kept(levels, std::vector<std::pair<int, int>>(n));
    std::vector<uint32_t> last_sent(n), sent(n);  // message ids of the previous / current step
    std::vector<std::pair<int, int>> range(n, {0, n});
    for (int i = 0; i < levels; ++i) {
      const int d = n >> (i + 1);
      for (int rank = 0; rank < n; ++rank) {
        const auto [lo, hi] = range[rank];
        const int mid = (lo + hi) / 2;
        const bool upper = (rank & d) != 0;
        const int give_lo = upper ? lo : mid, give_hi = upper ? mid : hi;
        sent[rank] = b.add(static_cast<uint32_t>(rank), static_cast<uint32_t>(rank ^ d), channel,
                           range_bytes(blocks, give_lo, give_hi));
        kept[i][rank] = upper ? std::make_pair(mid, hi) : std::make_pair(lo, mid);
      }
      for (int rank = 0; rank < n; ++rank) {
        if (i > 0) b.depend(last_sent[rank ^ (d << 1)], sent[rank]);
        range[rank] = kept[i][rank];
      }
      last_sent = sent;
    }
    int prev_d = 1;  // the last reduce-scatter partner was at distance 1
    for (int m = 0; m < levels; ++m) {
      const int d = 1 << m;
      for (int rank = 0; rank < n; ++rank) {
        const auto [lo, hi] = kept[levels - 1 - m][rank];
        sent[rank] = b.add(static_cast<uint32_t>(rank), static_cast<uint32_t>(rank ^ d), channel,
                           range_bytes(blocks, lo, hi));
      }
      for (int rank = 0; rank < n; ++rank) b.depend(last_sent[rank ^ prev_d], sent[rank]);
      last_sent = sent;
      prev_d = d;
    }
  }
}

}  // namespace models
