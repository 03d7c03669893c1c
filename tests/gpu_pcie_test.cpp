// Inside the GPU server (models/shared_dma_link.hpp): a GPU's own PCIe link caps what its NICs
// move together, and with GPUDirect RDMA off the staging host memory, crossed twice by every
// byte, bounds the server. Each oracle is the shared resource's rate, and each mechanism's
// removal lifts the bound.
#include <catch2/catch.hpp>
#include <cmath>

#include "scenario_helpers.hpp"

namespace {

// `servers` servers on rails (one leaf each), PFC on priority 3; a ring all-reduce of `size`
// over every GPU, NCCL's placement, without NCCL's software costs (the rates alone).
scen::Json servers(const scen::Json& nodes, int count, int64_t size) {
  scen::Json j;
  j["name"] = "gpu-pcie";
  scen::Json n = nodes;
  n["count"] = count;
  j["topology"] = {{"generator", "rail"},      {"nodes", n},
                   {"nodes_per_leaf", count},  {"spines", 1},
                   {"fabric_rate", "400Gbps"}, {"host_latency", "500ns"},
                   {"fabric_latency", "500ns"}};
  j["fabric"]["switch"] = {{"latency", "600ns"}, {"buffer", "32MB"}};
  j["fabric"]["pfc"] = {{"enabled", true}, {"priorities", {3}}};
  j["workload"]["collective"] = {{"op", "all_reduce"},   {"algorithm", "ring"},
                                 {"protocol", "simple"}, {"size", size},
                                 {"chunk", "512KiB"},    {"costs", "none"}};
  return j;
}

const scen::Json kOneGpuFourNics = {{"preset", "generic"},
                                    {"gpus", 1},
                                    {"nics", 4},
                                    {"nic_rate", "400Gbps"},
                                    {"nvlink_rate", "3600Gbps"},
                                    {"gpu_pcie_rate", "460Gbps"}};

models::CollectiveResult run_one(const scen::Json& j) {
  const scen::RunOutcome out = scen::run_scenario(test_support::load(j));
  REQUIRE(out.collectives.size() == 1);
  return out.collectives[0];
}

}  // namespace

TEST_CASE("a GPU driving four NICs is capped by its own PCIe link", "[mechanism][gpu][pcie]") {
  const int64_t size = int64_t{64} << 20;
  const models::CollectiveResult capped = run_one(servers(kOneGpuFourNics, 2, size));
  // 2 ranks: each GPU sends S and receives S; its link carries S each way at 460 Gb/s.
  const double link_gbyte = 460.0 / 8;
  INFO("busbw " << capped.busbw_gbps() << " GB/s, GPU link " << link_gbyte << " GB/s");
  CHECK(capped.busbw_gbps() <= link_gbyte);
  CHECK(capped.busbw_gbps() >= 0.9 * link_gbyte);
  // NCCL's 2 channels per rail: the four NICs are all in use.
  CHECK(test_support::load(servers(kOneGpuFourNics, 2, size)).collectives[0].channels == 8);
  scen::Json free = kOneGpuFourNics;
  free["gpu_pcie_rate"] = 0;
  const models::CollectiveResult uncapped = run_one(servers(free, 2, size));
  INFO("without the link: busbw " << uncapped.busbw_gbps() << " GB/s");
  CHECK(uncapped.busbw_gbps() > 3 * link_gbyte);  // four NICs' worth
}

TEST_CASE("GPUDirect RDMA off: staging crosses host memory twice each way",
          "[mechanism][gpu][pcie]") {
  const int64_t size = int64_t{64} << 20;
  // 200 GB/s of host memory per server: far below what 8 NICs move both ways, twice.
  const scen::Json staged = {
      {"preset", "dgx-h100"}, {"gpudirect_rdma", false}, {"host_memory_rate", "1600Gbps"}};
  const models::CollectiveResult r = run_one(servers(staged, 2, size));
  // Each server sends and receives network_bytes / 2; every byte crosses its memory twice.
  const double memory_bytes_per_server = 2.0 * static_cast<double>(r.network_bytes);
  const double bound_ps = memory_bytes_per_server * 8e12 / 1600e9;
  const double got = static_cast<double>(r.time.ps);
  INFO("time " << got / 1e6 << " us, memory bound " << bound_ps / 1e6 << " us");
  CHECK(got >= bound_ps);
  CHECK(got <= bound_ps / 0.85);
  // With GPUDirect RDMA the NICs read GPU memory directly: NIC-bound, far faster.
  scen::Json direct = staged;
  direct["gpudirect_rdma"] = true;
  const models::CollectiveResult d = run_one(servers(direct, 2, size));
  INFO("GPUDirect: " << static_cast<double>(d.time.ps) / 1e6 << " us");
  CHECK(static_cast<double>(d.time.ps) < 0.6 * got);
}

TEST_CASE("the presets carry their servers' PCIe layout", "[mechanism][gpu][pcie]") {
  const scen::Scenario h = test_support::load(servers({{"preset", "dgx-h100"}}, 2, 1 << 20));
  CHECK(h.fabric.topo.gpus.params.gpu_pcie_rate_bps == 460'000'000'000);
  CHECK(h.fabric.topo.gpus.params.gpudirect_rdma);
  CHECK(h.fabric.topo.gpus.params.host_memory_rate_bps == 4'915'200'000'000);
  const scen::Scenario a = test_support::load(servers({{"preset", "dgx-a100"}}, 2, 1 << 20));
  CHECK(a.fabric.topo.gpus.params.gpu_pcie_rate_bps == 230'000'000'000);
  // hgx-h100 (Azure ND H100 v5's topology: per socket four Gen5 x16 switches of one GPU and
  // one NIC): GPU g on NIC g, every link Gen5 x16, the rest as dgx-h100.
  const scen::Scenario x = test_support::load(servers({{"preset", "hgx-h100"}}, 2, 1 << 20));
  const topo::GpuCluster& xg = x.fabric.topo.gpus;
  CHECK(xg.params.gpus == 8);
  CHECK(xg.params.nics == 8);
  CHECK(xg.params.nic_rate_bps == 400'000'000'000);
  CHECK(xg.params.gpu_pcie_rate_bps == 460'000'000'000);
  CHECK(xg.nvls());
  for (int g = 0; g < 8; ++g) {
    REQUIRE(xg.nic_nodes[g].size() == 1);
    CHECK(xg.nic_nodes[g][0] == xg.server_nics[0][g]);
  }
  const models::CollectiveResult hgx = run_one(servers({{"preset", "hgx-h100"}}, 2, 16 << 20));
  const models::CollectiveResult dgx = run_one(servers({{"preset", "dgx-h100"}}, 2, 16 << 20));
  CHECK(hgx.time.ps == dgx.time.ps);
  // One GPU per NIC at Gen5 x16 leaves a 400 Gb/s NIC its rate: the link is no bottleneck.
  scen::Json h100 = {{"preset", "dgx-h100"}};
  const models::CollectiveResult with = run_one(servers(h100, 2, int64_t{64} << 20));
  h100["gpu_pcie_rate"] = 0;
  const models::CollectiveResult without = run_one(servers(h100, 2, int64_t{64} << 20));
  CHECK(with.busbw_gbps() > 0.98 * without.busbw_gbps());
}

TEST_CASE(
    "GPUDirect RDMA off: each network step waits its data written to and read from host "
    "memory",
    "[mechanism][gpu][pcie]") {
  // Two servers of one GPU and one NIC, 1 channel, one message per step: the ring all-reduce
  // of S is 2 steps of S/2 across the network, each staged twice at the GPU's PCIe rate. The
  // host memory (unlimited here) and the link are fast enough not to bound the rate: only the
  // staging's store-and-forward adds, 2 steps x 2 x (S/2) / R.
  const int64_t size = 1 << 20;
  const scen::Json node = {{"preset", "generic"},
                           {"gpus", 1},
                           {"nics", 1},
                           {"nic_rate", "400Gbps"},
                           {"nvlink_rate", "3600Gbps"},
                           {"gpu_pcie_rate", "460Gbps"},
                           {"host_memory_rate", 0}};
  auto run = [&](bool gdr) {
    scen::Json j = servers(node, 2, size);
    j["topology"]["nodes"]["gpudirect_rdma"] = gdr;
    j["workload"]["collective"]["chunk"] = 0;
    j["workload"]["collective"]["channels"] = 1;
    return run_one(j);
  };
  const models::CollectiveResult direct = run(true);
  const models::CollectiveResult staged = run(false);
  const double added = static_cast<double>(staged.time.ps - direct.time.ps);
  const double expected = 2 * 2 * (size / 2) * 8e12 / 460e9;
  INFO("direct " << direct.time.ps / 1e6 << " us, staged " << staged.time.ps / 1e6 << " us, added "
                 << added / 1e6 << " us, expected " << expected / 1e6 << " us");
  CHECK(std::abs(added - expected) / expected < 0.02);
}
