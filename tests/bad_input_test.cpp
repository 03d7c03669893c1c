// Bad input through the real command line: `rdmasim run` must refuse it before any simulation
// with exit code 2 and "rdmasim: error: <path>: got <value>; expected <what>", never crash,
// and write no output folder. Each case writes a tiny scenario (2 hosts, 1 switch, one 1KB
// flow) into its own temporary directory and runs the binary on it.
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "temp_dir.hpp"

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

// The shared temporary folder (temp_dir.hpp), with JSON writing.
class TempDir : public test_support::TempDir {
 public:
  TempDir() : test_support::TempDir("rdmasim_bad_input") {}
  fs::path write_text(const std::string& name, const std::string& text) const {
    const fs::path p = test_support::TempDir::write(name, text);
    REQUIRE(!p.empty());
    return p;
  }
  fs::path write(const std::string& name, const Json& j) const {
    return write_text(name, j.dump(2));
  }
};

// h0 - s0 - h1, 100Gbps / 1us links, one 1KB flow h0 -> h1.
Json minimal_topology() {
  return Json::parse(R"({
    "nodes": [{"name": "h0", "kind": "host"}, {"name": "h1", "kind": "host"},
              {"name": "s0", "kind": "switch"}],
    "links": [{"a": "h0", "b": "s0", "rate": "100Gbps", "latency": "1us"},
              {"a": "s0", "b": "h1", "rate": "100Gbps", "latency": "1us"}]
  })");
}

Json minimal_scenario() {
  Json s;
  s["name"] = "bad-input-probe";
  s["topology"] = minimal_topology();
  s["workload"] = Json::parse(R"({"flows": [{"src": "h0", "dst": "h1", "size": "1KB"}]})");
  return s;
}

using test_support::shell_quote;

struct RunResult {
  int raw_status = -1;
  bool exited = false;    // WIFEXITED
  int exit_code = -1;     // WEXITSTATUS when exited
  bool signaled = false;  // WIFSIGNALED (a crash)
  std::string output;     // stdout and stderr together
};

// Runs `rdmasim <args...>` with stdout and stderr captured into a file in `dir`.
RunResult run_rdmasim(const std::vector<std::string>& args, const TempDir& dir) {
  const fs::path log = dir.path() / "rdmasim_output.txt";
  // exec: the shell is replaced by rdmasim, so a signal shows as WIFSIGNALED, not 128+N.
  std::string cmd = "exec " + shell_quote(RDMASIM_BIN_DIR "/rdmasim");
  for (const auto& a : args) cmd += " " + shell_quote(a);
  cmd += " </dev/null >" + shell_quote(log.string()) + " 2>&1";
  RunResult r;
  r.raw_status = std::system(cmd.c_str());
  if (r.raw_status != -1) {
    r.exited = WIFEXITED(r.raw_status);
    r.signaled = WIFSIGNALED(r.raw_status);
    if (r.exited) r.exit_code = WEXITSTATUS(r.raw_status);
  }
  std::ifstream in(log);
  std::stringstream ss;
  ss << in.rdbuf();
  r.output = ss.str();
  return r;
}

// What a refusal must say: "rdmasim: error: <path>: got <got>; expected ...", plus any
// further substrings (usually a word of the "expected" part).
struct Refusal {
  std::string path;
  std::optional<std::string> got;  // the offending value as printed, if the case has one
  std::vector<std::string> also;
};

// Runs `rdmasim run <scenario> --out <dir>/out -q <extra...>` and checks the refusal.
void expect_refused(const TempDir& dir, const fs::path& scenario, const Refusal& want,
                    const std::vector<std::string>& extra = {}) {
  const fs::path out_dir = dir.path() / "out";
  std::vector<std::string> args = {"run", scenario.string(), "--out", out_dir.string(), "-q"};
  args.insert(args.end(), extra.begin(), extra.end());
  const RunResult r = run_rdmasim(args, dir);
  INFO("command: rdmasim run " << scenario.string() << " ...");
  INFO("output:\n" << r.output);
  REQUIRE(r.raw_status != -1);
  CHECK_FALSE(r.signaled);
  REQUIRE(r.exited);
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("internal error") == std::string::npos);
  CHECK(r.output.find("rdmasim: error: ") != std::string::npos);
  CHECK(r.output.find(want.path + ": got ") != std::string::npos);
  CHECK(r.output.find("; expected ") != std::string::npos);
  if (want.got) CHECK(r.output.find(want.path + ": got " + *want.got + ";") != std::string::npos);
  for (const auto& s : want.also) CHECK(r.output.find(s) != std::string::npos);
  // Refused before any simulation: no results were written.
  CHECK_FALSE(fs::exists(out_dir));
}

// The common shape: write the scenario as scenario.json and expect a refusal.
void expect_refused(const Json& scenario, const Refusal& want,
                    const std::vector<std::string>& extra = {}) {
  TempDir dir;
  expect_refused(dir, dir.write("scenario.json", scenario), want, extra);
}

}  // namespace

TEST_CASE("bad input: control, a valid minimal scenario runs and writes its outputs",
          "[unit][bad_input]") {
  TempDir dir;
  const fs::path scenario = dir.write("scenario.json", minimal_scenario());
  const fs::path out_dir = dir.path() / "out";
  const RunResult r = run_rdmasim({"run", scenario.string(), "--out", out_dir.string(), "-q"}, dir);
  INFO("output:\n" << r.output);
  REQUIRE(r.exited);
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("error") == std::string::npos);
  CHECK(fs::exists(out_dir / "summary.json"));

  // The same scenario with its topology in a file, and valid --set overrides (one of them
  // adding a section the file does not have), also runs.
  const fs::path out2 = dir.path() / "out2";
  Json s = minimal_scenario();
  dir.write("topo.json", s["topology"]);
  s["topology"] = {{"file", "topo.json"}};
  const fs::path scenario2 = dir.write("scenario2.json", s);
  const RunResult r2 =
      run_rdmasim({"run", scenario2.string(), "--out", out2.string(), "-q", "--set",
                   "workload.flows[0].size=2KB", "--set", "fabric.switch.latency=300ns"},
                  dir);
  INFO("output 2:\n" << r2.output);
  REQUIRE(r2.exited);
  CHECK(r2.exit_code == 0);
  CHECK(fs::exists(out2 / "summary.json"));
}

TEST_CASE("bad input: JSON syntax error names file:line:col", "[unit][bad_input]") {
  TempDir dir;
  // Line 3, column 16 is the stray comma after the opening brace.
  const fs::path p = dir.write_text("broken.json",
                                    "{\n"
                                    "  \"name\": \"x\",\n"
                                    "  \"topology\": {,\n"
                                    "}\n");
  expect_refused(dir, p, {"broken.json:3:16", "nothing", {"valid JSON"}});
}

TEST_CASE("bad input: unknown key at the top level", "[unit][bad_input]") {
  Json s = minimal_scenario();
  s["wrokload"] = Json::object();
  expect_refused(s, {"wrokload", "{}", {"no such key"}});
}

TEST_CASE("bad input: unknown nested key fabric.nic.mtuu", "[unit][bad_input]") {
  Json s = minimal_scenario();
  s["fabric"]["nic"]["mtuu"] = "4KiB";
  expect_refused(s, {"fabric.nic.mtuu", "\"4KiB\"", {"no such key"}});
}

TEST_CASE("bad input: duration with an unknown unit", "[unit][bad_input]") {
  Json s = minimal_scenario();
  s["topology"]["links"][1]["latency"] = "5 parsecs";
  expect_refused(s, {"topology.links[1].latency", "\"5 parsecs\"", {"with a unit", "\"1us\""}});
}

TEST_CASE("bad input: a bare number where a duration string is needed", "[unit][bad_input]") {
  Json s = minimal_scenario();
  s["fabric"]["nic"]["rto"] = 200;
  expect_refused(s, {"fabric.nic.rto", "200", {"a duration with a unit"}});
}

TEST_CASE("bad input: negative link rate", "[unit][bad_input]") {
  Json s = minimal_scenario();
  s["topology"]["links"][1]["rate"] = "-100Gbps";
  expect_refused(s, {"topology.links[1].rate", "\"-100Gbps\"", {"non-negative rate"}});
}

TEST_CASE("bad input: zero link latency", "[unit][bad_input]") {
  Json s = minimal_scenario();
  s["topology"]["links"][0]["latency"] = "0ns";
  expect_refused(s, {"topology.links[0].latency", "\"0ns\"", {"at least 1ps"}});
}

TEST_CASE("bad input: flow to a node that does not exist", "[unit][bad_input]") {
  Json s = minimal_scenario();
  s["workload"]["flows"][0]["dst"] = "h9";
  expect_refused(s, {"workload.flows[0].dst", "\"h9\"", {"the name of a host"}});
}

TEST_CASE("bad input: flow from a host to itself", "[unit][bad_input]") {
  Json s = minimal_scenario();
  s["workload"]["flows"][0]["dst"] = "h0";
  expect_refused(s, {"workload.flows[0].dst", "\"h0\"", {"other than src"}});
}

TEST_CASE("bad input: flow without a required key", "[unit][bad_input]") {
  // Used to escape as a JSON library exception ("internal error", exit 1).
  Json s = minimal_scenario();
  s["workload"]["flows"][0].erase("dst");
  expect_refused(s, {"workload.flows[0].dst", "nothing", {"required key"}});

  Json incast = minimal_scenario();
  incast["workload"] = Json::parse(R"({"incast": {"senders": ["h1"], "size": "1KB"}})");
  expect_refused(incast, {"workload.incast.receiver", "nothing", {"required key"}});
}

TEST_CASE("bad input: a generator's host listed twice", "[unit][bad_input]") {
  // fuzz_scenario found it: the generator's own check escaped as "internal error" (exit 1).
  Json s = minimal_scenario();
  s["workload"] = Json::parse(
      R"({"poisson": {"hosts": ["h0", "h1", "h0"], "cdf": "websearch", "load": 0.3,
          "duration": "10us"}})");
  expect_refused(s, {"workload.poisson.hosts[2]", "\"h0\"", {"not already listed (hosts[0])"}});
  Json p = minimal_scenario();
  p["workload"] = Json::parse(R"({"permutation": {"hosts": ["h1", "h0", "h1"], "size": "1KB"}})");
  expect_refused(p, {"workload.permutation.hosts[2]", "\"h1\"", {"not already listed"}});
}

TEST_CASE("bad input: disconnected topology", "[unit][bad_input]") {
  Json s = minimal_scenario();
  s["topology"]["nodes"].push_back({{"name", "h2"}, {"kind", "host"}});  // no link
  expect_refused(s, {"topology.nodes[3]", std::nullopt, {"h2", "not connected"}});
}

TEST_CASE("bad input: self-loop link", "[unit][bad_input]") {
  Json s = minimal_scenario();
  s["topology"]["links"].push_back(
      {{"a", "s0"}, {"b", "s0"}, {"rate", "100Gbps"}, {"latency", "1us"}});
  expect_refused(s, {"topology.links[2]", std::nullopt, {"self-loop"}});
}

TEST_CASE("bad input: duplicate node name", "[unit][bad_input]") {
  Json s = minimal_scenario();
  s["topology"]["nodes"].push_back({{"name", "s0"}, {"kind", "switch"}});
  expect_refused(s, {"topology.nodes[3].name", "\"s0\"", {"duplicate"}});
}

TEST_CASE("bad input: empty workload", "[unit][bad_input]") {
  Json s = minimal_scenario();
  s["workload"] = Json::object();
  expect_refused(s, {"workload", "{}", {"at least one flow"}});
}

TEST_CASE("bad input: missing scenario file", "[unit][bad_input]") {
  TempDir dir;
  expect_refused(dir, dir.path() / "no_such_scenario.json",
                 {"no_such_scenario.json", "nothing", {"a readable file"}});
}

TEST_CASE("bad input: missing topology file referenced by {\"file\": ...}", "[unit][bad_input]") {
  Json s = minimal_scenario();
  s["topology"] = {{"file", "no_such_topology.json"}};
  expect_refused(s, {"no_such_topology.json", "nothing", {"a readable file"}});
}

TEST_CASE("bad input: error inside a topology file names the file and the path",
          "[unit][bad_input]") {
  TempDir dir;
  Json t = minimal_topology();
  t["links"][1]["rate"] = "fast";
  dir.write("topo.json", t);
  Json s = minimal_scenario();
  s["topology"] = {{"file", "topo.json"}};
  expect_refused(dir, dir.write("scenario.json", s),
                 {"topo.json: links[1].rate", "\"fast\"", {"rate"}});
}

TEST_CASE("bad input: out-of-range integers", "[unit][bad_input]") {
  Json prio = minimal_scenario();
  prio["fabric"]["nic"]["data_priority"] = 9;
  expect_refused(prio, {"fabric.nic.data_priority", "9", {"[0, 7]"}});

  Json ack = minimal_scenario();
  ack["fabric"]["nic"]["ack_every"] = 0;
  expect_refused(ack, {"fabric.nic.ack_every", "0", {"an integer in [1, "}});
}

TEST_CASE("bad input: PFC and ECN thresholds that contradict each other", "[unit][bad_input]") {
  Json prio = minimal_scenario();
  prio["fabric"]["pfc"] = {{"enabled", true}, {"priorities", {9}}};
  expect_refused(prio, {"fabric.pfc.priorities[0]", "9", {"[0, 7]"}});

  Json xon = minimal_scenario();
  xon["fabric"]["pfc"] = {{"enabled", true}, {"xoff", "50KB"}, {"xon_offset", "50KB"}};
  expect_refused(xon, {"fabric.pfc.xon_offset", "50KB", {"less than fabric.pfc.xoff"}});

  Json red = minimal_scenario();
  red["fabric"]["ecn"] = {{"enabled", true}, {"kmin", "20KB"}, {"kmax", "10KB"}};
  expect_refused(red, {"fabric.ecn.kmax", "10KB", {"more than fabric.ecn.kmin"}});

  Json pmax = minimal_scenario();
  pmax["fabric"]["ecn"] = {{"pmax", 1.5}};
  expect_refused(pmax, {"fabric.ecn.pmax", "1.5", {"[0, 1]"}});
}

TEST_CASE("bad input: DCQCN presets, knobs and sampled flows", "[unit][bad_input]") {
  Json preset = minimal_scenario();
  preset["fabric"]["dcqcn"] = {{"enabled", true}, {"preset", "dctcp"}};
  expect_refused(preset, {"fabric.dcqcn.preset", "\"dctcp\"", {"hpcc-ns3", "dcqcn-paper"}});

  Json g = minimal_scenario();
  g["fabric"]["dcqcn"] = {{"dce_tcp_g", 2048}};
  expect_refused(g, {"fabric.dcqcn.dce_tcp_g", "2048", {"[0, 1023]"}});

  Json rate = minimal_scenario();
  rate["fabric"]["dcqcn"] = {{"rpg_ai_rate", 5}};
  expect_refused(rate, {"fabric.dcqcn.rpg_ai_rate", "5", {"rate"}});

  Json feedback = minimal_scenario();
  feedback["fabric"]["dcqcn"] = {{"feedback", "ecn-echo"}};
  expect_refused(feedback, {"fabric.dcqcn.feedback", "\"ecn-echo\"", {"cnp", "ack"}});

  Json flow = minimal_scenario();
  flow["outputs"]["timeseries"] = {{"flows", {7}}};
  expect_refused(flow, {"outputs.timeseries.flows[0]", "7", {"a flow id in [0,"}});
}

TEST_CASE("bad input: MMU parameters out of range or contradicting the buffer",
          "[unit][bad_input]") {
  Json alpha = minimal_scenario();
  alpha["fabric"]["switch"] = {{"threshold_mode", "dynamic"}, {"alpha", 0}};
  expect_refused(alpha, {"fabric.switch.alpha", "0", {"[1/1024, 64]"}});

  Json big = minimal_scenario();
  big["fabric"]["switch"] = {{"alpha", "128/1"}};
  expect_refused(big, {"fabric.switch.alpha", "\"128/1\"", {"[1/1024, 64]"}});

  Json words = minimal_scenario();
  words["fabric"]["switch"] = {{"alpha", "an eighth"}};
  expect_refused(words, {"fabric.switch.alpha", "\"an eighth\"", {"\"1/8\""}});

  Json mode = minimal_scenario();
  mode["fabric"]["switch"] = {{"threshold_mode", "adaptive"}};
  expect_refused(mode, {"fabric.switch.threshold_mode", "\"adaptive\"", {"dynamic"}});

  Json per_port_alpha = minimal_scenario();
  per_port_alpha["overrides"] = {{{"switch", "s0"}, {"priority", 3}, {"set", {{"alpha", -1}}}}};
  expect_refused(per_port_alpha, {"overrides[0].set.alpha", "-1", {"[1/1024, 64]"}});

  Json reserve = minimal_scenario();
  reserve["fabric"]["switch"] = {{"buffer", "64KB"}, {"reserve", "4KB"}};
  expect_refused(reserve, {"fabric.switch.buffer", "64KB", {"reserves (64KB)", "shared pool"}});

  Json headroom = minimal_scenario();
  headroom["fabric"]["switch"] = {{"buffer", "40KB"}};
  headroom["fabric"]["pfc"] = {
      {"enabled", true}, {"xoff", "10KB"}, {"headroom", "25KB"}, {"xon_offset", "2KB"}};
  expect_refused(headroom, {"fabric.switch.buffer", "40KB", {"PFC headroom (50KB)"}});
}

TEST_CASE("bad input: traffic classes (DSCP table, scheduler weights, flow classes)",
          "[unit][bad_input][qos]") {
  Json map = minimal_scenario();
  map["fabric"]["qos"] = {{"dscp_to_priority", {{"64", 1}}}};
  expect_refused(map, {"fabric.qos.dscp_to_priority.64", "\"64\"", {"a DSCP \"0\" .. \"63\""}});

  Json map_prio = minimal_scenario();
  map_prio["fabric"]["qos"] = {{"dscp_to_priority", {{"26", 8}}}};
  expect_refused(map_prio, {"fabric.qos.dscp_to_priority.26", "8", {"[0, 7]"}});

  Json flow_dscp = minimal_scenario();
  flow_dscp["workload"]["flows"][0]["dscp"] = 64;
  expect_refused(flow_dscp, {"workload.flows[0].dscp", "64", {"[0, 63]"}});

  Json weight = minimal_scenario();
  weight["fabric"]["qos"] = {{"scheduler", {{"3", 0}}}};
  expect_refused(weight, {"fabric.qos.scheduler.3", "0", {"\"strict\" or a DWRR weight"}});

  Json name = minimal_scenario();
  name["fabric"]["qos"] = {{"scheduler", {{"high", 2}}}};
  expect_refused(name, {"fabric.qos.scheduler.high", "\"high\"", {"a priority \"0\" .. \"7\""}});

  Json trust = minimal_scenario();
  trust["fabric"]["qos"] = {{"trust", "l3"}};
  expect_refused(trust, {"fabric.qos.trust", "\"l3\"", {"\"pcp\", \"dscp\""}});

  Json both = minimal_scenario();
  both["workload"]["flows"][0]["dscp"] = 26;
  both["workload"]["flows"][0]["priority"] = 5;
  expect_refused(both, {"workload.flows[0].priority", "5", {"priority 3", "DSCP 26"}});

  Json ack = minimal_scenario();
  ack["fabric"]["qos"] = {{"trust", "dscp"}};
  ack["fabric"]["nic"]["ack_dscp"] = 0;
  expect_refused(ack, {"fabric.nic.ack_dscp", "0", {"fabric.nic.ack_priority (7)"}});

  Json quantum = minimal_scenario();
  quantum["fabric"]["qos"] = {{"quantum", "10B"}};
  expect_refused(quantum, {"fabric.qos.quantum", "10B", {"at least 64B"}});

  Json over = minimal_scenario();
  over["overrides"] = Json::parse(R"([{"switch": "s0", "priority": 2, "set": {"scheduler": 0}}])");
  expect_refused(over, {"overrides[0].set.scheduler", "0", {"a DWRR weight"}});
}

TEST_CASE("bad input: unknown topology generator", "[unit][bad_input]") {
  Json s = minimal_scenario();
  s["topology"] = {{"generator", "torus"}, {"k", 4}};
  expect_refused(s, {"topology.generator", "\"torus\"", {"leaf-spine", "fat-tree"}});
}

TEST_CASE("bad input: --set without '='", "[unit][bad_input]") {
  expect_refused(minimal_scenario(), {"--set", "fabric.nic.mtu", {"path.to.key=value"}},
                 {"--set", "fabric.nic.mtu"});
}

TEST_CASE("bad input: --set to an array element that does not exist", "[unit][bad_input]") {
  expect_refused(minimal_scenario(),
                 {"--set topology.links[5].rate", "2 elements", {"an existing array element"}},
                 {"--set", "topology.links[5].rate=1Gbps"});
  // The "links[N]" shorthand for topology.links is refused the same way.
  expect_refused(minimal_scenario(),
                 {"--set links[2].rate", "2 elements", {"an existing array element"}},
                 {"--set", "links[2].rate=1Gbps"});
}

TEST_CASE("bad input: --set to an invalid value is checked like the file", "[unit][bad_input]") {
  expect_refused(minimal_scenario(), {"fabric.nic.mtu", "1", {"at least 64 bytes"}},
                 {"--set", "fabric.nic.mtu=1"});
}

TEST_CASE("bad input: include cycle", "[unit][bad_input]") {
  TempDir dir;
  dir.write("a.json", Json{{"include", {"b.json"}}});
  dir.write("b.json", Json{{"include", {"a.json"}}});
  Json s = minimal_scenario();
  s["include"] = {"a.json"};
  expect_refused(dir, dir.write("scenario.json", s),
                 {"b.json: include[0]", "\"a.json\"", {"no include cycle"}});
}

TEST_CASE("bad input: an include name the operating system refuses", "[unit][bad_input]") {
  // A component longer than NAME_MAX (255 on Linux): resolving it fails inside
  // std::filesystem, which must come out as a refusal of that include, not an exception.
  TempDir dir;
  Json s = minimal_scenario();
  const std::string name(300, 'x');
  s["include"] = {name + "/a.json"};
  expect_refused(dir, dir.write("scenario.json", s),
                 {"include[0]", "\"" + name + "/a.json\"", {"a usable file name"}});
}

TEST_CASE("bad input: explicit route through switches that are not linked", "[unit][bad_input]") {
  // h0 - s0 - s1 - s2 - h1: the route s0 -> s2 skips s1.
  Json s = minimal_scenario();
  s["topology"] = Json::parse(R"({
    "defaults": {"rate": "100Gbps", "latency": "1us"},
    "nodes": [{"name": "h0", "kind": "host"}, {"name": "h1", "kind": "host"},
              {"name": "s0", "kind": "switch"}, {"name": "s1", "kind": "switch"},
              {"name": "s2", "kind": "switch"}],
    "links": [{"a": "h0", "b": "s0"}, {"a": "s0", "b": "s1"}, {"a": "s1", "b": "s2"},
              {"a": "s2", "b": "h1"}]
  })");
  s["workload"]["flows"][0]["route"] = {"s0", "s2"};
  expect_refused(s, {"workload.flows[0].route[1]", "\"s2\"", {"a switch linked to \"s0\""}});
}

TEST_CASE("bad input: a refused run creates no part of a nested --out folder",
          "[unit][bad_input]") {
  // --out points at a nested folder: nothing of it may be created when the input is bad.
  TempDir dir;
  Json s = minimal_scenario();
  s["topology"]["links"][0]["rate"] = "0Gbps";
  const fs::path scenario = dir.write("scenario.json", s);
  const fs::path out_dir = dir.path() / "results" / "run1";
  const RunResult r = run_rdmasim({"run", scenario.string(), "--out", out_dir.string()}, dir);
  INFO("output:\n" << r.output);
  REQUIRE(r.exited);
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("topology.links[0].rate: got \"0Gbps\"") != std::string::npos);
  CHECK_FALSE(fs::exists(out_dir));
  CHECK_FALSE(fs::exists(dir.path() / "results"));
}

TEST_CASE("bad input: NIC receive buffer and NIC-sent PFC", "[unit][bad_input][nic_pfc]") {
  Json drain = minimal_scenario();
  drain["fabric"]["nic"] = {{"rx_drain_rate", "-5Gbps"}};
  expect_refused(drain, {"fabric.nic.rx_drain_rate", "\"-5Gbps\"", {}});

  Json bare = minimal_scenario();
  bare["fabric"]["nic"] = {{"rx_drain_rate", 50}};
  expect_refused(bare, {"fabric.nic.rx_drain_rate", "50", {"a positive rate with a unit"}});

  Json neg = minimal_scenario();
  neg["fabric"]["nic"] = {{"rx_buffer", -1}};
  expect_refused(neg, {"fabric.nic.rx_buffer", "-1", {"at least 0 bytes"}});

  Json tiny = minimal_scenario();
  tiny["fabric"]["nic"] = {{"rx_drain_rate", "50Gbps"}, {"rx_buffer", "1KB"}};
  expect_refused(tiny, {"fabric.nic.rx_buffer", "1KB", {"at least one full frame (4178B)"}});

  Json no_pfc = minimal_scenario();
  no_pfc["fabric"]["nic"] = {{"rx_drain_rate", "50Gbps"}, {"pfc_xoff", "40KB"}};
  expect_refused(no_pfc, {"fabric.nic.pfc_xoff", "40KB", {"fabric.pfc.enabled"}});

  Json no_drain = minimal_scenario();
  no_drain["fabric"]["pfc"] = {{"enabled", true}};
  no_drain["fabric"]["nic"] = {{"pfc_xoff", "40KB"}};
  expect_refused(no_drain, {"fabric.nic.pfc_xoff", "40KB", {"rx_drain_rate is 0"}});

  Json xon = minimal_scenario();
  xon["fabric"]["pfc"] = {{"enabled", true}};
  xon["fabric"]["nic"] = {
      {"rx_drain_rate", "50Gbps"}, {"pfc_xoff", "8KB"}, {"pfc_xon_offset", "8KB"}};
  expect_refused(xon, {"fabric.nic.pfc_xon_offset", "8KB", {"less than fabric.nic.pfc_xoff"}});

  Json small = minimal_scenario();
  small["fabric"]["pfc"] = {{"enabled", true}};
  small["fabric"]["nic"] = {
      {"rx_drain_rate", "50Gbps"}, {"pfc_xoff", "40KB"}, {"rx_buffer", "40KB"}};
  expect_refused(small, {"fabric.nic.rx_buffer", "40KB", {"more than fabric.nic.pfc_xoff"}});
}

TEST_CASE("bad input: per-port ECN overrides", "[unit][bad_input][ecn]") {
  // kmin above the fabric's kmax (1600KB) once resolved for that (port, priority).
  Json kmin = minimal_scenario();
  kmin["overrides"] = Json::parse(
      R"([{"switch": "s0", "port": 1, "priority": 3, "set": {"ecn": {"kmin": "2MB"}}}])");
  expect_refused(kmin,
                 {"overrides[0].set.ecn.kmin", "2MB", {"switch s0 port 1 priority 3", "kmax"}});

  Json kmax = minimal_scenario();
  kmax["fabric"]["ecn"] = {{"enabled", true}, {"kmin", "100KB"}, {"kmax", "400KB"}};
  kmax["overrides"] = Json::parse(R"([{"switch": "s0", "set": {"ecn": {"kmax": "50KB"}}}])");
  expect_refused(kmax, {"overrides[0].set.ecn.kmax", "50KB", {"kmin 100KB"}});

  Json mark_at = minimal_scenario();
  mark_at["overrides"] =
      Json::parse(R"([{"switch": "s0", "port": 0, "set": {"ecn": {"mark_at": "dequeue"}}}])");
  expect_refused(mark_at, {"overrides[0].set.ecn.mark_at", "\"dequeue\"", {"fabric-wide"}});

  Json pmax = minimal_scenario();
  pmax["overrides"] =
      Json::parse(R"([{"switch": "s0", "priority": 3, "set": {"ecn": {"pmax": 2}}}])");
  expect_refused(pmax, {"overrides[0].set.ecn.pmax", "2", {"[0, 1]"}});
}
