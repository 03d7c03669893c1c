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

}  // namespace models
