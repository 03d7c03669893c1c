// NCCL's tuning model (models/collectives/nccl_tuning.hpp) and `auto` on GPU ranks: the
// choice table for dgx-h100 at 1, 2 and 16 servers equals the one derived by hand from NCCL
// 2.28's constants (src/graph/tuning.cc, search.cc; docs/references.md "NCCL"):
//   graph (search.cc): 1 server 12 channels × 30 GB/s (NVLink 18 × 20.6 = 370.8 → speed 60,
//   6 channels, duplicated); across servers 8 × 48 (NIC 50, PCIe 48 → 48, one per NIC, not
//   duplicated: 48 < 50 with more than 4 channels on SM90).
//   NVLS graph: a head takes its channel twice, so c channels at s need (c + 1) s ≤ 370.8.
//   1 server: 8 channels (one per GPU) at 40 (9 × 40 = 360), bwInter raised to 60. Across
//   servers: 48 → 6 channels, 45 → 7, 40 → 8 (all: stop), bwInter raised to 48 (the NIC path).
//   1 server, ring: LL lat 6.6 + 14 × 0.6 = 15.0 µs, bw min(141, 0.5 × 360) = 141 → algbw
//     141 × 8/14 = 80.6; LL128 lat 14 + 14 × 1.9 = 40.6, bw min(0.92 × 360, 12 × 36.7) =
//     331.2 → 189.3; Simple 8.4 + 14 × 3.4 = 56.0, 360 → 205.7. Tree: LL 6.8 + 2 × 7 × 0.6 =
//     15.2 (always above the ring's 15.0 at LL's bandwidth). NVLS: lat 25, bw 8 × min(40 ×
//     0.85 × 7/8 × 2, 60) = 476 → 272.0: ring LL up to 1 MiB (28.0 µs against NVLS's 28.9),
//     NVLS from 2 MiB (32.7 against LL's 41.0) to 1 GiB (its algbw is the highest).
//   2 servers, tree (ppn 8, log2 2 = 1): LL 6.8 + 2 × (7 × 0.6 + 5.0) = 25.2 µs, bw
//     min(0.92 × 384, 8 × 41.4) = 331.2 / 3.8 = 87.2 → capped at llMax 39 → × 0.5 = 19.5
//     (× the correction factor); ring LL 6.6 + 28 × 1.0 + 2 × 2.7 = 40.0. Tree LL to 128 KiB,
//     tree LL128 (48.5 µs, 293.6 / 2 = 146.8 × 0.6) at 256 and 512 KiB (54.4 against
//     NVLS-tree's 55.1), NVLS-tree from 1 MiB: lat 25 + 2 × 14 = 53, bw 8 × min(59.5, 2 × 48,
//     57.7) = 461.6 → × 16/30 = 246.2 (57.3 µs at 1 MiB against the tree's 60.4).
//   16 servers: tree LL to 128 KiB (55.2 µs at 8 B: 6.8 + 2 × (4.2 + 4 × 5.0)), tree LL128
//     (99.5 µs, 232 / 2 = 116 × correction) to 8 MiB (179.9 against 182.7), NVLS-tree from
//     16 MiB: lat 25 + 2 × 4 × 14 = 137, bw 8 × min(59.5, 48, 45.5) = 364 → × 128/254 = 183.4
//     (228.5 µs against the tree's 260.2), to 1 GiB (the ring's 1666 µs latency).
#include <catch2/catch.hpp>
#include <tuple>

#include "models/collectives/collective_spec.hpp"
#include "scenario_helpers.hpp"

namespace {

using models::CollectiveAlgorithm;
using models::CollectiveProtocol;

std::string pick(const models::NcclTuning& t, int64_t bytes) {
  CollectiveAlgorithm a = CollectiveAlgorithm::Auto;
  CollectiveProtocol p = CollectiveProtocol::Auto;
  models::nccl_choose(t, models::CollectiveOp::AllReduce, bytes, a, p);
  return std::string(models::to_string(a)) + "/" + models::to_string(p);
}

models::NcclTuning h100(int servers) {
  models::NcclTuning t;
  t.enabled = true;
  t.nodes = servers;
  t.ranks = 8 * servers;
  models::nccl_search_graph(models::GpuGeneration::Hopper, 450, 50, 8, servers, t.graph_channels,
                            t.graph_bw);
  t.comm_channels = servers == 1 ? 24 : 16;
  models::nccl_nvls_graph(models::GpuGeneration::Hopper, 450, 8, 50, 8, servers, t.nvls_channels,
                          t.nvls_bw_intra, t.nvls_bw_inter);
  t.nvls_tree = servers > 1;
  return t;
}

// The table, by size from 8 B to 1 GiB in powers of two: the first size of each run.
std::vector<std::pair<int64_t, std::string>> runs(const models::NcclTuning& t) {
  std::vector<std::pair<int64_t, std::string>> out;
  for (int64_t b = 8; b <= (int64_t{1} << 30); b *= 2) {
    const std::string p = pick(t, b);
    if (out.empty() || out.back().second != p) out.emplace_back(b, p);
  }
  return out;
}

}  // namespace

TEST_CASE("NCCL tuning: the search graph of dgx-h100 and dgx-a100", "[unit][nccl][tuning]") {
  int channels = 0;
  double bw = 0;
  models::nccl_search_graph(models::GpuGeneration::Hopper, 450, 50, 8, 1, channels, bw);
  CHECK(channels == 12);
  CHECK(bw == 30);
  models::nccl_search_graph(models::GpuGeneration::Hopper, 450, 50, 8, 2, channels, bw);
  CHECK(channels == 8);
  CHECK(bw == 48);
  // A100: NVLink 12 × 20 = 240 → 40 × 6, duplicated; 200 Gb/s NICs behind PCIe Gen4 (24).
  models::nccl_search_graph(models::GpuGeneration::Ampere, 300, 25, 8, 1, channels, bw);
  CHECK(channels == 12);
  CHECK(bw == 20);
  models::nccl_search_graph(models::GpuGeneration::Ampere, 300, 25, 8, 4, channels, bw);
  CHECK(channels == 8);
  CHECK(bw == 24);
}

TEST_CASE("NCCL tuning: the NVLS graph of dgx-h100, 2 GPUs, dgx-a100", "[unit][nccl][tuning]") {
  // channels, bwIntra, bwInter
  using Graph = std::tuple<int, double, double>;
  auto graph = [](models::GpuGeneration g, double nvlink, int gpus, int rails, int nodes) {
    Graph out;
    models::nccl_nvls_graph(g, nvlink, gpus, 50, rails, nodes, std::get<0>(out), std::get<1>(out),
                            std::get<2>(out));
    return out;
  };
  const auto hopper = models::GpuGeneration::Hopper;
  CHECK(graph(hopper, 450, 8, 8, 1) == Graph{8, 40, 60});
  CHECK(graph(hopper, 450, 8, 8, 2) == Graph{8, 40, 48});
  // Four 400 Gb/s NICs for 8 GPUs: one channel per NIC at 48, two at 24 (8 at 24 fit NVLink).
  CHECK(graph(hopper, 450, 8, 4, 2) == Graph{8, 24, 24});
  // NVLS needs more than two GPUs, and Hopper or later.
  CHECK(std::get<0>(graph(hopper, 450, 2, 2, 1)) == 0);
  CHECK(std::get<0>(graph(models::GpuGeneration::Ampere, 300, 8, 8, 1)) == 0);
}

TEST_CASE("NCCL tuning: the dgx-h100 choice table at 1, 2 and 16 servers", "[unit][nccl][tuning]") {
  using Runs = std::vector<std::pair<int64_t, std::string>>;
  CHECK(runs(h100(1)) == Runs{{8, "ring/ll"}, {2 << 20, "nvls/simple"}});
  CHECK(runs(h100(2)) == Runs{{8, "double_binary_tree/ll"},
                              {256 << 10, "double_binary_tree/ll128"},
                              {1 << 20, "nvls_tree/simple"}});
  CHECK(runs(h100(16)) == Runs{{8, "double_binary_tree/ll"},
                               {256 << 10, "double_binary_tree/ll128"},
                               {16 << 20, "nvls_tree/simple"}});
  // Without NVLS (its graph empty: no NVSwitch reduction) the ring and the tree as before.
  models::NcclTuning plain = h100(2);
  plain.nvls_channels = 0;
  CHECK(runs(plain) == Runs{{8, "double_binary_tree/ll"},
                            {256 << 10, "double_binary_tree/ll128"},
                            {32 << 20, "ring/ll128"},
                            {128 << 20, "ring/simple"}});
  plain = h100(16);
  plain.nvls_tree = false;  // the runner has no heads for it
  CHECK(runs(plain) == Runs{{8, "double_binary_tree/ll"},
                            {256 << 10, "double_binary_tree/ll128"},
                            {128 << 20, "double_binary_tree/simple"},
                            {int64_t{1} << 30, "ring/simple"}});
  plain = h100(1);
  plain.nvls_channels = 0;
  CHECK(runs(plain) == Runs{{8, "ring/ll"}, {4 << 20, "ring/ll128"}, {64 << 20, "ring/simple"}});
  // The model's times at the hand-checked points.
  using models::CollectiveOp;
  CHECK(models::nccl_model_time_us(h100(1), CollectiveOp::AllReduce, CollectiveAlgorithm::Ring,
                                   CollectiveProtocol::LL, 8) == Approx(15.0).epsilon(1e-3));
  CHECK(models::nccl_model_time_us(h100(2), CollectiveOp::AllReduce,
                                   CollectiveAlgorithm::DoubleBinaryTree, CollectiveProtocol::LL,
                                   8) == Approx(25.2).epsilon(1e-3));
  CHECK(models::nccl_model_time_us(h100(16), CollectiveOp::AllReduce,
                                   CollectiveAlgorithm::DoubleBinaryTree, CollectiveProtocol::LL,
                                   8) == Approx(55.2).epsilon(1e-3));
  CHECK(models::nccl_model_time_us(h100(1), CollectiveOp::AllReduce, CollectiveAlgorithm::Nvls,
                                   CollectiveProtocol::Simple,
                                   2 << 20) == Approx(25 + 2097152 / (1000 * 476.0 * 8 / 14)));
  CHECK(models::nccl_model_time_us(h100(2), CollectiveOp::AllReduce, CollectiveAlgorithm::NvlsTree,
                                   CollectiveProtocol::Simple,
                                   1 << 20) == Approx(53 + 1048576 / (1000 * 461.6 * 16 / 30)));
  CHECK(models::nccl_model_time_us(h100(16), CollectiveOp::AllReduce, CollectiveAlgorithm::NvlsTree,
                                   CollectiveProtocol::Simple, 16 << 20) ==
        Approx(137 + 16777216 / (1000 * 364 * 128.0 / 254)));
  // NVLS and NVLS-tree: all-reduce, Simple; NVLS inside one server, NVLS-tree across servers.
  CHECK(models::nccl_model_time_us(h100(1), CollectiveOp::AllReduce, CollectiveAlgorithm::Nvls,
                                   CollectiveProtocol::LL128, 1 << 20) < 0);
  CHECK(models::nccl_model_time_us(h100(2), CollectiveOp::AllReduce, CollectiveAlgorithm::Nvls,
                                   CollectiveProtocol::Simple, 1 << 20) < 0);
  CHECK(models::nccl_model_time_us(h100(1), CollectiveOp::AllReduce, CollectiveAlgorithm::NvlsTree,
                                   CollectiveProtocol::Simple, 1 << 20) < 0);
  CHECK(models::nccl_model_time_us(h100(1), CollectiveOp::AllGather, CollectiveAlgorithm::Nvls,
                                   CollectiveProtocol::Simple, 1 << 20) < 0);
  // A fixed protocol or algorithm stays fixed.
  CollectiveAlgorithm a = CollectiveAlgorithm::Ring;
  CollectiveProtocol p = CollectiveProtocol::Auto;
  models::nccl_choose(h100(2), CollectiveOp::AllReduce, 8, a, p);
  CHECK(a == CollectiveAlgorithm::Ring);
  CHECK(p == CollectiveProtocol::LL);
}

TEST_CASE("NCCL tuning: auto on a 2 x dgx-h100 scenario runs what the model picks",
          "[unit][nccl][tuning]") {
  scen::Json j;
  j["name"] = "tuning";
  j["topology"] = {{"generator", "rail"},
                   {"nodes", {{"count", 2}, {"preset", "dgx-h100"}}},
                   {"nodes_per_leaf", 2},
                   {"spines", 1},
                   {"fabric_rate", "400Gbps"}};
  j["workload"]["collective"] = {{"op", "all_reduce"}, {"algorithm", "auto"}, {"protocol", "auto"},
                                 {"min", "8B"},        {"max", "64MiB"},      {"factor", 64}};
  const scen::Scenario s = test_support::load(j);
  const models::CollectiveSpec& c = s.collectives[0];
  REQUIRE(c.tuning.enabled);
  CHECK(c.tuning.nodes == 2);
  CHECK(c.tuning.ranks == 16);
  CHECK(c.tuning.graph_channels == 8);
  CHECK(c.channels == 16);
  const scen::RunOutcome out = scen::run_scenario(s);
  REQUIRE(out.collectives.size() == 4);  // 8 B, 512 B, 32 KiB, 2 MiB
  for (const auto& r : out.collectives) {
    INFO(r.size_bytes);
    CHECK(std::string(models::to_string(r.algorithm)) + "/" + models::to_string(r.protocol) ==
          pick(c.tuning, r.size_bytes));
  }
  CHECK(out.collectives[0].algorithm == CollectiveAlgorithm::DoubleBinaryTree);
  // 2 MiB: NVLS-tree, as NCCL picks it on two servers whose NVSwitches reduce.
  CHECK(c.tuning.nvls_channels == 8);
  CHECK(c.tuning.nvls_tree);
  CHECK(out.collectives[3].algorithm == CollectiveAlgorithm::NvlsTree);
  CHECK(out.collectives[3].busbw_gbps() > 0);
  // "thresholds" keeps the size thresholds (hierarchical on these ranks).
  j["workload"]["collective"]["tuning"] = "thresholds";
  const scen::Scenario t = test_support::load(j);
  CHECK_FALSE(t.collectives[0].tuning.enabled);
  CHECK(models::resolve_algorithm(t.collectives[0], 8) == CollectiveAlgorithm::Hierarchical);
  // Plain hosts: "nccl" refused with the path.
  scen::Json plain;
  plain["topology"] = test_support::star(4);
  plain["workload"]["collective"] = {{"op", "all_reduce"}, {"size", "1MiB"}, {"tuning", "nccl"}};
  try {
    (void)test_support::load(plain);
    FAIL("loaded");
  } catch (const scen::InputError& e) {
    CHECK(std::string(e.what()).find("workload.collective.tuning") != std::string::npos);
  }
}
