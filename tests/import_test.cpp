// Importers of the peers' formats. Small hand-written inputs pin the exact scenario JSON;
// malformed inputs must name "<file>:<line>"; the peers' real files (../shared, via
// RDMASIM_SHARED) must give the counts their README states.
#include <catch2/catch.hpp>
#include <fstream>
#include <functional>
#include <optional>
#include <set>
#include <sstream>

#include "scenarios/import/hpcc_import.hpp"
#include "scenarios/import/htsim_import.hpp"
#include "scenarios/loader/input_error.hpp"
#include "tests/test_support.hpp"

using nlohmann::json;

namespace {

std::optional<scen::InputError> error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const scen::InputError& e) {
    return e;
  }
  return std::nullopt;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in.good());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Four nodes, node 3 the switch; hosts 0..2.
const char* const kTopo =
    "4 1 3\n"
    "3\n"
    "0 3 100Gbps 1000ns 0\n"
    "1 3 100Gbps 1000ns 0.001\n"
    "2 3 25Gbps 1us 0\n";

json hpcc(const std::string& topo, const std::string& flows) {
  return scen::import_hpcc(topo, "t.txt", flows, "f.txt", "s");
}

}  // namespace

TEST_CASE("import: hpcc topology and flows become rdmasim scenario JSON", "[scenario]") {
  const json got = hpcc(kTopo,
                        "2\n"
                        "0 1 3 100 2323151 2.000000261\n"
                        "2 0 0 100 1000 2.0000000005\n");
  const json expected = json::parse(R"({
    "name": "s", "seed": 1,
    "topology": {
      "nodes": [{"name": "h0", "kind": "host"}, {"name": "h1", "kind": "host"},
                {"name": "h2", "kind": "host"}, {"name": "s3", "kind": "switch"}],
      "links": [
        {"a": "h0", "b": "s3", "rate": "100Gbps", "latency": "1000ns", "loss_rate": 0.0},
        {"a": "h1", "b": "s3", "rate": "100Gbps", "latency": "1000ns", "loss_rate": 0.001},
        {"a": "h2", "b": "s3", "rate": "25Gbps", "latency": "1us", "loss_rate": 0.0}]},
    "fabric": {"nic": {"mtu": "1000B"}},
    "workload": {"flows": [
      {"src": "h0", "dst": "h1", "size": "2323151B", "start": "2000000261ns", "priority": 3},
      {"src": "h2", "dst": "h0", "size": "1000B", "start": "2000000000500ps", "priority": 0}]},
    "stop": {"until": "workload-done"}})");
  CHECK(got == expected);
}

TEST_CASE("import: hpcc rewrites other ns-3 rate and delay spellings exactly", "[scenario]") {
  const json got = hpcc(
      "5 1 4\n4\n"
      "0 4 100Gb/s 0.000001 0\n"  // bare delay: seconds, as in ns-3
      "1 4 12.5GBps 1500ps 0\n"   // bytes per second
      "2 4 1000kbps 2000ps 0\n"
      "3 4 2.5Gbps 1.5us 0\n",
      "0\n");
  const json& links = got["topology"]["links"];
  CHECK(links[0]["rate"] == "100Gbps");
  CHECK(links[0]["latency"] == "1000ns");
  CHECK(links[1]["rate"] == "100Gbps");
  CHECK(links[1]["latency"] == "1500ps");
  CHECK(links[2]["rate"] == "1Mbps");
  CHECK(links[2]["latency"] == "2ns");
  CHECK(links[3]["rate"] == "2.5Gbps");  // already rdmasim's syntax: kept as written
  CHECK(links[3]["latency"] == "1.5us");
  CHECK(got["workload"]["flows"].empty());
}

TEST_CASE("import: hpcc tolerates CRLF, trailing blanks and blank lines", "[scenario]") {
  const json crlf = hpcc(
      "4 1 3 \r\n3\r\n\r\n0 3 100Gbps 1000ns 0\r\n1 3 100Gbps 1000ns 0.001 \r\n"
      "2 3 25Gbps 1us 0\r\n\r\n",
      "1 \r\n\r\n0 1 3 100 10 2\t\r\n");
  const json plain = hpcc(kTopo, "1\n0 1 3 100 10 2\n");
  CHECK(crlf == plain);
  CHECK(plain["workload"]["flows"][0]["start"] == "2000000000ns");
}

TEST_CASE("import: hpcc refuses malformed input, naming the file and line", "[scenario]") {
  struct Case {
    const char* what;
    std::string topo, flows, path, value;
  };
  const std::string ok_flows = "1\n0 1 3 100 10 2\n";
  const std::vector<Case> cases = {
      {"count line with two numbers", "4 1\n3\n", ok_flows, "t.txt:1", "4 1"},
      {"non-numeric count", "four 1 3\n3\n", ok_flows, "t.txt:1", "four"},
      {"fewer links than declared", "4 1 3\n3\n0 3 1Gbps 1ns 0\n", ok_flows, "t.txt:1", "4 1 3"},
      {"more links than declared", std::string(kTopo) + "0 1 1Gbps 1ns 0\n", ok_flows, "t.txt:6",
       "0 1 1Gbps 1ns 0"},
      {"switch line with a wrong count", "4 2 0\n3\n", ok_flows, "t.txt:2", "3"},
      {"too few links to connect the nodes", "5 1 1\n3\n0 3 1Gbps 1ns 0\n", ok_flows, "t.txt:1",
       "5 1 1"},
      {"a million nodes and one link", "1000000 0 1\n0 1 1Gbps 1ns 0\n", ok_flows, "t.txt:1",
       "1000000 0 1"},
      {"link missing a column", "4 1 1\n3\n0 3 100Gbps 1000ns\n", ok_flows, "t.txt:3",
       "0 3 100Gbps 1000ns"},
      {"link to an unknown node", "4 1 1\n3\n0 9 100Gbps 1000ns 0\n", ok_flows, "t.txt:3", "9"},
      {"unknown rate unit", "4 1 1\n3\n0 3 100Gbs 1000ns 0\n", ok_flows, "t.txt:3", "100Gbs"},
      {"negative delay", "4 1 1\n3\n0 3 100Gbps -1ns 0\n", ok_flows, "t.txt:3", "-1ns"},
      {"error rate above 1", "4 1 1\n3\n0 3 100Gbps 1ns 2\n", ok_flows, "t.txt:3", "2"},
      {"bad flow count", kTopo, "two\n0 1 3 100 10 2\n", "f.txt:1", "two"},
      {"flow missing a column", kTopo, "1\n0 1 3 10 2\n", "f.txt:2", "0 1 3 10 2"},
      {"flow to an unknown node", kTopo, "1\n0 7 3 100 10 2\n", "f.txt:2", "7"},
      {"flow to a switch", kTopo, "1\n0 3 3 100 10 2\n", "f.txt:2", "3"},
      {"non-numeric size", kTopo, "2\n0 1 3 100 10 2\n1 2 3 100 12kB 2\n", "f.txt:3", "12kB"},
      {"zero size", kTopo, "1\n0 1 3 100 0 2\n", "f.txt:2", "0"},
      {"priority above 7", kTopo, "1\n0 1 9 100 10 2\n", "f.txt:2", "9"},
      {"start finer than a picosecond", kTopo, "1\n0 1 3 100 10 2.0000000000001\n", "f.txt:2",
       "2.0000000000001"},
      {"non-numeric start", kTopo, "1\n0 1 3 100 10 2s\n", "f.txt:2", "2s"},
      {"fewer flows than declared", kTopo, "3\n0 1 3 100 10 2\n", "f.txt:1", "3"},
      {"more flows than declared", kTopo, "1\n0 1 3 100 10 2\n\n1 0 3 100 10 2\n", "f.txt:4",
       "1 0 3 100 10 2"},
      {"empty flow file", kTopo, "\n\n", "f.txt", ""},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    const auto e = error_of([&] { hpcc(c.topo, c.flows); });
    REQUIRE(e.has_value());
    CHECK(e->path == c.path);
    CHECK(e->value == c.value);
    CHECK_FALSE(e->expected.empty());
  }
}

TEST_CASE("import: htsim connection matrix becomes flows on a fat-tree", "[scenario]") {
  const json got = scen::import_htsim(
      "Nodes 16\r\n"
      "Connections 3\n"
      "# a comment\n"
      "\n"
      "0->5 id 1 start 0 size 2000000\n"
      "5->0 id 2 start 2000000 size 1000  \n"
      "15->14 start 1500 size 1 id 3\n",
      "m.cm", 4, "perm");
  const json expected = json::parse(R"({
    "name": "perm", "seed": 1,
    "topology": {"generator": "fat-tree", "k": 4, "rate": "100Gbps", "latency": "1us"},
    "fabric": {"switch": {"latency": "0ns"}, "nic": {"mtu": "4000B"}},
    "workload": {"flows": [
      {"src": "h0", "dst": "h5", "size": "2000000B", "start": "0ns"},
      {"src": "h5", "dst": "h0", "size": "1000B", "start": "2000ns"},
      {"src": "h15", "dst": "h14", "size": "1B", "start": "1500ps"}]},
    "stop": {"until": "workload-done"}})");
  CHECK(got == expected);
}

TEST_CASE("import: htsim refuses malformed input, naming the file and line", "[scenario]") {
  struct Case {
    const char* what;
    std::string text;
    int k;
    std::string path, value;
  };
  const std::vector<Case> cases = {
      {"Nodes not k^3/4", "Nodes 128\nConnections 0\n", 16, "m.cm:1", "Nodes 128"},
      {"Connections not the line count", "Nodes 16\nConnections 2\n0->1 start 0 size 1\n", 4,
       "m.cm:2", "Connections 2"},
      {"bad count", "Nodes 16\nConnections x\n", 4, "m.cm:2", "x"},
      {"no Nodes line", "Connections 0\n", 4, "m.cm", ""},
      {"unknown header", "Nodes 16\nLinks 3\n", 4, "m.cm:2", "Links"},
      {"source beyond Nodes", "Nodes 16\nConnections 1\n16->1 start 0 size 1\n", 4, "m.cm:3", "16"},
      {"missing destination", "Nodes 16\nConnections 1\n3-> start 0 size 1\n", 4, "m.cm:3", "3->"},
      {"self connection", "Nodes 16\nConnections 1\n3->3 start 0 size 1\n", 4, "m.cm:3", "3->3"},
      {"non-numeric size", "Nodes 16\nConnections 1\n0->1 start 0 size 2MB\n", 4, "m.cm:3", "2MB"},
      {"missing size", "Nodes 16\nConnections 1\n0->1 id 1 start 0\n", 4, "m.cm:3",
       "0->1 id 1 start 0"},
      {"key without value", "Nodes 16\nConnections 1\n0->1 start 0 size\n", 4, "m.cm:3",
       "0->1 start 0 size"},
      {"unsupported key", "Nodes 16\nConnections 1\n0->1 start 0 size 1 prio 2\n", 4, "m.cm:3",
       "prio"},
      {"duplicate id",
       "Nodes 16\nConnections 2\n0->1 id 1 start 0 size 1\n1->0 id 1 start 0 size 1\n", 4, "m.cm:4",
       "1"},
      {"fractional picoseconds", "Nodes 16\nConnections 1\n0->1 start 0.5 size 1\n", 4, "m.cm:3",
       "0.5"},
      {"triggers", "Nodes 16\nConnections 0\nTriggers 1\n", 4, "m.cm:3", "Triggers 1"},
      {"odd k", "Nodes 16\nConnections 0\n", 5, "fat_tree_k", "5"},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    const auto e = error_of([&] { scen::import_htsim(c.text, "m.cm", c.k, "s"); });
    REQUIRE(e.has_value());
    CHECK(e->path == c.path);
    CHECK(e->value == c.value);
    CHECK_FALSE(e->expected.empty());
  }
  // The Nodes error names the k it checked against.
  const auto e = error_of([] { scen::import_htsim("Nodes 128\nConnections 0\n", "m.cm", 16, ""); });
  REQUIRE(e.has_value());
  CHECK_THAT(e->expected, Catch::Matchers::Contains("k=16") && Catch::Matchers::Contains("1024"));
}

// The README in ../shared/peers: fat.txt has 320 hosts, 56 switches, 480 links, 100 Gbps host
// links, 400 Gbps between switches, 1 µs per link; the 1 ms WebSearch file has 388 flows, 682 MB.
TEST_CASE("import: hpcc fat.txt and the 1 ms WebSearch flows (shared data)", "[scenario]") {
  RDMASIM_REQUIRE_SHARED(shared);
  const std::string dir = shared + "/peers/hpcc/";
  const json s = scen::import_hpcc(read_text(dir + "fat.txt"), "fat.txt",
                                   read_text(dir + "websearch_320h_30pct_0.001s_seed42.txt"),
                                   "websearch_320h_30pct_0.001s_seed42.txt", "websearch");
  const json& nodes = s["topology"]["nodes"];
  CHECK(nodes.size() == 376);
  std::set<std::string> hosts;
  int switches = 0;
  for (const json& n : nodes) {
    if (n["kind"] == "host") hosts.insert(n["name"].get<std::string>());
    if (n["kind"] == "switch") ++switches;
  }
  CHECK(hosts.size() == 320);
  CHECK(switches == 56);
  const json& links = s["topology"]["links"];
  CHECK(links.size() == 480);
  for (const json& l : links) {
    const bool host_link =
        hosts.count(l["a"].get<std::string>()) + hosts.count(l["b"].get<std::string>()) > 0;
    CHECK(l["rate"] == (host_link ? "100Gbps" : "400Gbps"));
    CHECK(l["latency"] == "1000ns");
    CHECK(l["loss_rate"] == 0.0);
  }
  const json& flows = s["workload"]["flows"];
  CHECK(flows.size() == 388);
  int64_t total = 0;
  for (const json& f : flows) {
    const std::string size = f["size"];
    total += std::stoll(size.substr(0, size.size() - 1));
    CHECK(hosts.count(f["src"].get<std::string>()) == 1);
    CHECK(hosts.count(f["dst"].get<std::string>()) == 1);
  }
  CHECK((total + 500'000) / 1'000'000 == 682);  // 682 MB, to the nearest MB
  CHECK(flows[0] == json::parse(R"({"src": "h124", "dst": "h312", "size": "2323151B",
                                    "start": "2000000261ns", "priority": 3})"));
}

TEST_CASE("import: hpcc 5 ms WebSearch flows: 3,100 flows, 5.24 GB (shared data)", "[scenario]") {
  RDMASIM_REQUIRE_SHARED(shared);
  const std::string dir = shared + "/peers/hpcc/";
  const json s = scen::import_hpcc(read_text(dir + "fat.txt"), "fat.txt",
                                   read_text(dir + "websearch_320h_30pct_0.005s_seed42.txt"),
                                   "websearch_320h_30pct_0.005s_seed42.txt", "websearch");
  const json& flows = s["workload"]["flows"];
  CHECK(flows.size() == 3100);
  int64_t total = 0;
  for (const json& f : flows) {
    const std::string size = f["size"];
    total += std::stoll(size.substr(0, size.size() - 1));
  }
  CHECK((total + 5'000'000) / 10'000'000 == 524);  // 5.24 GB, to the nearest 10 MB
}

TEST_CASE("import: hpcc incast8 gives 8 flows of 1 MB to h8 at 2 s (shared data)", "[scenario]") {
  RDMASIM_REQUIRE_SHARED(shared);
  const std::string dir = shared + "/peers/hpcc/";
  const json s = scen::import_hpcc(read_text(dir + "topo_incast8.txt"), "topo_incast8.txt",
                                   read_text(dir + "flow_incast8.txt"), "flow_incast8.txt", "i");
  CHECK(s["topology"]["nodes"].size() == 10);
  CHECK(s["topology"]["links"].size() == 9);
  const json& flows = s["workload"]["flows"];
  REQUIRE(flows.size() == 8);
  for (const json& f : flows) {
    CHECK(f["dst"] == "h8");
    CHECK(f["size"] == "1000000B");
    CHECK(f["start"] == "2000000000ns");
  }
}

TEST_CASE("import: htsim perm_1024 on k=16 gives 1024 flows of 2 MB, a permutation (shared data)",
          "[scenario]") {
  RDMASIM_REQUIRE_SHARED(shared);
  const std::string name = "perm_1024n_1024c_0u_2000000b.cm";
  const json s = scen::import_htsim(read_text(shared + "/peers/htsim/" + name), name, 16, "p");
  CHECK(s["topology"]["k"] == 16);
  const json& flows = s["workload"]["flows"];
  REQUIRE(flows.size() == 1024);
  std::set<std::string> srcs, dsts;
  for (const json& f : flows) {
    CHECK(f["size"] == "2000000B");
    CHECK(f["start"] == "0ns");
    srcs.insert(f["src"].get<std::string>());
    dsts.insert(f["dst"].get<std::string>());
  }
  CHECK(srcs.size() == 1024);
  CHECK(dsts.size() == 1024);
  // The wrong fat-tree is refused at the Nodes line.
  const auto e = error_of(
      [&] { scen::import_htsim(read_text(shared + "/peers/htsim/" + name), name, 8, ""); });
  REQUIRE(e.has_value());
  CHECK(e->path == name + ":1");
}

TEST_CASE(
    "import: htsim 128-host files on k=8: permutation and an incast from 8 racks (shared data)",
    "[scenario]") {
  RDMASIM_REQUIRE_SHARED(shared);
  const std::string dir = shared + "/peers/htsim/";
  const json perm = scen::import_htsim(read_text(dir + "perm_128n_128c_2MB.cm"), "perm", 8, "p");
  CHECK(perm["workload"]["flows"].size() == 128);
  const json incast =
      scen::import_htsim(read_text(dir + "incast_8to1_128n_1MB.cm"), "incast", 8, "i");
  const json& flows = incast["workload"]["flows"];
  REQUIRE(flows.size() == 8);
  std::set<int> racks;  // k/2 = 4 hosts per edge switch in htsim's numbering
  for (const json& f : flows) {
    CHECK(f["dst"] == "h0");
    CHECK(f["size"] == "1000000B");
    racks.insert(std::stoi(f["src"].get<std::string>().substr(1)) / 4);
  }
  CHECK(racks.size() == 8);
  CHECK(racks.count(0) == 0);
}
