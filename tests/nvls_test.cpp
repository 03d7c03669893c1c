// NVLS (NVLink SHARP) all-reduce inside one GPU server (models/collectives/in_network_run.cpp): the
// time against the pipelined formula, bus bandwidth above the ring's and above the NVLink rate,
// each GPU's NVLink bytes (S each way against the ring's 2(G-1)/G·S), either fabric, the `auto`
// choice, determinism and the refusals.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>

#include "models/collectives/nccl_chunking.hpp"
#include "scenario_helpers.hpp"
#include "sim/units.hpp"

namespace {

// One GPU server on a one-leaf fabric (the NICs are unused: NVLS stays inside the server).
scen::Json server(const scen::Json& nodes) {
  const int gpus = nodes.contains("gpus") ? nodes["gpus"].get<int>() : 8;
  return {{"generator", "leaf-spine"},
          {"nodes", nodes},
          {"leaves", 1},
          {"spines", 1},
          {"hosts_per_leaf", gpus}};
}

const scen::Json kDgxH100 = {{"count", 1}, {"preset", "dgx-h100"}};
// 4 GPUs whose NVSwitch reduces faster than a GPU's NVLink: the links are the bottleneck.
const scen::Json kFourFast = {{"count", 1},
                              {"preset", "generic"},
                              {"gpus", 4},
                              {"nics", 4},
                              {"nic_rate", "400Gbps"},
                              {"nvlink_rate", "3600Gbps"},
                              {"nvls_reduction_rate", "6000Gbps"}};

scen::Json nvls_scenario(const scen::Json& nodes, const scen::Json& collective,
                         const char* fabric = "roce") {
  scen::Json j;
  j["name"] = "nvls";
  j["fabric"] = fabric;
  j["topology"] = server(nodes);
  j["workload"]["collective"] = collective;
  return j;
}

// The pipeline of NVLS on the NVSwitch (docs/references.md "Collectives", the SHARP formula with
// one level): T = S/B_eff + fill, B_eff = min(B, R) (B the NVLink rate, on wire bytes: payload and
// headers; R the reduction rate, on payload). In detail: the reduction of the last packet ends
// at the later of (all of S in at B, then that packet reduced at R) and (the first packet in,
// then all of S reduced at R); before, a packet's way in (cable, NVSwitch latency, its last bit:
// cut-through); after, the NVSwitch's NVLS latency, the last chunk's multicast down at B, the
// cable and the GPU's receive latency. The chunk is NCCL's for the call's size
// (nccl_chunking.hpp), and the reduction unit also pays the per-chunk cost on each chunk.
double pipeline_ps(const scen::Scenario& s, int64_t size) {
  const topo::GpuNodeParams& g = s.fabric.topo.gpus.params;
  const auto& c = s.collectives[0];
  const double B = static_cast<double>(g.nvlink_rate_bps);
  const double R = static_cast<double>(g.nvls_reduction_rate_bps);
  const int64_t overhead = s.nic.header_bytes + s.nic.framing_bytes;
  const int64_t nccl = models::nccl_nvls_call_chunk(c, models::CollectiveAlgorithm::Nvls, size);
  const int64_t chunk = nccl > 0 ? nccl : c.nvls.chunk_bytes;
  const models::SharpChunks all{size, chunk, s.nic.mtu, overhead};
  const models::SharpChunks last{all.chunk_bytes(all.chunks() - 1), chunk, s.nic.mtu, overhead};
  const double mtu = static_cast<double>(std::min(s.nic.mtu, size));
  const double per_chunk = static_cast<double>(g.nvls_chunk_cost_ps);
  const double bulk = std::max(static_cast<double>(all.wire_bytes()) * 8e12 / B + mtu * 8e12 / R,
                               (mtu + static_cast<double>(overhead)) * 8e12 / B +
                                   static_cast<double>(size) * 8e12 / R +
                                   static_cast<double>(all.chunks()) * per_chunk);
  return bulk + 2.0 * static_cast<double>(g.nvlink_latency_ps) +
         static_cast<double>(g.nvswitch_latency_ps + g.nvls_latency_ps) +
         static_cast<double>(last.wire_bytes()) * 8e12 / B +
         static_cast<double>(s.nic.rx_latency.ps);
}

models::CollectiveResult run_one(const scen::Scenario& s) {
  const scen::RunOutcome out = scen::run_scenario(s);
  REQUIRE(out.collectives.size() == 1);
  return out.collectives[0];
}

}  // namespace

TEST_CASE("NVLS all-reduce time is S/B_eff plus the pipeline fill, within 2 %",
          "[mechanism][nvls]") {
  struct Case {
    const scen::Json* nodes;
    int gpus;
    int64_t size;
  };
  // dgx-h100: the reduction (its rate and per-chunk cost) is the bottleneck; the 4-GPU server:
  // NVLink is.
  const Case cases[] = {{&kDgxH100, 8, 4 << 20},
                        {&kDgxH100, 8, 32 << 20},
                        {&kFourFast, 4, 4 << 20},
                        {&kFourFast, 4, 32 << 20}};
  for (const Case& c : cases) {
    const scen::Scenario s = test_support::load(nvls_scenario(
        *c.nodes,
        {{"op", "all_reduce"}, {"algorithm", "nvls"}, {"size", c.size}, {"costs", "none"}}));
    const models::CollectiveResult r = run_one(s);
    CHECK(r.algorithm == models::CollectiveAlgorithm::Nvls);
    CHECK(r.ranks == c.gpus);
    const double expected = pipeline_ps(s, c.size);
    const double got = static_cast<double>(r.time.ps);
    const topo::GpuNodeParams& g = s.fabric.topo.gpus.params;
    // The reduction's rate on NCCL's chunk for this size, its per-chunk cost included.
    const double chunk = static_cast<double>(
        models::nccl_nvls_call_chunk(s.collectives[0], models::CollectiveAlgorithm::Nvls, c.size));
    const double reduction = chunk * 8 /
                             (chunk * 8 / static_cast<double>(g.nvls_reduction_rate_bps) +
                              static_cast<double>(g.nvls_chunk_cost_ps) * 1e-12);
    const double b_eff = std::min(static_cast<double>(g.nvlink_rate_bps), reduction);
    INFO(c.gpus << " GPUs, " << c.size << " B: formula " << expected / 1e6 << " us, got "
                << got / 1e6 << " us, S/B_eff " << static_cast<double>(c.size) * 8e6 / b_eff
                << " us");
    CHECK(std::abs(got - expected) / expected < 0.02);
    // The bandwidth term dominates: algbw is B_eff less headers and the fill.
    CHECK(r.algbw_gbps() < b_eff / 8e9);
    CHECK(r.algbw_gbps() > 0.9 * b_eff / 8e9);
  }
}

TEST_CASE("NVLS: S up and S down per GPU, busbw above the ring's and above the NVLink rate",
          "[mechanism][nvls]") {
  // On NCCL's 128 KiB chunks (its chunk for calls from 1 GiB; smaller calls run smaller, slower
  // chunks, nccl_chunking.hpp), at a size the test can afford.
  const int64_t size = 32 << 20;
  const int n = 8;
  auto run = [&](const char* algorithm) {
    const scen::Scenario s =
        test_support::load(nvls_scenario(kDgxH100, {{"op", "all_reduce"},
                                                    {"algorithm", algorithm},
                                                    {"size", size},
                                                    {"chunk", "128KiB"},
                                                    {"costs", "none"}}));  // the rates alone
    return std::make_pair(s, scen::run_scenario(s));
  };
  const auto [s, nvls] = run("nvls");
  const auto [s_ring, ring] = run("ring");
  const models::CollectiveResult& a = nvls.collectives[0];
  const models::CollectiveResult& b = ring.collectives[0];
  const int prio = s.collectives[0].priority;
  const models::SharpChunks chunks{size, s.collectives[0].nvls.chunk_bytes, s.nic.mtu,
                                   s.nic.header_bytes + s.nic.framing_bytes};
  for (int r = 0; r < n; ++r) {
    CHECK(a.rank_data_sent[r] == size);
    CHECK(a.rank_data_received[r] == size);
    CHECK(b.rank_data_sent[r] == 2 * (n - 1) * size / n);
    // The GPU's NVLink, both ways: S plus headers under NVLS; the ring's 2(n-1)/n·S (and ACKs).
    const std::string gpu = "n0g" + std::to_string(r);
    const auto& up = test_support::link_between(nvls, gpu, "n0_nvswitch");
    const auto& down = test_support::link_between(nvls, "n0_nvswitch", gpu);
    CHECK(up.class_wire_bytes[prio] == static_cast<uint64_t>(chunks.wire_bytes()));
    CHECK(down.class_wire_bytes[prio] == static_cast<uint64_t>(chunks.wire_bytes()));
    const auto& ring_up = test_support::link_between(ring, gpu, "n0_nvswitch");
    const auto& ring_down = test_support::link_between(ring, "n0_nvswitch", gpu);
    for (const auto* l : {&ring_up, &ring_down}) {
      const double ratio = static_cast<double>(up.class_wire_bytes[prio]) /
                           static_cast<double>(l->class_wire_bytes[prio]);
      INFO(gpu << ": nvls " << up.class_wire_bytes[prio] << " B, ring " << l->class_wire_bytes[prio]
               << " B");
      CHECK(ratio > 0.55);  // n / (2(n-1)) = 0.571
      CHECK(ratio < 0.58);
    }
  }
  CHECK(a.nvlink_bytes == int64_t{n} * size);
  CHECK(a.network_bytes == 0);
  // busbw (nccl-tests' 2(n-1)/n factor) above the ring's, and above what one direction of
  // NVLink carries (450 GB/s): only the in-switch reduction gets there (the real trace: ~480).
  INFO("nvls busbw " << a.busbw_gbps() << " GB/s, ring " << b.busbw_gbps() << " GB/s");
  CHECK(a.busbw_gbps() > b.busbw_gbps());
  CHECK(a.busbw_gbps() > 450.0);
  CHECK(b.busbw_gbps() < 450.0);
}

TEST_CASE("NVLS runs alike on either fabric and is identical on rerun", "[mechanism][nvls]") {
  const scen::Json c = {{"op", "all_reduce"},
                        {"algorithm", "nvls"},
                        {"min", "256KiB"},
                        {"max", "4MiB"},
                        {"factor", 4}};
  const scen::Scenario roce = test_support::load(nvls_scenario(kDgxH100, c, "roce"));
  // NVLink keeps its own credits and buffers on either fabric (scenarios/builder/
  // build_nvlink.hpp); the fabric's VL buffer below is the fabric's alone.
  scen::Json ib_json = nvls_scenario(kDgxH100, c, "infiniband");
  ib_json["infiniband"]["vl_buffer"] = "1MiB";
  const scen::Scenario ib = test_support::load(ib_json);
  const scen::RunOutcome a = scen::run_scenario(roce);
  const scen::RunOutcome b = scen::run_scenario(roce);
  const scen::RunOutcome i = scen::run_scenario(ib);
  REQUIRE(a.collectives.size() == 3);
  REQUIRE(i.collectives.size() == 3);
  for (size_t k = 0; k < a.collectives.size(); ++k) {
    CHECK(a.collectives[k].time == b.collectives[k].time);
    CHECK(a.collectives[k].algorithm == models::CollectiveAlgorithm::Nvls);
    CHECK(i.collectives[k].algorithm == models::CollectiveAlgorithm::Nvls);
    // InfiniBand's credits share the NVLink links with the data (8-byte flow-control packets).
    const double ra = static_cast<double>(a.collectives[k].time.ps);
    const double ri = static_cast<double>(i.collectives[k].time.ps);
    INFO("size " << a.collectives[k].size_bytes << ": roce " << ra / 1e6 << " us, infiniband "
                 << ri / 1e6 << " us");
    CHECK(std::abs(ri - ra) / ra < 0.02);
  }
  CHECK(a.results.dump() == b.results.dump());
  CHECK(a.counters.dump() == b.counters.dump());
}

TEST_CASE("auto picks NVLS where NCCL's model does, or from nvls_min up with thresholds",
          "[mechanism][nvls]") {
  scen::Json c = {{"op", "all_reduce"}, {"algorithm", "auto"}, {"protocol", "auto"},
                  {"min", "64KiB"},     {"max", "4MiB"},       {"factor", 4},
                  {"nvls_min", "1MiB"}};
  const scen::RunOutcome h100 = scen::run_scenario(test_support::load(nvls_scenario(kDgxH100, c)));
  REQUIRE(h100.collectives.size() == 4);  // 64 KiB, 256 KiB, 1 MiB, 4 MiB
  // NCCL's tuning model on one server: the ring with LL to 1 MiB, NVLS from 2 MiB
  // (nccl_tuning_test.cpp); nvls_min is the thresholds' knob.
  for (int k = 0; k < 3; ++k) {
    CHECK(h100.collectives[k].algorithm == models::CollectiveAlgorithm::Ring);
    CHECK(h100.collectives[k].protocol == models::CollectiveProtocol::LL);
  }
  CHECK(h100.collectives[3].algorithm == models::CollectiveAlgorithm::Nvls);  // 4 MiB
  CHECK(h100.collectives[3].protocol == models::CollectiveProtocol::Simple);
  // "tuning": "thresholds": NVLS from nvls_min up.
  c["tuning"] = "thresholds";
  const scen::Scenario t = test_support::load(nvls_scenario(kDgxH100, c));
  CHECK(models::resolve_algorithm(t.collectives[0], 512 << 10) !=
        models::CollectiveAlgorithm::Nvls);
  CHECK(models::resolve_algorithm(t.collectives[0], 1 << 20) == models::CollectiveAlgorithm::Nvls);
  c.erase("tuning");
  // No NVLS on A100's NVSwitch (the ring). Across servers NCCL's model picks NVLS-tree at
  // 4 MiB (NVLS itself needs one server), the thresholds the hierarchical all-reduce.
  const scen::RunOutcome a100 = scen::run_scenario(
      test_support::load(nvls_scenario({{"count", 1}, {"preset", "dgx-a100"}}, c)));
  REQUIRE(a100.collectives.size() == 4);
  CHECK(a100.collectives[3].algorithm == models::CollectiveAlgorithm::Ring);
  scen::Json two = nvls_scenario({{"count", 2}, {"preset", "dgx-h100"}}, c);
  two["topology"]["hosts_per_leaf"] = 16;
  const scen::Scenario s2 = test_support::load(two);
  CHECK_FALSE(s2.collectives[0].nvls_available);
  CHECK(s2.collectives[0].nvls_tree_available);
  CHECK(models::resolve_algorithm(s2.collectives[0], 4 << 20) ==
        models::CollectiveAlgorithm::NvlsTree);
  two["workload"]["collective"]["tuning"] = "thresholds";
  CHECK(models::resolve_algorithm(test_support::load(two).collectives[0], 4 << 20) ==
        models::CollectiveAlgorithm::Hierarchical);
}

TEST_CASE("NVLS is refused where the NVSwitch cannot reduce the ranks' data", "[mechanism][nvls]") {
  auto refused = [](const scen::Json& j, const std::string& path, const std::string& words) {
    try {
      (void)test_support::load(j);
      FAIL("accepted " << j.dump());
    } catch (const scen::InputError& e) {
      CHECK(e.path == path);
      INFO(e.what());
      CHECK(std::string(e.what()).find(words) != std::string::npos);
    }
  };
  const scen::Json nvls = {{"op", "all_reduce"}, {"algorithm", "nvls"}, {"size", "1MiB"}};
  // Ranks on two servers.
  scen::Json two = nvls_scenario({{"count", 2}, {"preset", "dgx-h100"}}, nvls);
  two["topology"]["hosts_per_leaf"] = 16;
  refused(two, "workload.collective.algorithm", "different servers");
  // An NVSwitch without NVLS (A100).
  refused(nvls_scenario({{"count", 1}, {"preset", "dgx-a100"}}, nvls),
          "workload.collective.algorithm", "nvls_reduction_rate");
  // Plain hosts.
  scen::Json hosts;
  hosts["name"] = "nvls";
  hosts["topology"] = test_support::star(4);
  hosts["workload"]["collective"] = nvls;
  refused(hosts, "workload.collective.algorithm", "plain host");
  // Not an all-reduce; not Simple.
  scen::Json gather = nvls;
  gather["op"] = "all_gather";
  refused(nvls_scenario(kDgxH100, gather), "workload.collective.algorithm", "all_reduce");
  scen::Json ll = nvls;
  ll["protocol"] = "ll";
  refused(nvls_scenario(kDgxH100, ll), "workload.collective.protocol", "simple");
  // A subset of one server's GPUs is fine.
  scen::Json four = nvls;
  four["ranks"] = {"n0g0", "n0g2", "n0g4", "n0g6"};
  const scen::Scenario s = test_support::load(nvls_scenario(kDgxH100, four));
  CHECK(s.collectives[0].nvls_available);
  CHECK(run_one(s).rank_data_received[3] == 1 << 20);
}
