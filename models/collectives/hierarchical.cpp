// Hierarchical all-reduce over GPU servers (issue 5; NCCL's intra-node / inter-node split):
//   1. inside each server, a ring reduce-scatter over its l ranks (NVLink): local rank i ends
//      with segment (i + 1) mod l of the data, reduced over the server;
//   2. across servers, for each local index i, a ring all-reduce of that segment among the m
//      ranks with local index i (one per server: the same GPU of every server, so on a
//      rail-optimised fabric each of these rings stays on its rail);
//   3. inside each server, a ring all-gather of the segments (NVLink).
// Each rank sends (l-1)/l·S + 2(m-1)/m·S/l + (l-1)/l·S: the intra-server share over NVLink and
// only S/l of the data through its NIC, where a flat ring over n = l·m GPUs sends 2(n-1)/n·S,
// part of it over the NICs. Pipelined at chunk grain: each channel's share is cut into blocks
// of l chunks (one chunk per segment of the server's ring; one block when `chunk` is 0), and
// each block runs the three phases, a rank starting a block's phase once everything that
// block's previous phase sends it has arrived (a join per rank, block and phase,
// ScheduleBuilder::join). Blocks follow one another on every connection (up to `slots` in
// flight), so block b's inter-server phase overlaps block b+1's reduce-scatter and block b-1's
// all-gather: the time is about the slowest phase's plus the fill of the others for one block.
#include <algorithm>
#include <map>
#include <stdexcept>

#include "models/collectives/schedule.hpp"

namespace models {
namespace {

constexpr int64_t kNone = -1;

// Steps [first, first + steps) of the 2(n-1)-step ring all-reduce over `members` (positions
// 0..n-1; at step j position p sends segment (p - j) mod n to p + 1) on `bytes`. Every
// message of position p waits for start[p] (when not kNone). Returns, per position, a join
// that completes when every message of the phase into it has (start[p] when it has none).
// Block `block` of a phase: its messages wait, per connection, for block − slots there
// (`window`, one per phase and group of members, sized steps × n).
std::vector<int64_t> ring_phase(ScheduleBuilder& b, const ScheduleRequest& r,
                                const std::vector<uint32_t>& members, uint32_t channel,
                                int64_t bytes, int first, int steps,
                                const std::vector<int64_t>& start, int64_t block,
                                SlotWindow& window) {
  const int n = static_cast<int>(members.size());
  if (n < 2 || steps == 0) return start;
  const std::vector<int64_t> segments = split_bytes(bytes, n, r.type_bytes);
  std::vector<uint32_t> end(static_cast<size_t>(n));
  for (int p = 0; p < n; ++p) {
    end[p] = b.join(members[p]);
  }
  std::vector<uint32_t> this_chunk(static_cast<size_t>(steps) * n, 0);
  {
    const int64_t k = block;
    for (int s = 0; s < steps; ++s) {
      const int j = first + s;
      for (int p = 0; p < n; ++p) {
        const int segment = ((p - j) % n + n) % n;
        const int to = (p + 1) % n;
        const uint32_t id = b.add(members[p], members[to], channel, segments[segment]);
        const size_t at = static_cast<size_t>(s) * n + p;
        this_chunk[at] = id;
        if (s > 0) b.depend(this_chunk[static_cast<size_t>(s - 1) * n + (p - 1 + n) % n], id);
        if (start[p] != kNone) b.depend(static_cast<uint32_t>(start[p]), id);
        b.depend(id, end[to]);
        window.add(b, k, at, id);
      }
    }
  }
  return std::vector<int64_t>(end.begin(), end.end());
}

}  // namespace

void hierarchical_schedule(const ScheduleRequest& r, ScheduleBuilder& b) {
  if (r.op != CollectiveOp::AllReduce) {
    throw std::invalid_argument("the hierarchical algorithm runs all_reduce");
  }
  if (static_cast<int>(r.rank_server.size()) != r.ranks) {
    throw std::invalid_argument("the hierarchical algorithm needs the ranks' servers");
  }
  // local[s][i]: the i-th rank of the s-th server, servers and ranks in rank order.
  std::map<int, size_t> server_index;
  std::vector<std::vector<uint32_t>> local;
  for (int rank = 0; rank < r.ranks; ++rank) {
    const auto [it, fresh] = server_index.emplace(r.rank_server[rank], local.size());
    if (fresh) local.emplace_back();
    local[it->second].push_back(static_cast<uint32_t>(rank));
  }
  const int m = static_cast<int>(local.size());
  const int l = static_cast<int>(local[0].size());
  for (const auto& ranks : local) {
    if (static_cast<int>(ranks.size()) != l) {
      throw std::invalid_argument("the hierarchical algorithm needs as many ranks on every server");
    }
  }
  const std::vector<int64_t> shares = split_bytes(r.size_bytes, r.channels, r.type_bytes);
  for (int c = 0; c < r.channels; ++c) {
    const auto channel = static_cast<uint32_t>(c);
    // Blocks of l chunks: each segment of a server's ring one chunk.
    const int64_t blocks = chunk_count(shares[c], r.chunk_bytes * l);
    const std::vector<int64_t> block_bytes = split_bytes(shares[c], blocks, r.type_bytes);
    auto windows = [&](size_t groups, int steps, int n) {
      std::vector<SlotWindow> w;
      for (size_t g = 0; g < groups; ++g) w.emplace_back(r.slots, static_cast<size_t>(steps) * n);
      return w;
    };
    std::vector<SlotWindow> w1 = windows(static_cast<size_t>(m), l - 1, l);
    std::vector<SlotWindow> w2 = windows(static_cast<size_t>(l), 2 * (m - 1), m);
    std::vector<SlotWindow> w3 = windows(static_cast<size_t>(m), l - 1, l);
    for (int64_t k = 0; k < blocks; ++k) {
      const int64_t bytes = block_bytes[k];
      const std::vector<int64_t> segments = split_bytes(bytes, l, r.type_bytes);
      // Phase 1: reduce-scatter inside each server. after1[s][i]: local rank i has its segment.
      std::vector<std::vector<int64_t>> after1(static_cast<size_t>(m));
      for (int s = 0; s < m; ++s) {
        after1[s] = ring_phase(b, r, local[s], channel, bytes, 0, l - 1,
                               std::vector<int64_t>(static_cast<size_t>(l), kNone), k, w1[s]);
      }
      // Phase 2: all-reduce of segment (i + 1) mod l among the i-th ranks of all servers.
      std::vector<std::vector<int64_t>> after2(static_cast<size_t>(m),
                                               std::vector<int64_t>(static_cast<size_t>(l)));
      for (int i = 0; i < l; ++i) {
        std::vector<uint32_t> members;
        std::vector<int64_t> start;
        for (int s = 0; s < m; ++s) {
          members.push_back(local[s][i]);
          start.push_back(after1[s][i]);
        }
        const std::vector<int64_t> done = ring_phase(b, r, members, channel, segments[(i + 1) % l],
                                                     0, 2 * (m - 1), start, k, w2[i]);
        for (int s = 0; s < m; ++s) after2[s][i] = done[s];
      }
      // Phase 3: all-gather inside each server (steps l-1 .. 2l-3 of the server's ring, so
      // that local rank i starts with segment (i + 1) mod l, the one it holds).
      for (int s = 0; s < m; ++s) {
        (void)ring_phase(b, r, local[s], channel, bytes, l - 1, l - 1, after2[s], k, w3[s]);
      }
    }
  }
}

}  // namespace models
