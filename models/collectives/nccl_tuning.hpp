// NCCL's tuning model (src/graph/tuning.cc, ncclTopoTuneModel and ncclTopoGetAlgoTime; the
// constants of NCCL 2.28, docs/references.md "NCCL"): per algorithm and protocol a latency and
// a bandwidth from the topology search's graph, and per size the pick with the least
// latency + bytes / bandwidth. `algorithm: auto` and `protocol: auto` on GPU ranks choose with
// it (collective_spec.cpp), between the ring and the tree as NCCL does for one communicator.
//
// What it needs of the search (src/graph/search.cc) comes from the servers' parameters
// (nccl_search_graph): the graph's channel count and bandwidth per channel.
#pragma once

#include <cstdint>

namespace models {

enum class CollectiveAlgorithm;
enum class CollectiveOp;
enum class CollectiveProtocol;

// The GPU generation, which picks NCCL's per-channel bandwidth caps and search speeds.
enum class GpuGeneration { Ampere, Hopper, Blackwell };

struct NcclTuning {
  bool enabled = false;  // on GPU ranks with "tuning": "nccl" (the default there)
  GpuGeneration generation = GpuGeneration::Hopper;
  int nodes = 1;  // servers the ranks span (nNodes)
  int ranks = 1;  // nRanks
  // The search graph: channels and GB/s per channel (bwIntra = bwInter for the ring and tree
  // graphs NCCL builds on these servers), and the communicator's channels after duplication.
  int graph_channels = 1;
  double graph_bw = 0;
  int comm_channels = 1;
  // The NVLS search graph (search.cc, pattern NVLS; nccl_nvls_graph): its channels (one head
  // GPU each) and per-channel bandwidths inside the server (GPU <-> NVSwitch) and to the NICs.
  // 0 channels: no NVLS for these ranks. NVLS runs inside one server (across servers NCCL
  // needs CollNet for it, off by default), NVLS_TREE across servers where the runner has its
  // heads (`nvls_tree`: CollectiveSpec::nvls_tree_available).
  int nvls_channels = 0;
  double nvls_bw_intra = 0;
  double nvls_bw_inter = 0;
  bool nvls_tree = false;
};

// The search graph of servers with NVLink at `nvlink_gbs` each way per GPU, `rails` NICs of
// `nic_gbs` (GB/s) each, spanning `nodes` servers: channels and GB/s per channel.
void nccl_search_graph(GpuGeneration g, double nvlink_gbs, double nic_gbs, int rails, int nodes,
                       int& channels, double& bw);

// The NVLS search graph of servers of `gpus` GPUs (the ranks on each) whose NVSwitch reduces:
// up to min(32, gpus) channels, each headed by one GPU that takes its channel's data twice
// over its NVLink, the bandwidths as NCCL's search settles them (docs/references.md "NCCL").
// Ampere has no NVLS (0 channels).
void nccl_nvls_graph(GpuGeneration g, double nvlink_gbs, int gpus, double nic_gbs, int rails,
                     int nodes, int& channels, double& bw_intra, double& bw_inter);

// NCCL's latency terms of one call (tuning.cc's latencies), µs: the call's base latency,
// the latency of a step over NVLink and of a step over the network, and the factor the ring's
// Simple all-reduce across servers multiplies them by (its plateau). The model adds them up
// per the algorithm's steps; the runner charges them as software time per call and per
// message (collective_runner.cpp). NVLS and CollNet (sharp) have no step structure here: their
// whole latency is the base. Algorithms NCCL does not run (hierarchical, halving-doubling,
// direct) take the ring's.
struct NcclLatencies {
  double base_us = 0;
  double nvlink_step_us = 0;
  double net_step_us = 0;
  double factor = 1;
};
NcclLatencies nccl_latencies(const NcclTuning& t, CollectiveOp op, CollectiveAlgorithm a,
                             CollectiveProtocol p, int64_t bytes);

// NCCL's throughput of one rank under LL or LL128, GB/s of data it sends with all its channels
// together: tuning.cc's bus bandwidth of the pair, which caps each protocol (ring: LL
// min(llMaxBw, 0.5 busBw), LL128 min(0.92 busBw, channels x perChMaxRingLL128Bw); tree: LL
// min(treeBw / 3.8, llMaxBw), LL128 min(treeBw x 7/9 or 120/128, channels x
// perChMaxTreeLL128Bw)). 0 for Simple, whose bandwidth is the links', and for NVLS, NVLS-tree,
// CollNet and direct. Algorithms NCCL does not run (hierarchical, halving-doubling) take the
// ring's.
double nccl_protocol_rate_gbs(const NcclTuning& t, CollectiveAlgorithm a, CollectiveProtocol p);

// NCCL's predicted time in µs of `bytes` of `op` by (algorithm, protocol), or a negative value
// where NCCL would not run that pair (the tree, NVLS and NVLS-tree beyond all-reduce; NVLS and
// NVLS-tree with LL or LL128, or without their graph; NVLS across servers, NVLS-tree inside
// one).
double nccl_model_time_us(const NcclTuning& t, CollectiveOp op, CollectiveAlgorithm a,
                          CollectiveProtocol p, int64_t bytes);

// The pair with the least predicted time among the tree, the ring, NVLS and NVLS-tree (the
// last three all-reduce only, NVLS and NVLS-tree where the graph has them) and LL, LL128,
// Simple, in NCCL's loop order (tree, ring, NVLS, NVLS-tree; LL, LL128, Simple; the first of
// equal times). `algorithm` / `protocol` other than Auto are kept fixed.
void nccl_choose(const NcclTuning& t, CollectiveOp op, int64_t bytes,
                 CollectiveAlgorithm& algorithm, CollectiveProtocol& protocol);

}  // namespace models
