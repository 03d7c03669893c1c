// NVLS-tree all-reduce across GPU servers (models/collectives/nvls_tree_run.cpp): the time
// against the slowest phase plus the pipeline's fill, the bytes each GPU's NVLink and each
// rail's NIC carry, busbw above the ring's, determinism and the refusals.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "scenario_helpers.hpp"
#include "sim/units.hpp"

using test_support::allreduce_without_costs;
using test_support::rail_nic_link;

namespace {

// `servers` GPU servers on a rail-optimised fabric at the NICs' rate (non-blocking).
scen::Json cluster(const scen::Json& nodes, const std::string& rate) {
  return {
      {"generator", "rail"}, {"nodes", nodes},          {"nodes_per_leaf", 2},      {"spines", 1},
      {"fabric_rate", rate}, {"host_latency", "500ns"}, {"fabric_latency", "500ns"}};
}

// 4 GPUs and 4 NICs of 100 Gb/s a server; NVLink and the NVSwitch's reduction far faster: the
// network is the slowest phase.
const scen::Json kSlowNics = {{"count", 2},
                              {"preset", "generic"},
                              {"gpus", 4},
                              {"nics", 4},
                              {"nic_rate", "100Gbps"},
                              {"nvlink_rate", "3600Gbps"},
                              {"nvls_reduction_rate", "6000Gbps"}};
const scen::Json kDgxH100x2 = {{"count", 2}, {"preset", "dgx-h100"}};

scen::Json scenario(const scen::Json& nodes, const std::string& rate, const scen::Json& coll) {
  scen::Json j;
  j["name"] = "nvls-tree";
  j["fabric"] = "roce";
  j["topology"] = cluster(nodes, rate);
  j["fabric"] = {{"switch", {{"buffer", "32MB"}}},
                 {"pfc", {{"enabled", true}, {"priorities", {3}}}}};
  j["workload"]["collective"] = coll;
  return j;
}

}  // namespace

TEST_CASE("NVLS-tree time is the busiest NIC link's time plus the pipeline fill, within 3 %",
          "[mechanism][nvls_tree]") {
  const int64_t size = 64 << 20;
  const scen::Scenario s = test_support::load(
      scenario(kSlowNics, "100Gbps", allreduce_without_costs("nvls_tree", size)));
  const scen::RunOutcome out = scen::run_scenario(s);
  REQUIRE(out.collectives.size() == 1);
  const models::CollectiveResult& r = out.collectives[0];
  CHECK(r.algorithm == models::CollectiveAlgorithm::NvlsTree);
  CHECK(r.ranks == 8);
  // The slowest phase: the busiest link of a NIC (each carries its rail's share, S/4, up or
  // down the tree, with headers; ACKs of the other direction share it).
  double busiest_ps = 0;
  for (int server = 0; server < 2; ++server) {
    for (int rail = 0; rail < 4; ++rail) {
      for (const auto* l :
           {&rail_nic_link(out, server, rail), &rail_nic_link(out, server, rail, false)}) {
        busiest_ps = std::max(busiest_ps, static_cast<double>(l->wire_bytes) * 8e12 / 100e9);
      }
    }
  }
  // The fill: the first chunk through the NVSwitch to its head before the network starts, the
  // last one back down the tree and multicast after it ends: about one chunk's time on the
  // network (NVLink is 36 times as fast) plus the latencies.
  const double chunk_ps = 128.0 * 1024 * 8e12 / 100e9;
  const double expected = busiest_ps + chunk_ps;
  const double got = static_cast<double>(r.time.ps);
  INFO("busiest NIC link " << busiest_ps / 1e6 << " us, expected " << expected / 1e6 << " us, got "
                           << got / 1e6 << " us");
  CHECK(got > busiest_ps);
  CHECK(std::abs(got - expected) / expected < 0.03);
}

TEST_CASE("NVLS-tree: S up and S down per GPU's NVLink, a rail's share per NIC, NVSwitch to head",
          "[mechanism][nvls_tree]") {
  const int64_t size = 16 << 20;
  const scen::Scenario s = test_support::load(
      scenario(kSlowNics, "100Gbps", allreduce_without_costs("nvls_tree", size)));
  const scen::RunOutcome out = scen::run_scenario(s);
  const models::CollectiveResult& r = out.collectives[0];
  const int rails = 4;
  // Each GPU pushes S into its NVSwitch and gets S back; a head (every GPU here: one NIC
  // each) also receives its rail's share from the NVSwitch (the reduced chunks) and sends it
  // back up (the result to multicast), and sends and receives its share over the network.
  for (int rank = 0; rank < 8; ++rank) {
    INFO("rank " << rank);
    CHECK(r.rank_data_sent[rank] == size + size / rails + size / rails);
    CHECK(r.rank_data_received[rank] == size + size / rails + size / rails);
  }
  // Two servers, one tree per rail: every rail carries its share once up and once down.
  CHECK(r.network_bytes == 2 * size);
  CHECK(r.nvlink_bytes == 8 * size + 8 * (size / rails));
  // Every NIC sends the same data bytes within 1 % (headers and ACKs alike).
  uint64_t lo = UINT64_MAX, hi = 0;
  const int prio = s.collectives[0].priority;
  for (int server = 0; server < 2; ++server) {
    for (int rail = 0; rail < rails; ++rail) {
      const auto& l = rail_nic_link(out, server, rail);
      lo = std::min(lo, l.class_wire_bytes[prio]);
      hi = std::max(hi, l.class_wire_bytes[prio]);
    }
  }
  CHECK(lo > 0);
  CHECK(static_cast<double>(hi - lo) / static_cast<double>(hi) < 0.01);
  // The GPU's NVLink up: S (its data) + S/4 (its result for the multicast), with headers.
  const int64_t overhead = s.nic.header_bytes + s.nic.framing_bytes;
  const models::SharpChunks all{size, 128 * 1024, s.nic.mtu, overhead};
  const auto& up = test_support::link_between(out, "n0g0", "n0_nvswitch");
  CHECK(up.class_wire_bytes[prio] == static_cast<uint64_t>(all.wire_bytes() * 5 / 4));
}

TEST_CASE("NVLS-tree on two dgx-h100: busbw above the ring's, the same on rerun",
          "[mechanism][nvls_tree]") {
  const int64_t size = 64 << 20;
  auto run = [&](const char* algorithm) {
    scen::Json coll = allreduce_without_costs(algorithm, size);
    if (std::string(algorithm) == "ring") coll["channels"] = 16;
    return scen::run_scenario(test_support::load(scenario(kDgxH100x2, "400Gbps", coll)));
  };
  const scen::RunOutcome tree = run("nvls_tree");
  const scen::RunOutcome ring = run("ring");
  const models::CollectiveResult& a = tree.collectives[0];
  const models::CollectiveResult& b = ring.collectives[0];
  INFO("nvls_tree busbw " << a.busbw_gbps() << " GB/s, ring " << b.busbw_gbps() << " GB/s");
  // The ring crosses the network with 2(n-1)/n of S per NIC; NVLS-tree with S/8 per rail each
  // way, and the NVSwitch reduces inside the server.
  CHECK(a.busbw_gbps() > 1.1 * b.busbw_gbps());
  const scen::RunOutcome again = run("nvls_tree");
  CHECK(again.collectives[0].time.ps == a.time.ps);
  CHECK(again.events == tree.events);
  // Its channels are NCCL's 16 NVLS channels, each `slots` chunks in flight: with one channel
  // the window (8 chunks of 128 KiB) is shorter than a chunk's round trip across the servers.
  CHECK(test_support::load(
            scenario(kDgxH100x2, "400Gbps", allreduce_without_costs("nvls_tree", size)))
            .collectives[0]
            .channels == 16);
  scen::Json one = allreduce_without_costs("nvls_tree", size);
  one["channels"] = 1;
  const scen::RunOutcome narrow =
      scen::run_scenario(test_support::load(scenario(kDgxH100x2, "400Gbps", one)));
  INFO("one channel: busbw " << narrow.collectives[0].busbw_gbps() << " GB/s");
  CHECK(narrow.collectives[0].busbw_gbps() < 0.8 * a.busbw_gbps());
}

TEST_CASE("NVLS-tree is refused where it cannot run", "[mechanism][nvls_tree]") {
  // One server: NCCL runs NVLS_TREE only across servers.
  scen::Json one = scenario(kSlowNics, "100Gbps", allreduce_without_costs("nvls_tree", 1 << 20));
  one["topology"]["nodes"]["count"] = 1;
  one["topology"]["nodes_per_leaf"] = 1;
  CHECK_THROWS_WITH(test_support::load(one), Catch::Contains("workload.collective.algorithm") &&
                                                 Catch::Contains("at least two GPU servers"));
  // An NVSwitch that does not reduce.
  scen::Json a100 = scenario({{"count", 2}, {"preset", "dgx-a100"}}, "200Gbps",
                             allreduce_without_costs("nvls_tree", 1 << 20));
  CHECK_THROWS_WITH(test_support::load(a100), Catch::Contains("NVSwitch reduces"));
  // Simple only.
  scen::Json ll = scenario(kSlowNics, "100Gbps", allreduce_without_costs("nvls_tree", 1 << 20));
  ll["workload"]["collective"]["protocol"] = "ll";
  CHECK_THROWS_WITH(test_support::load(ll), Catch::Contains("workload.collective.protocol"));
  // A rail's head GPU that is not a rank.
  scen::Json some = scenario(kSlowNics, "100Gbps", allreduce_without_costs("nvls_tree", 1 << 20));
  some["workload"]["collective"]["ranks"] = {"n0g0", "n0g1", "n0g2", "n1g0", "n1g1", "n1g2"};
  CHECK_THROWS_WITH(test_support::load(some), Catch::Contains("next to every NIC"));
}

TEST_CASE("NVLS-tree on 3 and 4 servers: every server's share crosses each tree edge once each way",
          "[mechanism][nvls_tree]") {
  const int64_t size = 4 << 20;
  for (int servers : {3, 4}) {
    scen::Json nodes = kSlowNics;
    nodes["count"] = servers;
    scen::Json j = scenario(nodes, "100Gbps", allreduce_without_costs("nvls_tree", size));
    j["topology"]["nodes_per_leaf"] = servers;
    const scen::Scenario s = test_support::load(j);
    const scen::RunOutcome out = scen::run_scenario(s);
    const models::CollectiveResult& r = out.collectives[0];
    INFO(servers << " servers");
    CHECK(r.ranks == 4 * servers);
    // A tree of m servers has m - 1 edges; each rail's share S/4 crosses each once up and once
    // down: 2 (m - 1) S over the 4 rails.
    CHECK(r.network_bytes == 2 * (servers - 1) * size);
    for (int rank = 0; rank < r.ranks; ++rank) {
      // Every GPU got the whole result back from its NVSwitch (S), a head its share too.
      CHECK(r.rank_data_received[rank] >= size + size / 4);
    }
  }
}

TEST_CASE("NVLS-tree with GPUDirect RDMA off: each network message is staged through host memory",
          "[mechanism][nvls_tree]") {
  // One chunk per rail (4 x 128 KiB): on 2 servers each rail's chunk crosses the network
  // twice, up to the root and back down, one after the other. Staged, each waits its bytes
  // twice at the GPU's PCIe rate before it is posted (the head's store, the other head's load).
  const int64_t size = 4 * 128 * 1024;
  auto run = [&](bool gdr) {
    scen::Json nodes = kSlowNics;
    nodes["gpu_pcie_rate"] = "460Gbps";
    nodes["gpudirect_rdma"] = gdr;
    scen::Json collective = allreduce_without_costs("nvls_tree", size);
    collective["chunk"] = "128KiB";  // one chunk per rail (NCCL's would be 32 KiB here)
    return scen::run_scenario(test_support::load(scenario(nodes, "100Gbps", collective)));
  };
  const scen::RunOutcome direct = run(true);
  const scen::RunOutcome staged = run(false);
  const int64_t stage_ps = sim::serialization_time(128 * 1024, 460'000'000'000).ps;
  const int64_t extra = staged.collectives[0].time.ps - direct.collectives[0].time.ps;
  INFO("staged " << staged.collectives[0].time.ps << " ps, direct " << direct.collectives[0].time.ps
                 << " ps, one store or load " << stage_ps << " ps");
  CHECK(std::abs(extra - 4 * stage_ps) <= 1000);
}
