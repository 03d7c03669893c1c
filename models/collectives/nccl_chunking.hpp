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
// NVLS and NVLS-tree start from NCCL_NVLS_CHUNKSIZE (128 KiB; NVLS-tree at most 64 KiB from 4
// servers up) and shrink it while the call is small against its concurrent operations
// (channels x heads: NCCL_NVLS_NCHANNELS = 16 channels, each head GPU one operation):
//   NVLS       < 64 ops chunks: 64 KiB, < 8: 32 KiB, < 2: 16 KiB
//   NVLS-tree  <  4 ops chunks: 64 KiB, < 1: 32 KiB
// (nccl_nvls_chunk_bytes).
//
// CollNet starts from the Simple step (512 KiB; Chain at most 256 KiB) and halves it while
// each channel (Direct: each channel's head) would see few chunks, `depth` being the
// algorithm's (Direct 2, 1 with one GPU a server; Chain the GPUs a server):
//   Direct  < 64 depth: to 128 KiB, then < 8 depth: to 64 KiB, then to 32 KiB
//   Chain   < 64 depth: to 128 KiB, < 8 depth: to 64 KiB, < depth: to 32 KiB
// (nccl_collnet_chunk_bytes). PAT's are not modelled. Our hierarchical,
// halving-doubling and direct schedules are not NCCL's algorithms and take no NCCL chunk.
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

// NCCL_NVLS_NCHANNELS: the channels NCCL runs NVLS and NVLS_TREE on (src/transport/nvls.cc),
// and NCCL_NVLS_CHUNKSIZE, the chunk they start from.
inline constexpr int kNcclNvlsChannels = 16;
inline constexpr int64_t kNcclNvlsChunk = 128 * 1024;

// The chunk of one NVLS (`tree` false) or NVLS-tree call of `bytes` with `heads` head GPUs a
// channel (the NVLS graph's channels) on `nodes` servers (calcCollChunking).
int64_t nccl_nvls_chunk_bytes(bool tree, int64_t bytes, int heads, int nodes);

// The chunk of one call of `s` by NVLS or NVLS-tree (`a`): NCCL's for the call's size and the
// collective's heads and servers, or 0 where the collective sets its own chunk (or `a` is
// neither).
int64_t nccl_nvls_call_chunk(const CollectiveSpec& s, CollectiveAlgorithm a, int64_t bytes);

// The chunk of one CollNet Direct (`direct`) or Chain call of `bytes` on `channels` channels
// with `heads` heads a server (Direct's nHeads) and `ppn` GPUs a server (calcCollChunking).
int64_t nccl_collnet_chunk_bytes(bool direct, int64_t bytes, int channels, int heads, int ppn);

// The chunk of one call of `s` by CollNet Direct or Chain (`a`), or 0 where the collective
// sets its own chunk (or `a` is neither).
int64_t nccl_collnet_call_chunk(const CollectiveSpec& s, CollectiveAlgorithm a, int64_t bytes);

}  // namespace models
