// The peers' files, imported, are equivalent rdmasim scenarios: the HPCC fabric is the clos3
// generator's, and imported workloads load and run to completion.
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "scenarios/import/hpcc_import.hpp"
#include "scenarios/import/htsim_import.hpp"
#include "scenarios/loader/scenario.hpp"
#include "scenarios/run/run_scenario.hpp"
#include "test_support.hpp"

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("import: the HPCC fat.txt fabric equals the shipped websearch scenario's clos3",
          "[scenario][import]") {
  RDMASIM_REQUIRE_SHARED(shared);
  const std::string dir = shared + "/peers/hpcc/";
  const scen::Scenario imported = scen::load_scenario_json(
      scen::import_hpcc(slurp(dir + "fat.txt"), "fat.txt",
                        slurp(dir + "websearch_320h_30pct_0.001s_seed42.txt"), "flows", "ws"),
      ".", {});
  const scen::Scenario shipped = scen::load_scenario_file(std::string(RDMASIM_SOURCE_DIR) +
                                                          "/scenarios/websearch-fattree.json");
  const auto& a = imported.fabric.topo;
  const auto& b = shipped.fabric.topo;
  REQUIRE(a.nodes.size() == b.nodes.size());
  REQUIRE(a.links.size() == b.links.size());
  for (size_t i = 0; i < a.nodes.size(); ++i) CHECK(a.nodes[i].kind == b.nodes[i].kind);
  for (size_t i = 0; i < a.links.size(); ++i) {
    INFO("link " << i);
    CHECK(a.links[i].a == b.links[i].a);
    CHECK(a.links[i].b == b.links[i].b);
    CHECK(a.links[i].rate_bps == b.links[i].rate_bps);
    CHECK(a.links[i].latency_ps == b.links[i].latency_ps);
  }
  CHECK(imported.flows.size() == 388);
  CHECK(imported.nic.mtu == 1000);
}

TEST_CASE("import: the HPCC incast8 and an htsim matrix run to completion", "[scenario][import]") {
  RDMASIM_REQUIRE_SHARED(shared);
  const std::string hpcc = shared + "/peers/hpcc/";
  const scen::Scenario incast = scen::load_scenario_json(
      scen::import_hpcc(slurp(hpcc + "topo_incast8.txt"), "topo", slurp(hpcc + "flow_incast8.txt"),
                        "flows", "incast8"),
      ".", {});
  const scen::RunOutcome a = scen::run_scenario(incast);
  CHECK(a.results["flows_completed"] == 8);
  CHECK(a.results["payload_bytes_delivered"] == 8'000'000);
  // All eight start at 2 s, the peer's warm-up, converted exactly.
  for (const auto& f : a.flows) CHECK(f.start.ps == 2'000'000'000'000);

  const std::string cm = shared + "/peers/htsim/incast_8to1_128n_1MB.cm";
  const scen::Scenario htsim =
      scen::load_scenario_json(scen::import_htsim(slurp(cm), cm, 8, "incast"), ".", {});
  CHECK(htsim.fabric.host_node.size() == 128);
  const scen::RunOutcome b = scen::run_scenario(htsim);
  CHECK(b.results["flows_completed"] == 8);
}
