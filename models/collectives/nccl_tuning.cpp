#include "models/collectives/nccl_tuning.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "models/collectives/collective_spec.hpp"

namespace models {
namespace {

// Index of a protocol in NCCL's tables: LL, LL128, Simple.
constexpr int kLL = 0, kLL128 = 1, kSimple = 2;

// tuning.cc (2.28): base latency of a call and per-step hardware latency, µs.
constexpr std::array<double, 3> kBaseLatTree = {6.8, 14.0, 8.4};
constexpr std::array<double, 3> kBaseLatRing = {6.6, 14.0, 8.4};
constexpr std::array<double, 3> kNvlinkLatTree = {0.6, 1.25, 4.0};
constexpr std::array<double, 3> kNvlinkLatRing = {0.6, 1.9, 3.4};
constexpr std::array<double, 3> kNetLatTree = {5.0, 8.5, 14.0};
constexpr std::array<double, 3> kNetLatRing = {2.7, 4.0, 14.0};
// NVLS and CollNet (Simple only; their base latency is 0): hwLat NVLink and NET.
constexpr double kNvlsLatNvlink = 25.0, kNvlsLatNet = 18.0;
constexpr double kNvlsTreeLatNvlink = 25.0, kNvlsTreeLatNet = 14.0;
constexpr double kCollNetDirectLatNvlink = 3.7, kCollNetDirectLatNet = 31.0;
constexpr double kCollNetChainLatNvlink = 2.8, kCollNetChainLatNet = 30.0;
// CollNet Direct's "arity serialization latency" per GPU a head serves, µs.
constexpr double kCollNetDirectArity = 0.4;
// netOverhead on an Intel (or other non-AMD) host, ×3 for Simple, multi-node only.
constexpr double kNetOverhead = 1.0;

// Per-generation caps, GB/s; columns 1 node, 2 nodes, more (index2).
struct GenerationCaps {
  double ll_max_one_node;                        // llMaxBws[generation][0]
  double ring_ll128_per_channel;                 // perChMaxRingLL128Bws
  std::array<double, 3> tree_ll128_per_channel;  // perChMaxTreeLL128Bws
  std::array<double, 3> tree_per_channel;        // perChMaxTreeBws
};
const GenerationCaps& caps(GpuGeneration g) {
  static const GenerationCaps ampere{87.7, 20.0, {20.0, 20.0, 20.0}, {24.0, 23.6, 17.8}};
  static const GenerationCaps hopper{141.0, 36.7, {36.7, 36.7, 29.0}, {38.7, 41.4, 36.0}};
  static const GenerationCaps blackwell{282.0, 40.0, {55.6, 31.67, 20.0}, {70.0, 42.8, 24.0}};
  return g == GpuGeneration::Ampere ? ampere : g == GpuGeneration::Hopper ? hopper : blackwell;
}
// NVLS: nvlsEfficiency (Hopper 0.85, Blackwell 0.74; none before Hopper) and the NVLS_TREE
// per-channel caps perChMaxNVLSTreeBws (1 node / 2 nodes / more; NVLS_TREE never runs on one).
double nvls_efficiency(GpuGeneration g) {
  return g == GpuGeneration::Hopper ? 0.85 : g == GpuGeneration::Blackwell ? 0.74 : 0.0;
}
double nvls_tree_cap(GpuGeneration g, int index2) {
  static constexpr std::array<double, 3> hopper = {0.0, 57.7, 45.5};
  static constexpr std::array<double, 3> blackwell = {0.0, 96.0, 80.0};
  return g == GpuGeneration::Blackwell ? blackwell[index2] : hopper[index2];
}
// NCCL_MAX_NVLS_ARITY: the NVLS graph's channels at most (one head GPU each).
constexpr int kMaxNvlsArity = 32;

// Multi-node LL cap: the host CPU's row (Intel: {39, 39, 20.4}), not the GPU's.
constexpr std::array<double, 3> kLlMaxIntel = {39.0, 39.0, 20.4};

// treeCorrectionFactor[protocol][log2(bytes >> 6)] (23 entries).
constexpr std::array<std::array<double, 23>, 3> kTreeCorrection = {{
    {1, 1, 1, 1, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1, 1, 1, 1},
    {1, 1, 1, 1, 1, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1, 1},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9},
}};

int log2i(int64_t v) {
  int l = 0;
  while (v > 1) {
    v >>= 1;
    ++l;
  }
  return l;
}

int protocol_index(CollectiveProtocol p) {
  return p == CollectiveProtocol::LL ? kLL : p == CollectiveProtocol::LL128 ? kLL128 : kSimple;
}

// search.cc speed arrays (GB/s): SM90 and later, and before.
constexpr std::array<double, 11> kSm90Intra = {60, 50, 40, 30, 24, 20, 15, 12, 11, 6, 3};
constexpr std::array<double, 17> kSm90Inter = {48, 45, 42, 40, 30,  24,  22,   20,  17.5,
                                               15, 12, 6,  3,  2.4, 1.2, 0.24, 0.12};
constexpr std::array<double, 13> kIntra = {40, 30, 20, 18, 15, 12, 10, 9, 7, 6, 5, 4, 3};
constexpr std::array<double, 19> kInter = {48, 30, 28, 24, 20, 18,  15,  12,   10,  9,
                                           7,  6,  5,  4,  3,  2.4, 1.2, 0.24, 0.12};

template <size_t N>
double first_at_most(const std::array<double, N>& speeds, double limit) {
  for (double s : speeds) {
    if (s <= limit) return s;
  }
  return speeds.back();
}

// NCCL counts an NVLink at 20.6 GB/s on Hopper (SM90_NVLINK_BW) for 25 GB/s each way, 20.0 on
// Ampere; Blackwell's taken at 0.8 of the link (assumed). topo.h.
double nccl_nvlink_gbs(GpuGeneration g, double nvlink_gbs) {
  return nvlink_gbs * (g == GpuGeneration::Hopper ? 20.6 / 25.0 : 0.8);
}

// A GPU's PCIe link as NCCL counts it: Gen5 x16 48 GB/s (SM90 on), Gen4 24.
double nccl_pcie_gbs(GpuGeneration g) {
  return g != GpuGeneration::Ampere ? 48.0 : 24.0;
}

}  // namespace

void nccl_search_graph(GpuGeneration g, double nvlink_gbs, double nic_gbs, int rails, int nodes,
                       int& channels, double& bw) {
  const bool sm90 = g != GpuGeneration::Ampere;
  const double total = nccl_nvlink_gbs(g, nvlink_gbs);
  if (nodes <= 1) {
    bw = sm90 ? first_at_most(kSm90Intra, total) : first_at_most(kIntra, total);
    channels = std::max(1, std::min(32, static_cast<int>(total / bw)));
  } else {
    // A channel takes one NIC's bandwidth at the first speed under both the NIC and the GPU's
    // PCIe link.
    const double max_bw = std::min(nic_gbs, nccl_pcie_gbs(g));
    bw = sm90 ? first_at_most(kSm90Inter, max_bw) : first_at_most(kInter, max_bw);
    const int per_nic = std::max(1, static_cast<int>(nic_gbs / bw));
    channels = std::max(1, std::min(32, rails * per_nic));
  }
  // ncclTopoDupChannels: twice the channels at half the bandwidth, unless the bandwidth is
  // below 25 GB/s or (SM90 and later) below 50 with more than 4 channels.
  if (bw >= 25 && !(sm90 && bw < 50 && channels > 4)) {
    channels *= 2;
    bw /= 2;
  }
}

void nccl_nvls_graph(GpuGeneration g, double nvlink_gbs, int gpus, double nic_gbs, int rails,
                     int nodes, int& channels, double& bw_intra, double& bw_inter) {
  channels = 0;
  bw_intra = bw_inter = 0;
  if (g == GpuGeneration::Ampere || gpus < 3) return;  // NVLS: SM90 on, more than two GPUs
  const double total = nccl_nvlink_gbs(g, nvlink_gbs);
  const int max_channels = std::min(kMaxNvlsArity, gpus);
  // A channel's head GPU takes the channel's data twice over its NVLink (ncclTopoSearchTryNvls
  // follows NVSwitch -> GPU and GPU -> NVSwitch at the graph's bwIntra, twice for the head),
  // every other GPU once: c channels at s fit when (c + 1) s is within the GPU's NVLink.
  const auto fits = [&](int c, double s) { return (c + 1) * s <= total + 1e-9; };
  // The speeds tried, fastest first: the intra-server array on one server, the inter-server
  // one across servers (the SM90 arrays for Hopper and Blackwell, assumed for Blackwell).
  const double* speeds = nodes <= 1 ? kSm90Intra.data() : kSm90Inter.data();
  const size_t count = nodes <= 1 ? kSm90Intra.size() : kSm90Inter.size();
  size_t i = 0;
  if (nodes <= 1) {
    // One server: every GPU heads a channel (minChannels = maxChannels), at the first speed
    // where they all fit.
    while (i + 1 < count && !fits(max_channels, speeds[i])) ++i;
    if (!fits(max_channels, speeds[i])) return;
    channels = max_channels;
    bw_intra = speeds[i];
    // Second pass: bwInter is raised while below twice bwIntra (nothing inside one server
    // carries it).
    bw_inter = bw_intra;
    while (bw_inter < 2 * bw_intra && i > 0) bw_inter = speeds[--i];
    return;
  }
  // Across servers each channel also enters a head from a NIC at bwInter (= bwIntra during the
  // first pass), within the GPU's path to the NIC; a NIC carries as many channels as fit its
  // rate. The search keeps the graph with more channels, or more channels x bandwidth, lowering
  // the speed while no graph exists or the next speed is above 0.49 of the best's, and stops at
  // a graph with every channel.
  const double max_bw = std::min(nic_gbs, nccl_pcie_gbs(g));
  const auto channels_at = [&](double s) {
    const int by_nics = rails * static_cast<int>(nic_gbs / s + 1e-9);
    const int by_nvlink = static_cast<int>(total / s + 1e-9) - 1;
    return std::max(0, std::min({max_channels, by_nics, by_nvlink}));
  };
  while (i + 1 < count && speeds[i] > max_bw) ++i;
  size_t best = count;
  for (; i < count; ++i) {
    if (best < count && speeds[i] / speeds[best] <= 0.49) break;
    const int c = channels_at(speeds[i]);
    if (c > channels || (c > 0 && c * speeds[i] > channels * bw_intra)) {
      channels = c;
      bw_intra = speeds[i];
      best = i;
    }
    if (channels == max_channels) break;
  }
  if (channels == 0) return;
  // Second pass: bwInter raised (channels fixed) while below twice bwIntra and the NICs and the
  // GPUs' paths to them still carry every channel.
  bw_inter = bw_intra;
  for (size_t k = best; k > 0 && bw_inter < 2 * bw_intra; --k) {
    const double next = speeds[k - 1];
    if (next > max_bw || rails * static_cast<int>(nic_gbs / next + 1e-9) < channels) break;
    bw_inter = next;
  }
}

NcclLatencies nccl_latencies(const NcclTuning& t, CollectiveOp op, CollectiveAlgorithm a,
                             CollectiveProtocol proto, int64_t bytes) {
  const int p = protocol_index(proto);
  const int m = std::max(1, t.nodes);
  const int n = std::max(2, t.ranks);
  const int ppn = std::max(1, n / m);
  NcclLatencies l;
  if (a == CollectiveAlgorithm::Nvls) {  // hwLat NVLink NVLS, + NET NVLS across servers
    l.base_us = kNvlsLatNvlink + (m > 1 ? kNvlsLatNet : 0.0);
  } else if (a == CollectiveAlgorithm::NvlsTree) {  // NVLink + 2 log2(nNodes) x NET (tuning.cc)
    int log2_nodes = 0;
    while ((2 << log2_nodes) <= m) ++log2_nodes;
    l.base_us = kNvlsTreeLatNvlink + 2.0 * log2_nodes * kNvlsTreeLatNet;
  } else if (a == CollectiveAlgorithm::Sharp || a == CollectiveAlgorithm::CollNetDirect) {
    // CollNet Direct: 2 (min(1, ppn - 1) intra + 0.4 (ppn - 1)) + inter (tuning.cc); "sharp"
    // (every rank a SHARP member) takes it too.
    l.base_us =
        2 * (std::min(1, ppn - 1) * kCollNetDirectLatNvlink + (ppn - 1) * kCollNetDirectArity) +
        kCollNetDirectLatNet;
  } else if (a == CollectiveAlgorithm::CollNetChain) {  // 2 (ppn - 1) intra + inter
    l.base_us = 2 * (ppn - 1) * kCollNetChainLatNvlink + kCollNetChainLatNet;
  } else if (a == CollectiveAlgorithm::DoubleBinaryTree) {
    l.base_us = kBaseLatTree[p];
    l.nvlink_step_us = kNvlinkLatTree[p];
    l.net_step_us = kNetLatTree[p];
  } else {
    l.base_us = kBaseLatRing[p];
    l.nvlink_step_us = kNvlinkLatRing[p];
    if (m > 1) l.nvlink_step_us = std::max(l.nvlink_step_us, kNetOverhead * (p == kSimple ? 3 : 1));
    l.net_step_us = kNetLatRing[p];
    // Multi-node ring Simple all-reduce beyond 64 bytes a rank and channel: ×1.4.
    if (p == kSimple && m > 1 && op == CollectiveOp::AllReduce &&
        bytes / (static_cast<int64_t>(t.comm_channels) * n) >= 64) {
      l.factor = 1.4;
    }
  }
  return l;
}

namespace {

// tuning.cc's bus bandwidth of the ring or the tree under protocol index p, GB/s.
double protocol_bus_bw(const NcclTuning& t, bool tree, int p) {
  const int m = std::max(1, t.nodes);
  const int index2 = m <= 2 ? m - 1 : 2;
  const GenerationCaps& c = caps(t.generation);
  const double ll_max = m == 1 ? c.ll_max_one_node : kLlMaxIntel[index2];
  const double bus = t.graph_channels * t.graph_bw;
  if (!tree) {
    return p == kLL      ? std::min(ll_max, 0.5 * bus)
           : p == kLL128 ? std::min(0.92 * bus, t.graph_channels * c.ring_ll128_per_channel)
                         : bus;
  }
  const double tree_bw = std::min(0.92 * bus, t.graph_channels * c.tree_per_channel[index2]);
  return p == kLL      ? std::min(tree_bw / 3.8, ll_max)
         : p == kLL128 ? std::min(tree_bw * (m == 1 ? 7.0 / 9.0 : 120.0 / 128.0),
                                  t.graph_channels * c.tree_ll128_per_channel[index2])
                       : tree_bw;
}

}  // namespace

double nccl_protocol_rate_gbs(const NcclTuning& t, CollectiveAlgorithm a, CollectiveProtocol p) {
  const int index = protocol_index(p);
  if (index == kSimple || t.graph_bw <= 0) return 0;
  switch (a) {
    case CollectiveAlgorithm::DoubleBinaryTree:
      return protocol_bus_bw(t, true, index);
    case CollectiveAlgorithm::Ring:
    case CollectiveAlgorithm::Hierarchical:
    case CollectiveAlgorithm::HalvingDoubling:
      return protocol_bus_bw(t, false, index);
    default:
      return 0;
  }
}

double nccl_model_time_us(const NcclTuning& t, CollectiveOp op, CollectiveAlgorithm a,
                          CollectiveProtocol proto, int64_t bytes) {
  const bool ring = a == CollectiveAlgorithm::Ring;
  const bool tree = a == CollectiveAlgorithm::DoubleBinaryTree;
  const bool ring_op = op == CollectiveOp::AllReduce || op == CollectiveOp::AllGather ||
                       op == CollectiveOp::ReduceScatter;
  const int p = protocol_index(proto);
  const int m = std::max(1, t.nodes);
  const int n = std::max(2, t.ranks);
  const int ppn = std::max(1, n / m);
  const int index2 = m <= 2 ? m - 1 : 2;
  if (a == CollectiveAlgorithm::Nvls || a == CollectiveAlgorithm::NvlsTree) {
    const bool nvls = a == CollectiveAlgorithm::Nvls;
    const double efficiency = nvls_efficiency(t.generation);
    if (op != CollectiveOp::AllReduce || p != kSimple || t.nvls_channels < 2 || efficiency <= 0 ||
        (nvls && m != 1) || (!nvls && (m < 2 || !t.nvls_tree))) {
      return -1;
    }
    // Per channel: the NVSwitch side at bwIntra x nvlsEfficiency less one channel's share,
    // doubled (the all-reduce pipelines its reduce and its multicast), against bwInter
    // (doubled for NVLS-tree on two servers) and NVLS-tree's cap.
    const int c = t.nvls_channels;
    const double intra = t.nvls_bw_intra * efficiency * (c - 1) / c * 2.0;
    const double inter = t.nvls_bw_inter * (!nvls && m <= 2 ? 2.0 : 1.0);
    double bw = std::min(intra, inter);
    if (!nvls) bw = std::min(bw, nvls_tree_cap(t.generation, index2));
    const double algbw = c * bw * n / (2.0 * (n - 1));
    return nccl_latencies(t, op, a, proto, bytes).base_us +
           static_cast<double>(bytes) / (1000.0 * algbw);
  }
  if (!(ring && ring_op) && !(tree && op == CollectiveOp::AllReduce)) return -1;
  const NcclLatencies l = nccl_latencies(t, op, a, proto, bytes);
  const double bw = protocol_bus_bw(t, tree, p);
  double lat = 0, algbw = 0;
  if (ring) {
    const bool all_reduce = op == CollectiveOp::AllReduce;
    const int steps = all_reduce ? 2 * (n - 1) : n - 1;
    const int inter = m == 1 ? 0 : all_reduce ? 2 * (m - 1) : m - 1;
    algbw = bw * n / steps;
    lat = l.base_us + (steps - inter) * l.nvlink_step_us + inter * l.net_step_us;
    lat *= l.factor;
  } else {
    algbw = bw * 0.5;
    lat = l.base_us + 2 * ((ppn - 1) * l.nvlink_step_us + log2i(m) * l.net_step_us);
    const int log_size = log2i(bytes >> 6);
    if (log_size < 23) algbw *= kTreeCorrection[p][log_size];
  }
  return lat + static_cast<double>(bytes) / (1000.0 * algbw);
}

void nccl_choose(const NcclTuning& t, CollectiveOp op, int64_t bytes,
                 CollectiveAlgorithm& algorithm, CollectiveProtocol& protocol) {
  const CollectiveAlgorithm algorithms[] = {CollectiveAlgorithm::DoubleBinaryTree,
                                            CollectiveAlgorithm::Ring, CollectiveAlgorithm::Nvls,
                                            CollectiveAlgorithm::NvlsTree};
  const CollectiveProtocol protocols[] = {CollectiveProtocol::LL, CollectiveProtocol::LL128,
                                          CollectiveProtocol::Simple};
  double best = -1;
  CollectiveAlgorithm best_a =
      algorithm == CollectiveAlgorithm::Auto ? CollectiveAlgorithm::Ring : algorithm;
  CollectiveProtocol best_p =
      protocol == CollectiveProtocol::Auto ? CollectiveProtocol::Simple : protocol;
  for (CollectiveAlgorithm a : algorithms) {
    if (algorithm != CollectiveAlgorithm::Auto && a != algorithm) continue;
    for (CollectiveProtocol p : protocols) {
      if (protocol != CollectiveProtocol::Auto && p != protocol) continue;
      const double time = nccl_model_time_us(t, op, a, p, bytes);
      if (time >= 0 && (best < 0 || time < best)) {
        best = time;
        best_a = a;
        best_p = p;
      }
    }
  }
  algorithm = best_a;
  protocol = best_p;
}

}  // namespace models
