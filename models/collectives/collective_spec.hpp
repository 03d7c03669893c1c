// What a collective workload asks for: the operation, the algorithm and NCCL-like protocol,
// the sizes to sweep (as nccl-tests does), channels and chunking. Pure data; the schedules
// (schedule.hpp) turn one size of it into messages between ranks.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "models/collectives/channel_placement.hpp"
#include "models/collectives/nccl_tuning.hpp"
#include "models/collectives/nvls_tree_run.hpp"
#include "models/sharp/sharp_params.hpp"
#include "sim/param_spec_fwd.hpp"
#include "sim/time.hpp"

namespace models {

enum class CollectiveOp { AllReduce, AllGather, ReduceScatter, AllToAll, Broadcast, SendRecv };
// Sharp: in-network reduction by the switches (models/sharp/), InfiniBand only; not a schedule
// of messages between ranks (collective_runner.hpp hands it to SharpAllReduce).
enum class CollectiveAlgorithm {
  Auto,
  Ring,
  HalvingDoubling,
  DoubleBinaryTree,
  Direct,
  Hierarchical,  // hierarchical.cpp: intra-server, per rail, intra-server again
  Sharp,
  Nvls,      // in_network_run.cpp: the GPU server's NVSwitch reduces and multicasts (NVLink SHARP)
  NvlsTree,  // nvls_tree_run.cpp: NVLS inside each server, binary trees of heads across them
  // collnet_run.cpp: NCCL's CollNet over an InfiniBand fabric's SHARP, one group per rail of
  // the servers' head NICs; inside each server the data reaches the heads directly (Direct:
  // every GPU to every head) or along a chain (Chain), and the results come back the same way.
  CollNetDirect,
  CollNetChain,
};
// NCCL protocols (NVIDIA/nccl #281, docs/references.md "Collectives"): Simple sends the data as is;
// LL128 carries 120 data bytes in every 128; LL carries 4 data bytes and a 4-byte flag per
// 8-byte line.
enum class CollectiveProtocol { Auto, Simple, LL128, LL };

const char* to_string(CollectiveOp op);
const char* to_string(CollectiveAlgorithm a);
const char* to_string(CollectiveProtocol p);
// Every value, in the order a scenario's choices list their names (to_string): the loader reads
// and the scenario schema describes "op", "algorithm" and "protocol" from these.
inline constexpr std::array kCollectiveOps{CollectiveOp::AllReduce,     CollectiveOp::AllGather,
                                           CollectiveOp::ReduceScatter, CollectiveOp::AllToAll,
                                           CollectiveOp::Broadcast,     CollectiveOp::SendRecv};
inline constexpr std::array kCollectiveAlgorithms{CollectiveAlgorithm::Auto,
                                                  CollectiveAlgorithm::Ring,
                                                  CollectiveAlgorithm::HalvingDoubling,
                                                  CollectiveAlgorithm::DoubleBinaryTree,
                                                  CollectiveAlgorithm::Direct,
                                                  CollectiveAlgorithm::Hierarchical,
                                                  CollectiveAlgorithm::Sharp,
                                                  CollectiveAlgorithm::Nvls,
                                                  CollectiveAlgorithm::NvlsTree,
                                                  CollectiveAlgorithm::CollNetDirect,
                                                  CollectiveAlgorithm::CollNetChain};
inline constexpr std::array kCollectiveProtocols{CollectiveProtocol::Simple,
                                                 CollectiveProtocol::LL128, CollectiveProtocol::LL,
                                                 CollectiveProtocol::Auto};

struct CollectiveSpec {
  CollectiveOp op = CollectiveOp::AllReduce;
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::Auto;
  CollectiveProtocol protocol = CollectiveProtocol::Simple;
  // Sizes in nccl-tests' convention (the "size" column): all-reduce and broadcast the buffer,
  // all-gather the total output, reduce-scatter the total input, all-to-all the bytes each
  // rank sends in all, send/recv the message. min, min*factor, ... up to max.
  int64_t min_bytes = 8;
  int64_t max_bytes = 8;
  int64_t factor = 2;
  int64_t type_bytes = 4;  // "float": element size; data splits on element boundaries
  int iterations = 1;      // runs per size, back to back; the table reports their mean
  // Ranks: for each rank, the transport endpoints (host numbers) it can send through; channel
  // c of a rank uses endpoint c mod count (rails).
  std::vector<std::vector<uint32_t>> rank_endpoints;
  std::vector<std::string> rank_names;
  // GPU ranks (topologies/gpu_nodes.hpp): each rank's server (-1 for a plain host) and its
  // NVLink endpoint. A message between two ranks of one server goes NVLink endpoint to NVLink
  // endpoint; any other through the channel's NIC (rank_endpoints). Empty: no GPU ranks.
  std::vector<int> rank_server;
  std::vector<uint32_t> rank_nvlink;
  // Parallel rings/trees, each with its share of the data; 0 = "auto" until the loader
  // resolves it (channel_placement.hpp: NCCL's count on GPU ranks across servers, else 1).
  int channels = 0;
  // NCCL's channel placement on multi-NIC GPU servers (channel_placement.hpp), set by the
  // loader for the ring: per channel its ring and rail; empty = rings in rank order, each
  // rank sending through its own NIC of the channel (rank_endpoints). `server_rails` [server]:
  // the NICs by rail and the GPU next to each. With `pxn`, a GPU whose channel NIC is not
  // its own first hands the data over NVLink to the GPU next to that NIC (PXN); without it,
  // the GPU's data goes to that NIC over PCIe and the host bridge.
  NcclTuning tuning;
  std::vector<ChannelLayout> ring_layouts;
  std::vector<ChannelLayout> tree_layouts;  // the double binary tree's chains and rails
  std::vector<ServerRails> server_rails;
  bool pxn = true;
  // "auto" on GPU ranks ("tuning": "nccl", their default): NCCL's tuning model picks the
  // algorithm (ring or tree) and protocol per size (nccl_tuning.hpp), NVLS from nvls_min on an
  // NVLS server; set by the loader. Not enabled: the thresholds below.
  // Pipelining grain per step: 0 = one message per step; kNcclChunk (nccl_chunking.hpp, -1)
  // = NCCL's chunk for each call's algorithm, protocol and size (the loader's "auto" on GPU
  // ranks).
  int64_t chunk_bytes = 0;
  // Chunks in flight per connection: NCCL_STEPS = 8 receive buffer slots (NCCL's
  // src/include/device.h); chunk k waits for chunk k - slots on its connection.
  int slots = 8;
  int qps = 1;      // queue pairs each message is striped over
  int root = 0;     // broadcast root rank
  sim::Time start;  // when the first size starts
  // Between two sizes, the fabric idle this long: what nccl-tests does there (an untimed call
  // of the next size, host barriers) is not simulated. At least a window of a split run
  // (Simulator::kStopGrace) for a sweep to run on threads.
  sim::Time size_gap = sim::Time(10'000'000);
  int priority = 3;  // traffic class of the messages
  int dscp = 26;
  // NCCL's software costs ("costs": "nccl", the default on GPU ranks; nccl_costs in
  // nccl_tuning.hpp): each call waits NCCL's launch latency (its tuning model's base latency
  // for the call's algorithm and protocol) before its first message, and each message waits
  // the part of NCCL's per-step latency for its link type (NVLink or network) that the
  // simulated hardware does not already take: the step latency less `nvlink_hop` or
  // `network_hop`, the unloaded delivery time of a minimal message between two GPUs of a
  // server or two servers' NICs (set when the network is built). `launch_latency` >= 0
  // replaces NCCL's launch latency (also without NCCL's costs).
  bool nccl_costs = false;
  // NCCL's per-protocol throughput of a rank (nccl_protocol_rate_gbs: its tuning model's caps
  // of LL and LL128, which the GPU's threads storing and polling flag-carrying lines keep below
  // the links' rate), shared by the rank's channels: each channel of a rank posts its next
  // message no sooner than its previous one's data at its share of the rate. Bits per second
  // of data; -1 = NCCL's model's (with `nccl_costs`, else none), 0 = no cap.
  int64_t ll_rate_bps = -1;
  int64_t ll128_rate_bps = -1;
  sim::Time launch_latency{-1};
  // Scales of NCCL's costs on this machine (rdmasim calibrate fits them on nccl-tests traces):
  // each call waits `launch_scale` x NCCL's base latency (NVLS and CollNet: their whole
  // latency), each message `step_scale` x the software part of NCCL's step latency. The
  // algorithm choice keeps NCCL's own figures, as NCCL does whatever the machine's costs.
  double launch_scale = 1;
  double step_scale = 1;
  sim::Time nvlink_hop, network_hop;
  // Software time charged before each message is posted (kernel/proxy hand-off), per
  // protocol, on top of NCCL's costs; 0 by default.
  // GPUDirect RDMA off (topology.nodes.gpudirect_rdma false): NCCL's network buffers are in
  // host memory, so the sending GPU writes a step's data there before its proxy posts the
  // send, and the receiving GPU reads it from there once it has arrived (src/transport/net.cc:
  // without GDR the buffers are host memory the kernel stores to and loads from). Each network
  // message waits its bytes twice at the GPU's PCIe rate (`staging_rate_bps`; 0 = GPUDirect
  // RDMA, or a PCIe rate not modelled). Their bandwidth is the shared DMA links' (PCIe, host
  // memory); this is their latency, one step of store-and-forward on each side.
  int64_t staging_rate_bps = 0;
  sim::Time step_latency_simple;
  sim::Time step_latency_ll128;
  sim::Time step_latency_ll;
  // "auto": all-reduce uses the double binary tree up to `tree_max_bytes`, the ring above;
  // the protocol is LL up to `ll_max_bytes`, LL128 up to `ll128_max_bytes`, Simple above
  // (the shape of NCCL's choice: latency-bound sizes favour trees and low-latency protocols).
  int64_t tree_max_bytes = 256 * 1024;
  int64_t ll_max_bytes = 16 * 1024;
  int64_t ll128_max_bytes = 4 * 1024 * 1024;
  // "auto" on GPU servers: an all-reduce whose GPU ranks span at least
  // `hierarchical_min_servers` servers with the same number, at least `hierarchical_min_local`,
  // on each uses the hierarchical algorithm (NVLink inside a server, the rails across) from
  // `hierarchical_min_bytes` up; otherwise tree/ring by `tree_max_bytes` as above.
  int hierarchical_min_servers = 2;
  int hierarchical_min_local = 2;
  int64_t hierarchical_min_bytes = 0;
  // NVLS (in_network_run.cpp): set by the loader when every rank is a GPU of one server whose
  // NVSwitch reduces (topologies/gpu_nodes.hpp); the NVSwitch's reduction rate and latency,
  // NVLS's chunk (the collective's "chunk", else NCCL_NVLS_CHUNKSIZE's 128 KiB, NVIDIA/nccl
  // src/transport/nvls.cc) and window (the collective's "slots", NCCL_STEPS).
  bool nvls_available = false;
  SharpParams nvls;
  // "auto" with "tuning": "thresholds": all-reduces from this size up run NVLS where
  // available; smaller ones keep the tree or the ring. A user's threshold; with NCCL's tuning
  // model (the default on GPU ranks) NVLS competes by its predicted time (nccl_tuning.hpp).
  int64_t nvls_min_bytes = 1024 * 1024;
  // NVLS-tree (nvls_tree_run.cpp): set by the loader when every rank is a GPU, the ranks span
  // at least two servers whose NVSwitches reduce, with more than two ranks on each and a rank
  // next to each of their NICs. Per server its ranks, NICs by rail and heads (the rank next to
  // each NIC); the NVSwitch's parameters as for NVLS, with a window of `channels` (NCCL's NVLS
  // channels: NCCL_NVLS_NCHANNELS, 16, unless given) x `slots` chunks.
  bool nvls_tree_available = false;
  SharpParams nvls_tree;
  std::vector<NvlsTreeServer> nvls_tree_servers;
  // CollNet (collnet_run.cpp): set by the loader on an InfiniBand fabric when every rank is a
  // GPU, the ranks span at least two servers with as many NICs each and at most 8 ranks each
  // (NCCL_MAX_DIRECT_ARITY + 1), and a rank sits next to each NIC. Per server its ranks, NICs
  // by rail and heads, as for NVLS-tree; the SHARP groups take infiniband.sharp's parameters
  // with a window of `channels` x `slots` chunks per head (NCCL_STEPS per channel).
  bool collnet_available = false;
  std::vector<NvlsTreeServer> collnet_servers;

  int ranks() const { return static_cast<int>(rank_endpoints.size()); }
  // Servers the ranks span (a plain host counts as one): NCCL's nNodes.
  int nodes() const;
};

// nccl-tests' bus bandwidth factor (PERFORMANCE.md): all-reduce 2(n-1)/n; all-gather,
// reduce-scatter and all-to-all (n-1)/n; broadcast and send/recv 1.
double bus_factor(CollectiveOp op, int ranks);

// The algorithm and protocol a size runs with ("auto" resolved as documented above).
// Whether the ranks are a multi-server GPU communicator that "auto" runs hierarchically.
bool auto_hierarchical_ranks(const CollectiveSpec& s);
CollectiveAlgorithm resolve_algorithm(const CollectiveSpec& s, int64_t size_bytes);
CollectiveProtocol resolve_protocol(const CollectiveSpec& s, int64_t size_bytes);

// Bytes on the wire (transport payload) for `data` bytes under a protocol; an empty step
// still sends one protocol unit (1 byte for Simple, an 8-byte LL line, a 128-byte LL128 line)
// because the receiver must see it to move on.
int64_t protocol_wire_bytes(CollectiveProtocol p, int64_t data);

// The sizes a spec sweeps, in order.
std::vector<int64_t> sweep_sizes(const CollectiveSpec& s);

// The parameters of CollectiveSpec a scenario sets beside its structure (workload.collective;
// models/collectives/collective_spec.cpp).
const sim::ParamTable<CollectiveSpec>& collective_param_table();

}  // namespace models
