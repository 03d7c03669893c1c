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
// NVLS and CollNet Direct (Simple only; their base latency is 0): hwLat NVLink and NET.
constexpr double kNvlsLatNvlink = 25.0, kNvlsLatNet = 18.0;
constexpr double kNvlsTreeLatNvlink = 25.0, kNvlsTreeLatNet = 14.0;
constexpr double kCollNetDirectLatNvlink = 3.7, kCollNetDirectLatNet = 31.0;
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

}  // namespace

void nccl_search_graph(GpuGeneration g, double nvlink_gbs, double nic_gbs, int rails, int nodes,
                       int& channels, double& bw) {
  const bool sm90 = g != GpuGeneration::Ampere;
  // NCCL counts an NVLink at 20.6 GB/s on Hopper (SM90_NVLINK_BW) for 25 GB/s each way, 20.0
  // on Ampere; Blackwell's taken at 0.8 of the link (assumed). topo.h.
  const double nvlink_share = g == GpuGeneration::Hopper ? 20.6 / 25.0 : 0.8;
  const double total = nvlink_gbs * nvlink_share;
  if (nodes <= 1) {
    bw = sm90 ? first_at_most(kSm90Intra, total) : first_at_most(kIntra, total);
    channels = std::max(1, std::min(32, static_cast<int>(total / bw)));
  } else {
    // A channel takes one NIC's bandwidth at the first speed under both the NIC and the GPU's
    // PCIe link (Gen5 x16 counted 48 GB/s, Gen4 24).
    const double pcie = sm90 ? 48.0 : 24.0;
    const double max_bw = std::min(nic_gbs, pcie);
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
  } else if (a == CollectiveAlgorithm::Sharp) {  // CollNet Direct: 2 (ppn - 1) intra + inter
    l.base_us = 2 * (ppn - 1) * kCollNetDirectLatNvlink + kCollNetDirectLatNet;
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

double nccl_model_time_us(const NcclTuning& t, CollectiveOp op, CollectiveAlgorithm a,
                          CollectiveProtocol proto, int64_t bytes) {
  const bool ring = a == CollectiveAlgorithm::Ring;
  const bool tree = a == CollectiveAlgorithm::DoubleBinaryTree;
  const bool ring_op = op == CollectiveOp::AllReduce || op == CollectiveOp::AllGather ||
                       op == CollectiveOp::ReduceScatter;
  if (!(ring && ring_op) && !(tree && op == CollectiveOp::AllReduce)) return -1;
  const int p = protocol_index(proto);
  const int m = std::max(1, t.nodes);
  const int n = std::max(2, t.ranks);
  const int ppn = std::max(1, n / m);
  const int index2 = m <= 2 ? m - 1 : 2;
  const GenerationCaps& c = caps(t.generation);
  const double ll_max = m == 1 ? c.ll_max_one_node : kLlMaxIntel[index2];
  const double bus = t.graph_channels * t.graph_bw;
  const NcclLatencies l = nccl_latencies(t, op, a, proto, bytes);
  double lat = 0, algbw = 0;
  if (ring) {
    const double bw = p == kLL ? std::min(ll_max, 0.5 * bus)
                      : p == kLL128
                          ? std::min(0.92 * bus, t.graph_channels * c.ring_ll128_per_channel)
                          : bus;
    const bool all_reduce = op == CollectiveOp::AllReduce;
    const int steps = all_reduce ? 2 * (n - 1) : n - 1;
    const int inter = m == 1 ? 0 : all_reduce ? 2 * (m - 1) : m - 1;
    algbw = bw * n / steps;
    lat = l.base_us + (steps - inter) * l.nvlink_step_us + inter * l.net_step_us;
    lat *= l.factor;
  } else {
    const double tree_bw = std::min(0.92 * bus, t.graph_channels * c.tree_per_channel[index2]);
    const double bw = p == kLL      ? std::min(tree_bw / 3.8, ll_max)
                      : p == kLL128 ? std::min(tree_bw * (m == 1 ? 7.0 / 9.0 : 120.0 / 128.0),
                                               t.graph_channels * c.tree_ll128_per_channel[index2])
                                    : tree_bw;
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
                                            CollectiveAlgorithm::Ring};
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
