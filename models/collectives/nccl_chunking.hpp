// The chunk NCCL pipelines a call's data in, per algorithm, protocol and size: what
// calcCollChunking (NVIDIA/nccl src/enqueue.cc) computes before a kernel runs. A chunk is the
// data one channel moves per step of a loop; a ring's step carries at most one chunk, a tree
// pipelines chunk by chunk (schedule.hpp's chunk_bytes).
//
//   stepSize  = the protocol's buffer / NCCL_STEPS (8): Simple 4 MiB (DEFAULT_BUFFSIZE) ->
//               512 KiB; LL 8 lines x 512 threads x 8 steps x 16 B = 512 KiB -> 64 KiB;
//               LL128 120 elements x 640 threads x 8 steps x 8 B = 4,915,200 B -> 614,400 B
//   chunk     = stepSize x chunkSteps, chunkSteps = NCCL_STEPS / 2 = 4 for a Simple ring of
//               all-reduce, all-gather or reduce-scatter (collectives.h), 1 otherwise
//   LL        carries 8 data bytes in 16 (a flag per word): chunk / 2
//   LL128     carries 15 of every 16 8-byte words: chunk / 16 x 15
//   tree LL128 halves the chunk while each channel would see fewer than
//               (1 + log2 nNodes + 0.1 ppn) x 64 / ppn chunks (down to 128 KiB), then x 16
//               (down to 32 KiB)
//
// NCCL also shrinks the chunks of NVLS, NVLS-tree, CollNet and PAT; NVLS runs its own chunk
// (nvls_section), and the others are not modelled. Our hierarchical, halving-doubling and direct
// schedules are not NCCL's algorithms and take no NCCL chunk.
#pragma once

#include <cstdint>

#include "models/collectives/collective_spec.hpp"

namespace models {

// CollectiveSpec::chunk_bytes meaning "NCCL's chunk for each call".
inline constexpr int64_t kNcclChunk = -1;

struct NcclChunkingInput {
  CollectiveOp op = CollectiveOp::AllReduce;
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::Ring;
  CollectiveProtocol protocol = CollectiveProtocol::Simple;  // resolved (not Auto)
  int64_t bytes = 0;  // the call's size (nccl-tests' size column; an all-reduce's buffer)
  int channels = 1;
  int ranks = 1;
  int nodes = 1;  // servers the ranks span
};

// The chunk (data bytes) NCCL uses for one call; 0 for an algorithm NCCL does not have (one
// message per step).
int64_t nccl_chunk_bytes(const NcclChunkingInput& in);

}  // namespace models
