// CollNet all-reduce over InfiniBand SHARP (models/collectives/collnet_run.cpp), Direct and
// Chain: the time against the slowest phase plus the pipeline's fill, the bytes each GPU and
// each rail's NIC carry, busbw above the ring's, determinism and the refusals.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "models/collectives/nccl_chunking.hpp"
#include "models/collectives/nccl_tuning.hpp"
#include "scenario_helpers.hpp"

using test_support::allreduce_without_costs;
using test_support::rail_nic_link;

namespace {

// 4 GPUs and 4 NICs of 100 Gb/s a server (GPU k next to NIC k); NVLink 36 times as fast: the
// network is the slowest phase.
const scen::Json kSlowNics = {{"count", 2}, {"preset", "generic"},   {"gpus", 4},
                              {"nics", 4},  {"nic_rate", "100Gbps"}, {"nvlink_rate", "3600Gbps"}};
const scen::Json kDgxH100x2 = {{"count", 2}, {"preset", "dgx-h100"}};

scen::Json scenario(const scen::Json& nodes, const std::string& rate, const scen::Json& coll) {
  scen::Json j;
  j["name"] = "collnet";
  j["fabric"] = "infiniband";
  j["topology"] = {
      {"generator", "rail"}, {"nodes", nodes},          {"nodes_per_leaf", 2},      {"spines", 1},
      {"fabric_rate", rate}, {"host_latency", "500ns"}, {"fabric_latency", "500ns"}};
  j["infiniband"] = {{"sharp", {{"latency", "200ns"}}}};
  j["workload"]["collective"] = coll;
  return j;
}

}  // namespace

TEST_CASE("CollNet time is the busiest NIC link's time plus the pipeline fill, within 3 %",
          "[mechanism][collnet]") {
  const int64_t size = 64 << 20;
  for (const char* algorithm : {"collnet_direct", "collnet_chain"}) {
    INFO(algorithm);
    const scen::RunOutcome out = scen::run_scenario(test_support::load(
        scenario(kSlowNics, "100Gbps", allreduce_without_costs(algorithm, size))));
    REQUIRE(out.collectives.size() == 1);
    const models::CollectiveResult& r = out.collectives[0];
    CHECK(models::to_string(r.algorithm) == std::string(algorithm));
    // The slowest phase: a NIC's link, which carries its rail's share (S/4) up to the leaf's
    // aggregation node and the result back, with headers.
    double busiest_ps = 0;
    for (int server = 0; server < 2; ++server) {
      for (int rail = 0; rail < 4; ++rail) {
        for (const auto* l :
             {&rail_nic_link(out, server, rail), &rail_nic_link(out, server, rail, false)}) {
          busiest_ps = std::max(busiest_ps, static_cast<double>(l->wire_bytes) * 8e12 / 100e9);
        }
      }
    }
    // The fill: the first chunk gathered at its head over NVLink before the network starts
    // (Direct: 3 GPUs' parts into the head; Chain: 3 hops), the last one out again after it
    // ends, and one chunk's time on the NIC as the aggregation node passes whole chunks on.
    const auto chunk = static_cast<double>(r.chunk_bytes);
    CHECK(r.chunk_bytes ==
          models::nccl_collnet_chunk_bytes(
              std::string(algorithm) == "collnet_direct", size,
              test_support::load(
                  scenario(kSlowNics, "100Gbps", allreduce_without_costs(algorithm, size)))
                  .collectives[0]
                  .channels,
              4, 4));
    const double fill = chunk * 8e12 / 100e9 + 2 * 3 * chunk * 8e12 / 3600e9;
    const double expected = busiest_ps + fill;
    // Phase after phase (NVLink in, network, NVLink out) would add each GPU's 1.5 S over its
    // NVLink: about 17 % more.
    const double nvlink_ps = 1.5 * static_cast<double>(size) * 8e12 / 3600e9;
    const double got = static_cast<double>(r.time.ps);
    INFO("busiest NIC link " << busiest_ps / 1e6 << " us, expected " << expected / 1e6
                             << " us, got " << got / 1e6 << " us, serial "
                             << (busiest_ps + nvlink_ps) / 1e6 << " us");
    CHECK(got > busiest_ps);
    CHECK(std::abs(got - expected) / expected < 0.03);
    CHECK(got < 0.95 * (busiest_ps + nvlink_ps));
  }
}

TEST_CASE("CollNet: each GPU's share to its heads and back, a rail's share per NIC",
          "[mechanism][collnet]") {
  const int64_t size = 16 << 20;
  const int rails = 4;
  for (const char* algorithm : {"collnet_direct", "collnet_chain"}) {
    INFO(algorithm);
    const scen::Scenario s = test_support::load(
        scenario(kSlowNics, "100Gbps", allreduce_without_costs(algorithm, size)));
    const scen::RunOutcome out = scen::run_scenario(s);
    const models::CollectiveResult& r = out.collectives[0];
    // Every GPU heads one rail here. Direct: it sends 3/4 of S to the other heads and its
    // rail's result to the 3 others; Chain: on each other rail's chain it passes a rail's
    // share up (not being the head) and down (not being the tail). Either way 1.5 S over
    // NVLink, plus its rail's share into SHARP: and as much comes back.
    for (int rank = 0; rank < 8; ++rank) {
      INFO("rank " << rank);
      CHECK(r.rank_data_sent[rank] == size * 3 / 2 + size / rails);
      CHECK(r.rank_data_received[rank] == size * 3 / 2 + size / rails);
    }
    CHECK(r.network_bytes == 8 * (size / rails));
    CHECK(r.nvlink_bytes == 8 * (size * 3 / 2));
    // Every NIC sends the same bytes within 1 %.
    uint64_t lo = UINT64_MAX, hi = 0;
    for (int server = 0; server < 2; ++server) {
      for (int rail = 0; rail < rails; ++rail) {
        const auto& l = rail_nic_link(out, server, rail);
        lo = std::min<uint64_t>(lo, l.wire_bytes);
        hi = std::max<uint64_t>(hi, l.wire_bytes);
      }
    }
    CHECK(lo > 0);
    CHECK(static_cast<double>(hi - lo) / static_cast<double>(hi) < 0.01);
  }
}

TEST_CASE("CollNet Direct on two dgx-h100: busbw above the ring's, the same on rerun",
          "[mechanism][collnet]") {
  const int64_t size = 64 << 20;
  auto run = [&](const char* algorithm) {
    scen::Json coll = allreduce_without_costs(algorithm, size);
    coll.erase("costs");  // NCCL's costs, as the GPU servers' default
    scen::Json j = scenario(kDgxH100x2, "400Gbps", coll);
    j["infiniband"]["preset"] = "ndr";
    return scen::run_scenario(test_support::load(j));
  };
  const scen::RunOutcome direct = run("collnet_direct");
  const scen::RunOutcome ring = run("ring");
  const models::CollectiveResult& a = direct.collectives[0];
  const models::CollectiveResult& b = ring.collectives[0];
  INFO("collnet_direct busbw " << a.busbw_gbps() << " GB/s, ring " << b.busbw_gbps() << " GB/s");
  // The ring sends 2(n-1)/n of S through the NICs of a server; CollNet S/8 per rail each way,
  // and the switches reduce.
  CHECK(a.busbw_gbps() > 1.1 * b.busbw_gbps());
  const scen::RunOutcome again = run("collnet_direct");
  CHECK(again.collectives[0].time.ps == a.time.ps);
  CHECK(again.events == direct.events);
}

TEST_CASE("CollNet is refused where it cannot run", "[mechanism][collnet]") {
  // RoCE: no aggregation nodes.
  scen::Json roce =
      scenario(kSlowNics, "100Gbps", allreduce_without_costs("collnet_direct", 1 << 20));
  roce["fabric"] = "roce";
  roce.erase("infiniband");
  CHECK_THROWS_WITH(test_support::load(roce), Catch::Contains("workload.collective.algorithm") &&
                                                  Catch::Contains("infiniband"));
  // One server.
  scen::Json one =
      scenario(kSlowNics, "100Gbps", allreduce_without_costs("collnet_chain", 1 << 20));
  one["topology"]["nodes"]["count"] = 1;
  one["topology"]["nodes_per_leaf"] = 1;
  CHECK_THROWS_WITH(test_support::load(one), Catch::Contains("workload.collective.algorithm") &&
                                                 Catch::Contains("at least two GPU servers"));
  // Simple only.
  scen::Json ll =
      scenario(kSlowNics, "100Gbps", allreduce_without_costs("collnet_direct", 1 << 20));
  ll["workload"]["collective"]["protocol"] = "ll";
  CHECK_THROWS_WITH(test_support::load(ll), Catch::Contains("workload.collective.protocol"));
  // A rail's head GPU that is not a rank.
  scen::Json some =
      scenario(kSlowNics, "100Gbps", allreduce_without_costs("collnet_direct", 1 << 20));
  some["workload"]["collective"]["ranks"] = {"n0g0", "n0g1", "n0g2", "n1g0", "n1g1", "n1g2"};
  CHECK_THROWS_WITH(test_support::load(some), Catch::Contains("next to every NIC"));
  // More than 8 GPUs a server.
  scen::Json wide =
      scenario(kSlowNics, "100Gbps", allreduce_without_costs("collnet_direct", 1 << 20));
  wide["topology"]["nodes"]["gpus"] = 16;
  CHECK_THROWS_WITH(test_support::load(wide), Catch::Contains("at most 8 ranks"));
}

TEST_CASE("CollNet: NCCL's latencies, and a call pays them once", "[mechanism][collnet]") {
  // tuning.cc: Direct 2 (min(1, ppn - 1) x 3.7 + (ppn - 1) x 0.4) + 31, Chain
  // 2 (ppn - 1) x 2.8 + 30 (hwLat NVLink and NET of each, µs; base latency 0).
  models::NcclTuning t;
  t.nodes = 2;
  t.ranks = 16;
  const auto direct = models::nccl_latencies(t, models::CollectiveOp::AllReduce,
                                             models::CollectiveAlgorithm::CollNetDirect,
                                             models::CollectiveProtocol::Simple, 1 << 20);
  const auto chain = models::nccl_latencies(t, models::CollectiveOp::AllReduce,
                                            models::CollectiveAlgorithm::CollNetChain,
                                            models::CollectiveProtocol::Simple, 1 << 20);
  CHECK(direct.base_us == Approx(2 * (3.7 + 7 * 0.4) + 31));
  CHECK(chain.base_us == Approx(2 * 7 * 2.8 + 30));
  CHECK(direct.net_step_us == 0);
  CHECK(chain.nvlink_step_us == 0);
  // On two dgx-h100 an 8-byte call takes the launch and one small chunk's trip: with NCCL's
  // costs about 44 us more than without.
  auto time = [](const char* algorithm, bool costs) {
    scen::Json coll = allreduce_without_costs(algorithm, 8);
    if (costs) coll.erase("costs");
    return scen::run_scenario(test_support::load(scenario(kDgxH100x2, "400Gbps", coll)))
        .collectives[0]
        .time.ps;
  };
  CHECK(static_cast<double>(time("collnet_direct", true) - time("collnet_direct", false)) ==
        Approx(44e6).margin(1e3));
  CHECK(static_cast<double>(time("collnet_chain", true) - time("collnet_chain", false)) ==
        Approx(69.2e6).margin(1e3));
}

TEST_CASE("CollNet: a head sends a chunk only once its server's parts are in",
          "[mechanism][collnet]") {
  // One chunk a rail (4 x 32 KiB): its parts go to the head over NVLink (3 x 32 KiB at
  // 100 Gb/s into the head), then up to the leaf's aggregation node and back (32 KiB at
  // 100 Gb/s each way: it passes whole chunks on), then out to the 3 others: one after the
  // other. A head that sent before its parts were in would hide the first NVLink leg.
  scen::Json nodes = kSlowNics;
  nodes["nvlink_rate"] = "100Gbps";
  const scen::RunOutcome out = scen::run_scenario(test_support::load(
      scenario(nodes, "100Gbps", allreduce_without_costs("collnet_direct", 128 << 10))));
  const models::CollectiveResult& r = out.collectives[0];
  REQUIRE(r.chunk_bytes == 32 * 1024);
  const double leg_ps = 3 * 32.0 * 1024 * 8 * 1e12 / 100e9;
  const double network_ps = 2 * 32.0 * 1024 * 8 * 1e12 / 100e9;
  INFO("got " << r.time.ps / 1e6 << " us; NVLink in and out " << 2 * leg_ps / 1e6 << " us, network "
              << network_ps / 1e6 << " us");
  CHECK(static_cast<double>(r.time.ps) > 2 * leg_ps + network_ps);
  CHECK(static_cast<double>(r.time.ps) < 1.5 * (2 * leg_ps + network_ps));
}
