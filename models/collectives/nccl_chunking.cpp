#include "models/collectives/nccl_chunking.hpp"

#include <algorithm>

namespace models {

namespace {

constexpr int64_t kNcclSteps = 8;
constexpr int64_t kSimpleBuffer = int64_t{1} << 22;           // DEFAULT_BUFFSIZE
constexpr int64_t kLlBuffer = 8 * 512 * kNcclSteps * 16;      // lines x threads x steps x line
constexpr int64_t kLl128Buffer = 120 * 640 * kNcclSteps * 8;  // elements x threads x steps x 8 B

int log2_floor(int64_t v) {
  int l = 0;
  while (v > 1) {
    v >>= 1;
    ++l;
  }
  return l;
}

}  // namespace

int64_t nccl_chunk_bytes(const NcclChunkingInput& in) {
  const bool ring = in.algorithm == CollectiveAlgorithm::Ring;
  const bool tree = in.algorithm == CollectiveAlgorithm::DoubleBinaryTree;
  if (!ring && !tree) return 0;
  int64_t step = kSimpleBuffer / kNcclSteps;
  if (in.protocol == CollectiveProtocol::LL) step = kLlBuffer / kNcclSteps;
  if (in.protocol == CollectiveProtocol::LL128) step = kLl128Buffer / kNcclSteps;
  const bool split_steps = in.op == CollectiveOp::AllReduce || in.op == CollectiveOp::AllGather ||
                           in.op == CollectiveOp::ReduceScatter;
  const int64_t chunk_steps =
      ring && in.protocol == CollectiveProtocol::Simple && split_steps ? kNcclSteps / 2 : 1;
  int64_t chunk = step * chunk_steps;
  if (in.protocol == CollectiveProtocol::LL) chunk /= 2;
  if (in.protocol == CollectiveProtocol::LL128) chunk = chunk / 16 * 15;
  if (tree && in.protocol == CollectiveProtocol::LL128) {
    const int64_t nodes = std::max(1, in.nodes);
    const double ppn = static_cast<double>(std::max(1, in.ranks)) / static_cast<double>(nodes);
    const double steps = 1 + log2_floor(nodes) + 0.1 * ppn;
    const int64_t channels = std::max(1, in.channels);
    // Integer division on the left, as NCCL's.
    while (static_cast<double>(in.bytes / (channels * chunk)) < steps * 64 / ppn &&
           chunk > 131072) {
      chunk /= 2;
    }
    while (static_cast<double>(in.bytes / (channels * chunk)) < steps * 16 / ppn && chunk > 32768) {
      chunk /= 2;
    }
  }
  return chunk;
}

int64_t nccl_nvls_chunk_bytes(bool tree, int64_t bytes, int heads, int nodes) {
  const int64_t ops = static_cast<int64_t>(kNcclNvlsChannels) * std::max(1, heads);
  int64_t chunk = kNcclNvlsChunk;
  if (tree) {
    if (nodes >= 4) chunk = std::min<int64_t>(chunk, 65536);
    if (bytes < 4 * ops * chunk && chunk > 65536) chunk = 65536;
    if (bytes < 1 * ops * chunk && chunk > 32768) chunk = 32768;
    return chunk;
  }
  if (bytes < 64 * ops * chunk && chunk > 65536) chunk = 65536;
  if (bytes < 8 * ops * chunk && chunk > 32768) chunk = 32768;
  if (bytes < 2 * ops * chunk && chunk > 16384) chunk = 16384;
  return chunk;
}

int64_t nccl_nvls_call_chunk(const CollectiveSpec& s, CollectiveAlgorithm a, int64_t bytes) {
  if (s.chunk_bytes > 0) return 0;
  if (a == CollectiveAlgorithm::Nvls) {
    // Each channel of NCCL's NVLS graph has its own head GPU (nccl_nvls_graph).
    const int heads = s.tuning.nvls_channels > 0 ? s.tuning.nvls_channels
                                                 : static_cast<int>(s.rank_nvlink.size());
    return nccl_nvls_chunk_bytes(/*tree=*/false, bytes, heads, 1);
  }
  if (a == CollectiveAlgorithm::NvlsTree && !s.nvls_tree_servers.empty()) {
    // NVLS-tree's heads are the GPUs next to each server's NICs (one per rail).
    return nccl_nvls_chunk_bytes(/*tree=*/true, bytes,
                                 static_cast<int>(s.nvls_tree_servers.front().nic.size()),
                                 static_cast<int>(s.nvls_tree_servers.size()));
  }
  return 0;
}

int64_t nccl_collnet_chunk_bytes(bool direct, int64_t bytes, int channels, int heads, int ppn) {
  const int64_t per = std::max(1, channels) * int64_t{direct ? std::max(1, heads) : 1};
  const int64_t depth = direct ? (ppn > 1 ? 2 : 1) : std::max(1, ppn);
  int64_t chunk = kSimpleBuffer / kNcclSteps;
  if (!direct) chunk = std::min<int64_t>(chunk, 256 * 1024);
  // Integer division on the left, as NCCL's.
  while (bytes / (per * chunk) < depth * 64 && chunk > 131072) chunk /= 2;
  while (bytes / (per * chunk) < depth * 8 && chunk > 65536) chunk /= 2;
  while (bytes / (per * chunk) < (direct ? depth * 8 : depth) && chunk > 32768) chunk /= 2;
  return chunk;
}

int64_t nccl_collnet_call_chunk(const CollectiveSpec& s, CollectiveAlgorithm a, int64_t bytes) {
  const bool direct = a == CollectiveAlgorithm::CollNetDirect;
  if (s.chunk_bytes > 0 || (!direct && a != CollectiveAlgorithm::CollNetChain) ||
      s.collnet_servers.empty()) {
    return 0;
  }
  const NvlsTreeServer& first = s.collnet_servers.front();
  return nccl_collnet_chunk_bytes(direct, bytes, std::max(1, s.channels),
                                  static_cast<int>(first.nic.size()),
                                  static_cast<int>(first.ranks.size()));
}

}  // namespace models
