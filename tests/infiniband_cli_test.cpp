// One scenario on both fabrics from the command line: "fabric": ["infiniband", "roce"] runs
// each into <out>/<fabric>/ and prints one comparison table (also comparison.csv).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"

namespace {

using Json = nlohmann::json;

// An 8-to-1 incast on one switch at 400 Gb/s; RoCE with PFC on priority 3.
Json incast_on_both() {
  Json j;
  j["name"] = "both";
  j["topology"]["defaults"] = {{"rate", "400Gbps"}, {"latency", "100ns"}};
  j["topology"]["nodes"] = Json::array({{{"name", "sw"}, {"kind", "switch"}}});
  std::vector<std::string> senders;
  for (int i = 0; i <= 8; ++i) {
    const std::string h = "h" + std::to_string(i);
    j["topology"]["nodes"].push_back({{"name", h}, {"kind", "host"}});
    j["topology"]["links"].push_back({{"a", h}, {"b", "sw"}});
    if (i < 8) senders.push_back(h);
  }
  j["fabric"] = {"infiniband", "roce"};
  j["infiniband"] = {{"vl_buffer", "32KiB"}};
  j["roce"]["pfc"] = {{"enabled", true}, {"priorities", {3}}, {"xoff", "50KB"}};
  j["workload"]["incast"] = {{"receiver", "h8"}, {"senders", senders}, {"size", "200KB"}};
  return j;
}

}  // namespace

TEST_CASE("infiniband: a fabric list runs each fabric and prints the comparison",
          "[infiniband][cli]") {
  test_support::TempDir dir("rdmasim_ib_cli");
  dir.write("both.json", incast_on_both().dump(1));
  const test_support::Run r = test_support::rdmasim({"run", "both.json", "-o", "out"}, dir);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  for (const char* f : {"summary.json", "flows.csv", "links.csv", "classes.csv"}) {
    CHECK(std::filesystem::exists(dir / ("out/infiniband/" + std::string(f))));
    CHECK(std::filesystem::exists(dir / ("out/roce/" + std::string(f))));
  }
  CHECK(std::filesystem::exists(dir / "out/infiniband/credits.csv"));
  CHECK(std::filesystem::exists(dir / "out/roce/pfc.csv"));
  CHECK_FALSE(std::filesystem::exists(dir / "out/roce/credits.csv"));
  const auto csv = test_support::lines_of(test_support::read_file(dir / "out/comparison.csv"));
  REQUIRE(csv.size() == 3);
  CHECK(csv[1].rfind("infiniband,8,", 0) == 0);
  CHECK(csv[2].rfind("roce,8,", 0) == 0);
  CHECK(test_support::contains(r.out, "flow-control holds"));
  CHECK(test_support::contains(r.out, "credit stalls"));
  CHECK(test_support::contains(r.out, "pauses"));
  // The IB run's configuration says which fabric it was.
  const Json ib = Json::parse(test_support::read_file(dir / "out/infiniband/summary.json"));
  CHECK(ib["config"]["fabric"] == "infiniband");
  CHECK(ib["config"]["infiniband"]["switch"]["latency"] == "130ns");
  const Json roce = Json::parse(test_support::read_file(dir / "out/roce/summary.json"));
  CHECK(roce["config"]["fabric"]["pfc"]["enabled"] == true);

  // rdmasim check treats every InfiniBand VL as lossless (credit loops can deadlock too).
  const test_support::Run c = test_support::rdmasim({"check", "both.json"}, dir);
  CHECK(c.exit_code == 0);
  CHECK(test_support::contains(c.out, "buffer dependency graph"));

  // A fabric missing from the list is refused before anything runs.
  Json bad = incast_on_both();
  bad["fabric"] = {"infiniband", "ethernet"};
  dir.write("bad.json", bad.dump());
  const test_support::Run b = test_support::rdmasim({"run", "bad.json", "-o", "bad"}, dir);
  CHECK(b.exit_code == 2);
  CHECK(test_support::contains(b.err, "fabric[1]"));
  CHECK_FALSE(std::filesystem::exists(dir / "bad"));
}
