// GPU servers in inline topologies and topology files ("gpu_servers",
// scenarios/loader/gpu_nodes_section.hpp): a generated GPU topology written by
// `rdmasim topo gen -o` loads back to the same network.
#include <catch2/catch.hpp>

#include "cli_runner.hpp"
#include "scenario_helpers.hpp"
#include "scenarios/loader/input_error.hpp"
#include "scenarios/loader/topology_section.hpp"
#include "temp_dir.hpp"

namespace {

using scen::Json;

Json rail_gpu_spec() {
  return {
      {"generator", "rail"},
      {"nodes",
       {{"count", 3},
        {"preset", "generic"},
        {"gpus", 4},
        {"nics", 2},
        {"nic_rate", "200Gbps"},
        {"nvlink_rate", "2400Gbps"},
        {"nvswitch_latency", "150ns"},
        {"host_path", {{"preset", "pcie-gen4-x16"}, {"dma_write_latency", "400ns"}}},
        {"host_path_overrides", {{{"servers", {2}}, {"rails", {1}}, {"pcie_rate", "64Gbps"}}}}}},
      {"nodes_per_leaf", 2},
      {"spines", 2},
      {"fabric_rate", "200Gbps"}};
}

topo::Topology read(const Json& j) {
  scen::JsonReader r(j, "topology");
  return scen::read_topology_section(r, ".");
}

void check_same(const topo::Topology& a, const topo::Topology& b) {
  REQUIRE(a.nodes.size() == b.nodes.size());
  for (size_t i = 0; i < a.nodes.size(); ++i) {
    INFO("node " << i);
    CHECK(a.nodes[i].name == b.nodes[i].name);
    CHECK(a.nodes[i].kind == b.nodes[i].kind);
    CHECK(a.nodes[i].tier == b.nodes[i].tier);
    CHECK(a.nodes[i].group == b.nodes[i].group);
  }
  REQUIRE(a.links.size() == b.links.size());
  for (size_t i = 0; i < a.links.size(); ++i) {
    INFO("link " << i);
    CHECK(a.links[i].a == b.links[i].a);
    CHECK(a.links[i].b == b.links[i].b);
    CHECK(a.links[i].rate_bps == b.links[i].rate_bps);
    CHECK(a.links[i].latency_ps == b.links[i].latency_ps);
  }
  const topo::GpuCluster &g = a.gpus, &h = b.gpus;
  CHECK(g.servers == h.servers);
  CHECK(g.nvswitch_node == h.nvswitch_node);
  CHECK(g.nvlink_node == h.nvlink_node);
  CHECK(g.nic_nodes == h.nic_nodes);
  CHECK(g.server_nics == h.server_nics);
  CHECK(g.params.preset == h.params.preset);
  CHECK(g.params.gpus == h.params.gpus);
  CHECK(g.params.nics == h.params.nics);
  CHECK(g.params.nvlink_rate_bps == h.params.nvlink_rate_bps);
  CHECK(g.params.nvlink_latency_ps == h.params.nvlink_latency_ps);
  CHECK(g.params.nvswitch_latency_ps == h.params.nvswitch_latency_ps);
  CHECK(g.params.host_path.dma_write_latency_ps == h.params.host_path.dma_write_latency_ps);
  CHECK(g.params.host_path.pcie_rate_bps == h.params.host_path.pcie_rate_bps);
  CHECK(g.params.host_path.doorbell_latency_ps == h.params.host_path.doorbell_latency_ps);
  REQUIRE(h.params.host_path_overrides.size() == 1);
  CHECK(h.params.host_path_overrides[0].servers == std::vector<int>{2});
  CHECK(h.params.host_path_overrides[0].rails == std::vector<int>{1});
  CHECK(h.params.host_path_overrides[0].path.pcie_rate_bps == 64'000'000'000);
}

}  // namespace

TEST_CASE("GPU topology: written and read back, the same network",
          "[scenario][gpu][topology_file]") {
  const topo::Topology generated = read(rail_gpu_spec());
  REQUIRE(!generated.gpus.empty());
  const Json file = scen::topology_to_json(generated);
  REQUIRE(file.contains("gpu_servers"));
  // The file lists the fabric only; "gpu_servers" brings the NVLink domains back.
  CHECK(file["nodes"].size() == generated.nodes.size() - 3 * (1 + 4));
  check_same(generated, read(file));
  // And what the two run is the same: an all-reduce over the 12 GPUs, hierarchical.
  auto run = [](const Json& topology) {
    Json j;
    j["name"] = "roundtrip";
    j["topology"] = topology;
    j["workload"]["collective"] = {
        {"op", "all_reduce"}, {"size", "1MiB"}, {"algorithm", "hierarchical"}};
    return scen::run_scenario(test_support::load(j)).collectives.at(0);
  };
  const models::CollectiveResult a = run(rail_gpu_spec()), b = run(file);
  CHECK(a.time.ps == b.time.ps);
  CHECK(a.nvlink_bytes == b.nvlink_bytes);
  CHECK(a.nvlink_bytes > 0);
}

TEST_CASE("GPU topology: servers named in an inline topology", "[scenario][gpu][topology_file]") {
  // Two servers of 2 GPUs, each with one NIC host on a single switch.
  Json t = test_support::star(2, "100Gbps", "500ns");
  t["gpu_servers"] = {{"preset", "generic"},
                      {"gpus", 2},
                      {"nics", 1},
                      {"nic_rate", "100Gbps"},
                      {"nvlink_rate", "1600Gbps"},
                      {"servers", {{"h0"}, {"h1"}}}};
  const topo::Topology topo = read(t);
  CHECK(topo.gpus.servers == 2);
  CHECK(topo.nodes.size() == 3 + 2 * 3);
  Json j;
  j["name"] = "inline-gpu";
  j["topology"] = t;
  j["workload"]["collective"] = {{"op", "all_reduce"}, {"size", "256KiB"}};
  const scen::RunOutcome out = scen::run_scenario(test_support::load(j));
  REQUIRE(out.collectives.size() == 1);
  CHECK(out.collectives[0].ranks == 4);  // the GPUs, not the NIC hosts
  CHECK(out.collectives[0].nvlink_bytes > 0);
  CHECK(out.collectives[0].network_bytes > 0);

  auto refused = [&](Json servers, const std::string& path) {
    Json bad = t;
    bad["gpu_servers"]["servers"] = std::move(servers);
    try {
      (void)read(bad);
      FAIL("accepted " << bad.dump());
    } catch (const scen::InputError& e) {
      CHECK(e.path == path);
    }
  };
  refused({{"h0"}, {"h9"}}, "topology.gpu_servers.servers[1][0]");
  refused({{"h0"}, {"s0"}}, "topology.gpu_servers.servers[1][0]");                       // a switch
  refused({{"h0"}, {"h0"}}, "topology.gpu_servers.servers[1][0]");                       // twice
  refused(Json::array({Json::array({"h0", "h1"})}), "topology.gpu_servers.servers[0]");  // nics 1
  refused(Json::array(), "topology.gpu_servers.servers");
}

TEST_CASE("cli: topo gen writes a GPU topology a scenario file uses",
          "[scenario][gpu][topology_file][cli]") {
  test_support::TempDir dir("rdmasim_gpu_topo");
  const test_support::Run gen = test_support::rdmasim(
      {"topo", "gen", "rail", "--nodes", rail_gpu_spec()["nodes"].dump(), "--nodes_per_leaf", "2",
       "--spines", "2", "--fabric_rate", "200Gbps", "-o", "gpus.json"},
      dir);
  INFO(gen.out << gen.err);
  REQUIRE(gen.exit_code == 0);
  const Json file = Json::parse(test_support::read_file(dir / "gpus.json"));
  check_same(read(rail_gpu_spec()), read(file));
  const Json scenario = {{"name", "gpu-file"},
                         {"topology", {{"file", "gpus.json"}}},
                         {"workload", {{"collective", {{"op", "all_reduce"}, {"size", "64KiB"}}}}}};
  REQUIRE(!dir.write("scenario.json", scenario.dump()).empty());
  const test_support::Run run =
      test_support::rdmasim({"run", "scenario.json", "--out", "out", "-q"}, dir);
  INFO(run.out << run.err);
  CHECK(run.exit_code == 0);
}
