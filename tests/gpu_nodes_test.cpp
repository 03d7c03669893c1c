// GPU servers (topologies/gpu_nodes.hpp): NVLink domains beside the fabric, GPU ranks that
// talk over NVLink inside a server and through their rail's NIC across servers, and the
// hierarchical all-reduce (models/collectives/hierarchical.cpp).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>

#include "models/ideal_fct.hpp"
#include "scenario_helpers.hpp"
#include "scenarios/builder/build_network.hpp"
#include "sim/units.hpp"
#include "topologies/analysis.hpp"

namespace {

scen::Json gpu_scenario(const scen::Json& topology, const scen::Json& collective) {
  scen::Json j;
  j["name"] = "gpu";
  j["topology"] = topology;
  j["fabric"]["switch"] = {{"latency", "500ns"}};
  // Only a message's last packet is acknowledged: no ACK takes link time from data.
  j["fabric"]["nic"] = {{"ack_every", 1 << 20}};
  j["workload"]["collective"] = collective;
  return j;
}

// `servers` servers of 4 GPUs with 4 NICs at `nic_rate` on a rail-optimised fabric.
scen::Json rail_servers(int servers, const std::string& nic_rate, const std::string& nvlink) {
  return {{"generator", "rail"},
          {"nodes",
           {{"count", servers},
            {"preset", "generic"},
            {"gpus", 4},
            {"nics", 4},
            {"nic_rate", nic_rate},
            {"nvlink_rate", nvlink}}},
          {"nodes_per_leaf", 16},
          {"spines", 4},
          {"fabric_rate", nic_rate},
          {"host_latency", "500ns"},
          {"fabric_latency", "500ns"}};
}

int host_of(const scen::Scenario& s, const std::string& name) {
  return s.fabric.host_index[s.fabric.node_by_name(name)];
}

}  // namespace

TEST_CASE("GPU servers: an NVLink domain per server beside a rail-optimised fabric",
          "[mechanism][gpu]") {
  const scen::Scenario s =
      test_support::load(gpu_scenario({{"generator", "rail"},
                                       {"nodes", {{"count", 2}, {"preset", "dgx-h100"}}},
                                       {"nodes_per_leaf", 2},
                                       {"spines", 2}},
                                      {{"op", "all_reduce"}, {"size", "1MiB"}}));
  const topo::GpuCluster& g = s.fabric.topo.gpus;
  REQUIRE(g.servers == 2);
  REQUIRE(g.gpus() == 16);
  // Every GPU: one NVLink link at 450 GB/s to its server's NVSwitch, and the NIC of its rail.
  for (int gpu = 0; gpu < 16; ++gpu) {
    const int node = g.nvlink_node[gpu];
    REQUIRE(s.fabric.ports[node].size() == 1);
    const topo::Link& l = s.fabric.topo.links[s.fabric.ports[node][0].link];
    CHECK(l.rate_bps == 3'600'000'000'000);
    CHECK(s.fabric.ports[node][0].peer_node == g.nvswitch_node[gpu / 8]);
    REQUIRE(g.nic_nodes[gpu].size() == 1);
    CHECK(s.fabric.topo.nodes[g.nic_nodes[gpu][0]].name ==
          "n" + std::to_string(gpu / 8) + "r" + std::to_string(gpu % 8));
  }
  // "all" is every GPU, node-major; a rank's endpoints are its NIC and its NVLink endpoint.
  const models::CollectiveSpec& c = s.collectives[0];
  REQUIRE(c.ranks() == 16);
  CHECK(c.rank_names[9] == "n1g1");
  CHECK(c.rank_server[9] == 1);
  CHECK(c.rank_nvlink[9] == static_cast<uint32_t>(host_of(s, "n1g1")));
  CHECK(c.rank_endpoints[9] == std::vector<uint32_t>{static_cast<uint32_t>(host_of(s, "n1r1"))});
  // The topology summary samples no pair of an NVLink endpoint and an endpoint outside its
  // server (no path by design), and every pair it samples has one.
  sim::Simulator sim(1);
  auto net = scen::build_network(s, sim);
  const topo::TopologySummary sum = topo::summarize(s.fabric, net->routes);
  CHECK(sum.path_pairs_sampled > 0);
  CHECK(sum.unreachable_pairs == 0);
  // NICs and GPUs: two NICs per GPU when there are twice as many, shared when fewer.
  CHECK(topo::gpu_nic_indices(1, 4, 8) == std::vector<int>{1, 5});
  CHECK(topo::gpu_nic_indices(3, 8, 2) == std::vector<int>{0});
  CHECK(topo::gpu_nic_indices(4, 8, 2) == std::vector<int>{1});
}

TEST_CASE("GPU servers on a leaf-spine: NICs fill the leaves, presets set the rates",
          "[mechanism][gpu]") {
  // dgx-a100: 200 Gb/s NICs, NVLink 300 GB/s each way.
  const scen::Scenario a =
      test_support::load(gpu_scenario({{"generator", "leaf-spine"},
                                       {"nodes", {{"count", 2}, {"preset", "dgx-a100"}}},
                                       {"leaves", 2},
                                       {"spines", 2},
                                       {"hosts_per_leaf", 8}},
                                      {{"op", "all_reduce"}, {"size", "1MiB"}}));
  const topo::GpuCluster& g = a.fabric.topo.gpus;
  REQUIRE(g.gpus() == 16);
  const auto& links = a.fabric.topo.links;
  CHECK(links[a.fabric.ports[g.nic_nodes[9][0]][0].link].rate_bps == 200'000'000'000);
  CHECK(links[a.fabric.ports[g.nvlink_node[9]][0].link].rate_bps == 2'400'000'000'000);
  // Server 1's NICs are h8..h15, all on leaf1.
  CHECK(a.fabric.topo.nodes[g.nic_nodes[9][0]].name == "h9");
  CHECK(a.fabric.topo.nodes[a.fabric.ports[g.nic_nodes[9][0]][0].peer_node].name == "leaf1");
  // generic: 4 GPUs sharing 2 NICs (GPUs 0 and 1 on the first, 2 and 3 on the second), and
  // 4 plain hosts left over on the second leaf.
  const scen::Scenario b =
      test_support::load(gpu_scenario({{"generator", "leaf-spine"},
                                       {"nodes",
                                        {{"count", 2},
                                         {"preset", "generic"},
                                         {"gpus", 4},
                                         {"nics", 2},
                                         {"nic_rate", "100Gbps"},
                                         {"nvlink_rate", "1200Gbps"}}},
                                       {"leaves", 2},
                                       {"hosts_per_leaf", 4}},
                                      {{"op", "all_reduce"}, {"size", "1MiB"}}));
  const topo::GpuCluster& h = b.fabric.topo.gpus;
  REQUIRE(h.gpus() == 8);
  CHECK(b.fabric.topo.nodes[h.nic_nodes[5][0]].name == "h2");
  CHECK(b.fabric.topo.nodes[h.nic_nodes[6][0]].name == "h3");
  CHECK(b.fabric.host_node.size() == 8 + 8);  // 8 NIC endpoints (4 in use) + 8 GPUs
}

TEST_CASE("an all-reduce inside one server runs over NVLink at the alpha-beta time",
          "[mechanism][gpu]") {
  // One dgx-h100 server: 8 GPUs on the NVSwitch at 450 GB/s each way. Ring all-reduce:
  // T = 2(n-1)α + 2(n-1)/n · S/B, with B the NVLink payload rate and α one step's unloaded
  // latency beyond serialisation (GPU -> NVSwitch -> GPU), from the model, and the last
  // message's ACK back. NCCL's software costs off: the hardware alone.
  const int n = 8;
  const int64_t size = int64_t{4096} * 64 * n;
  const scen::Scenario s = test_support::load(gpu_scenario(
      {{"generator", "leaf-spine"},
       {"nodes", {{"count", 1}, {"preset", "dgx-h100"}}},
       {"leaves", 1},
       {"spines", 1},
       {"hosts_per_leaf", 8}},
      {{"op", "all_reduce"}, {"algorithm", "ring"}, {"size", size}, {"costs", "none"}}));
  const scen::RunOutcome out = scen::run_scenario(s);
  REQUIRE(out.collectives.size() == 1);
  sim::Simulator sim(1);
  auto net = scen::build_network(s, sim);
  const auto a = static_cast<uint32_t>(host_of(s, "n0g0"));
  const auto b = static_cast<uint32_t>(host_of(s, "n0g1"));
  const auto data = scen::trace_path(s, *net, a, b, 50000, 0);
  const auto ack = scen::trace_path(s, *net, b, a, 50000, 0);
  REQUIRE(data.size() == 2);  // GPU -> NVSwitch -> GPU
  CHECK(data[0].rate_bps == 3'600'000'000'000);
  const int64_t mtu = s.nic.mtu;
  const double ser = static_cast<double>(
      sim::serialization_time(mtu + s.nic.header_bytes + s.nic.framing_bytes, data[0].rate_bps).ps);
  const double delivery = static_cast<double>(models::ideal_delivery(data, mtu, s.nic).ps);
  const double alpha = delivery - ser;
  const double ack_back =
      static_cast<double>(models::ideal_fct(data, ack, mtu, s.nic).ps) - delivery;
  const double expected = 2.0 * (n - 1) * alpha + ack_back + 2.0 * (n - 1) / n * size * (ser / mtu);
  const models::CollectiveResult& r = out.collectives[0];
  const double got = static_cast<double>(r.time.ps);
  INFO("expected " << expected / 1e6 << " us, got " << got / 1e6 << " us");
  CHECK(std::abs(got - expected) / expected < 0.02);
  CHECK(r.nvlink_bytes == 2 * (n - 1) * size);
  CHECK(r.network_bytes == 0);
}

TEST_CASE("hierarchical all-reduce moves the intra-server share over NVLink and beats the ring",
          "[mechanism][gpu]") {
  // 4 servers x 4 GPUs, NICs at 100 Gb/s, NVLink at 2.4 Tb/s (24x faster).
  const int servers = 4, local = 4, n = servers * local;
  const int64_t size = int64_t{4} << 20;
  const scen::Json topology = rail_servers(servers, "100Gbps", "2400Gbps");
  auto run = [&](const std::string& algorithm, const std::string& placement = "nccl") {
    const scen::Scenario s =
        test_support::load(gpu_scenario(topology, {{"op", "all_reduce"},
                                                   {"algorithm", algorithm},
                                                   {"size", size},
                                                   {"chunk", "256KiB"},
                                                   {"channel_placement", placement}}));
    scen::RunOutcome out = scen::run_scenario(s);
    REQUIRE(out.collectives.size() == 1);
    return out.collectives[0];
  };
  const models::CollectiveResult h = run("hierarchical");
  const models::CollectiveResult ring = run("ring", "rank-order");
  const models::CollectiveResult nccl_ring = run("ring");
  const models::CollectiveResult again = run("hierarchical");  // deterministic
  CHECK(again.time == h.time);
  CHECK(again.nvlink_bytes == h.nvlink_bytes);
  // Analytic bytes: every rank sends (l-1)/l·S twice inside its server and 2(m-1)/m·S/l
  // across servers.
  CHECK(h.nvlink_bytes == int64_t{n} * 2 * (local - 1) * size / local);
  CHECK(h.network_bytes == int64_t{n} * 2 * (servers - 1) * size / servers / local);
  CHECK(h.wire_bytes == h.nvlink_bytes + h.network_bytes);
  for (int r = 0; r < n; ++r) {
    const int64_t per_rank =
        2 * (local - 1) * size / local + 2 * (servers - 1) * size / servers / local;
    CHECK(h.rank_data_sent[r] == per_rank);
    CHECK(h.rank_data_received[r] == per_rank);
  }
  // The flat ring in rank order sends 2(n-1)/n·S per rank, a quarter of its edges across
  // servers through one NIC per server; the hierarchical one only S/l·2(m-1)/m through each
  // NIC. NCCL's placement spreads the ring's channels over the four NICs
  // (nccl_channels_test.cpp): it comes close to the hierarchical algorithm.
  CHECK(ring.network_bytes > 0);
  INFO("hierarchical " << h.time.us() << " us, ring " << ring.time.us() << " us, NCCL ring "
                       << nccl_ring.time.us() << " us");
  CHECK(h.time.ps * 3 < ring.time.ps);
  CHECK(nccl_ring.time.ps * 2 < ring.time.ps);
}

TEST_CASE("GPU server input errors name the path", "[mechanism][gpu]") {
  auto refused = [](const scen::Json& topology, const scen::Json& collective,
                    const std::string& path) {
    try {
      (void)test_support::load(gpu_scenario(topology, collective));
      FAIL("accepted " << topology.dump() << " " << collective.dump());
    } catch (const scen::InputError& e) {
      CHECK(e.path == path);
    }
  };
  const scen::Json ar = {{"op", "all_reduce"}, {"size", "1MiB"}};
  refused({{"generator", "rail"}, {"nodes", {{"count", 2}, {"preset", "dgx-b300"}}}}, ar,
          "topology.nodes.preset");
  refused({{"generator", "rail"}, {"nodes", {{"count", 2}, {"preset", "generic"}, {"gpus", 4}}}},
          ar, "topology.nodes.nics");
  refused({{"generator", "rail"}, {"nodes", {{"count", 2}}}, {"rails", 4}}, ar, "topology.rails");
  refused({{"generator", "rail"}, {"nodes", {{"count", 2}, {"gpus", 0}}}}, ar,
          "topology.nodes.gpus");
  refused({{"generator", "leaf-spine"},
           {"leaves", 1},
           {"hosts_per_leaf", 8},
           {"nodes", {{"count", 2}, {"preset", "dgx-a100"}}}},
          ar, "topology.nodes.count");
  const scen::Json plain = {{"generator", "leaf-spine"}, {"leaves", 2}, {"hosts_per_leaf", 2}};
  refused(plain, {{"op", "all_reduce"}, {"size", "1MiB"}, {"algorithm", "hierarchical"}},
          "workload.collective.algorithm");
  refused(plain, {{"op", "all_reduce"}, {"size", "1MiB"}, {"placement", "gpu-major"}},
          "workload.collective.placement");
  refused(rail_servers(2, "100Gbps", "2400Gbps"),
          {{"op", "all_reduce"},
           {"size", "1MiB"},
           {"algorithm", "hierarchical"},
           {"ranks", {"n0g0", "n0g1", "n1g0"}}},
          "workload.collective.ranks");
}

TEST_CASE("hierarchical all-reduce pipelines its phases: the slowest phase plus the fill",
          "[mechanism][gpu][hierarchical]") {
  // 2 servers x 4 GPUs, NVLink at 2.4 Tb/s, NICs at 100 Gb/s: the rail's all-reduce of S/4
  // through each NIC is the slowest phase; reduce-scatter and all-gather over NVLink are each
  // about an eighth of it. Pipelined in blocks of 4 chunks, the all-reduce takes the slowest
  // phase's time plus the fill: one block's reduce-scatter before it and all-gather after.
  // Two slots per connection. NCCL's software costs off: each phase run alone would pay its own
  // launch, which the pipelined call pays once.
  const int64_t size = int64_t{16} << 20, chunk = 256 << 10, block = 4 * chunk;
  const scen::Json topology = rail_servers(2, "100Gbps", "2400Gbps");
  auto run = [&](const std::string& op, const std::string& algorithm, int64_t bytes,
                 const scen::Json& ranks, int64_t grain) {
    scen::Json c = {{"op", op},      {"algorithm", algorithm}, {"size", bytes}, {"chunk", grain},
                    {"channels", 1}, {"ranks", ranks},         {"slots", 2},    {"costs", "none"}};
    const scen::RunOutcome out = scen::run_scenario(test_support::load(gpu_scenario(topology, c)));
    REQUIRE(out.collectives.size() == 1);
    return static_cast<double>(out.collectives[0].time.ps);
  };
  const scen::Json all = "all";
  const scen::Json server0 = {"n0g0", "n0g1", "n0g2", "n0g3"};
  const scen::Json rail0 = {"n0g0", "n1g0"};
  const double h = run("all_reduce", "hierarchical", size, all, chunk);
  // The phases alone, on the same chunks: reduce-scatter inside a server, the rail's
  // all-reduce of a quarter (a block's segment split in two: chunk / 2), all-gather.
  const double rs = run("reduce_scatter", "ring", size, server0, chunk);
  const double net = run("all_reduce", "ring", size / 4, rail0, chunk / 2);
  const double ag = run("all_gather", "ring", size, server0, chunk);
  const double fill = run("reduce_scatter", "ring", block, server0, chunk) +
                      run("all_gather", "ring", block, server0, chunk);
  const double expected = std::max({rs, net, ag}) + fill;
  INFO("hierarchical " << h / 1e6 << " us; phases " << rs / 1e6 << ", " << net / 1e6 << ", "
                       << ag / 1e6 << " us; fill " << fill / 1e6 << " us");
  CHECK(net > rs);
  CHECK(h >= net);
  CHECK(std::abs(h - expected) <= 0.03 * expected);
  // Phases one after another would take their sum: at least half of the NVLink phases hide.
  CHECK(h < rs + net + ag - (rs + ag) / 2);
}

TEST_CASE("GB200 NVL72: 72 GPUs in one NVLink domain, NVLS and the ring inside it",
          "[mechanism][gpu][nvl72]") {
  scen::LoadOptions o;
  o.sets = {"workload.collective[0].min=4MiB", "workload.collective[0].max=4MiB",
            "workload.collective[1].min=4MiB", "workload.collective[1].max=4MiB",
            "workload.collective[1].start=0s"};
  const scen::Scenario s = scen::load_scenario_file(
      std::string(RDMASIM_SOURCE_DIR) + "/scenarios/allreduce-gb200-nvl72.json", o);
  const topo::GpuCluster& g = s.fabric.topo.gpus;
  CHECK(g.servers == 1);
  REQUIRE(g.gpus() == 72);
  CHECK(g.server_nics[0].size() == 72);
  const auto& link = s.fabric.topo.links[s.fabric.ports[g.nvlink_node[71]][0].link];
  CHECK(link.rate_bps == 7'200'000'000'000);
  CHECK(s.fabric.ports[g.nvlink_node[71]][0].peer_node == g.nvswitch_node[0]);
  REQUIRE(s.collectives.size() == 2);
  CHECK(s.collectives[0].ranks() == 72);
  CHECK(s.collectives[1].nvls_available);
  // The two run side by side here; NVLS still beats the ring's 2 x 71 steps at 4 MiB.
  const scen::RunOutcome out = scen::run_scenario(s);
  REQUIRE(out.collectives.size() == 2);
  CHECK(out.collectives[1].algorithm == models::CollectiveAlgorithm::Nvls);
  CHECK(out.collectives[1].time < out.collectives[0].time);
  CHECK(out.collectives[1].network_bytes == 0);
  // More than 64 NICs a server is accepted (a rack-scale domain's scale-out NICs).
  scen::Json j = gpu_scenario({{"generator", "leaf-spine"},
                               {"nodes",
                                {{"count", 1},
                                 {"preset", "generic"},
                                 {"gpus", 96},
                                 {"nics", 96},
                                 {"nic_rate", "400Gbps"},
                                 {"nvlink_rate", "7200Gbps"}}},
                               {"leaves", 1},
                               {"hosts_per_leaf", 96}},
                              {{"op", "all_reduce"}, {"size", "64KiB"}});
  CHECK(test_support::load(j).fabric.topo.gpus.gpus() == 96);
}
