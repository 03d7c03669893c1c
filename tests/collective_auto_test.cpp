// algorithm "auto" with "tuning": "thresholds" (models/collectives/collective_spec.cpp
// resolve_algorithm): hierarchical for all-reduces of GPU ranks spanning several servers with
// several GPUs each, tree/ring by size otherwise; the pick is in every row of the table and of
// collectives.csv. (GPU ranks' default, NCCL's tuning model: nccl_tuning_test.cpp.)
#include <catch2/catch.hpp>

#include "scenario_helpers.hpp"
#include "scenarios/outputs/collectives_table.hpp"

namespace {

using models::CollectiveAlgorithm;

// `servers` GPU servers of 4 GPUs and 4 NICs at 100 Gb/s, rail-optimised.
scen::Json servers_topology(int servers) {
  return {{"generator", "rail"},
          {"nodes",
           {{"count", servers},
            {"preset", "generic"},
            {"gpus", 4},
            {"nics", 4},
            {"nic_rate", "100Gbps"},
            {"nvlink_rate", "2400Gbps"}}},
          {"nodes_per_leaf", 4},
          {"spines", 2},
          {"fabric_rate", "100Gbps"}};
}

scen::RunOutcome run_auto(const scen::Json& topology, scen::Json collective) {
  scen::Json j;
  j["name"] = "auto";
  j["topology"] = topology;
  collective["op"] = "all_reduce";
  collective["min"] = "64KiB";
  collective["max"] = "4MiB";
  collective["factor"] = 8;  // 64 KiB (tree range), 512 KiB, 4 MiB
  collective["tuning"] = "thresholds";
  j["workload"]["collective"] = collective;
  return scen::run_scenario(test_support::load(j));
}

std::vector<CollectiveAlgorithm> picks(const scen::RunOutcome& out) {
  std::vector<CollectiveAlgorithm> a;
  for (const auto& r : out.collectives) a.push_back(r.algorithm);
  return a;
}

const CollectiveAlgorithm kTree = CollectiveAlgorithm::DoubleBinaryTree;
const CollectiveAlgorithm kRing = CollectiveAlgorithm::Ring;
const CollectiveAlgorithm kHier = CollectiveAlgorithm::Hierarchical;

}  // namespace

TEST_CASE("collective auto: hierarchical on multi-server GPU communicators",
          "[mechanism][collective][auto]") {
  // All 8 GPUs of 2 servers: hierarchical at every size (hierarchical_min 0).
  const scen::RunOutcome all = run_auto(servers_topology(2), scen::Json::object());
  CHECK(picks(all) == std::vector{kHier, kHier, kHier});
  for (const auto& r : all.collectives) CHECK(r.nvlink_bytes > 0);  // it really ran that way
  // The pick is printed in each row and written to collectives.csv.
  const scen::Scenario s = test_support::load([] {
    scen::Json j;
    j["topology"] = servers_topology(2);
    j["workload"]["collective"] = {{"op", "all_reduce"}, {"size", "64KiB"}};
    return j;
  }());
  const std::string table = scen::collectives_table(all.collectives, s.collectives);
  CHECK(table.find("hierarchical/simple") != std::string::npos);
  CHECK(scen::collectives_csv(all.collectives, s.collectives).find(",hierarchical,") !=
        std::string::npos);

  // The size threshold: below hierarchical_min, tree/ring by tree_max as before.
  const scen::RunOutcome from_1m = run_auto(servers_topology(2), {{"hierarchical_min", "1MiB"}});
  CHECK(picks(from_1m) == std::vector{kTree, kRing, kHier});
  // The server-count threshold.
  const scen::RunOutcome three = run_auto(servers_topology(2), {{"hierarchical_min_servers", 3}});
  CHECK(picks(three) == std::vector{kTree, kRing, kRing});
  // The per-server threshold: 2 GPUs per server qualify by default, not with 3 required.
  const scen::Json two_each = {"n0g0", "n0g1", "n1g0", "n1g1"};
  CHECK(picks(run_auto(servers_topology(2), {{"ranks", two_each}})) ==
        std::vector{kHier, kHier, kHier});
  CHECK(
      picks(run_auto(servers_topology(2), {{"ranks", two_each}, {"hierarchical_min_local", 3}})) ==
      std::vector{kTree, kRing, kRing});
}

TEST_CASE("collective auto: tree/ring where hierarchical does not apply",
          "[mechanism][collective][auto]") {
  // One server: nothing to do across servers.
  CHECK(picks(run_auto(servers_topology(1), scen::Json::object())) ==
        std::vector{kTree, kRing, kRing});
  // One GPU per server: a flat communicator across servers.
  CHECK(picks(run_auto(servers_topology(2), {{"ranks", {"n0g0", "n1g0", "n1g1"}}})) ==
        std::vector{kTree, kRing, kRing});
  // Uneven: 2 GPUs on server 0, 1 on server 1, 2 on server 2 (hierarchical needs as many).
  CHECK(
      picks(run_auto(servers_topology(3), {{"ranks", {"n0g0", "n0g1", "n1g0", "n2g0", "n2g1"}}})) ==
      std::vector{kTree, kRing, kRing});
  // Plain hosts.
  CHECK(picks(run_auto(test_support::star(4), scen::Json::object())) ==
        std::vector{kTree, kRing, kRing});
}
