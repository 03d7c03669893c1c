// The command line as a user meets it: the real rdmasim binary, run in a temporary directory,
// its exit code, what it prints and the files it writes.
#include <sys/wait.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "temp_dir.hpp"

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using test_support::contains;
using test_support::lines_of;
using test_support::rdmasim;
using test_support::read_file;
using test_support::Run;
using test_support::TempDir;

using test_support::shell_quote;

size_t count_of(const std::string& text, char c) {
  return static_cast<size_t>(std::count(text.begin(), text.end(), c));
}

// The line of `text` that starts with `prefix` ("" if none).
std::string line_starting(const std::string& text, const std::string& prefix) {
  for (const auto& l : lines_of(text)) {
    if (l.rfind(prefix, 0) == 0) return l;
  }
  return "";
}

const std::string kQuickstart = RDMASIM_SOURCE_DIR "/scenarios/quickstart.json";

// Header lines of the output files, as README.md documents them.
const char* const kFlowsHeader =
    "flow_id,tag,src,dst,bytes,priority,qps,start_ns,finish_ns,fct_ns,ideal_fct_ns,slowdown,"
    "retransmitted_packets,timeouts,completed";
const char* const kLinksHeader =
    "link,direction,from,from_port,to,to_port,rate_Gbps,up,packets,wire_bytes,utilisation,"
    "busy_ns,max_queue_bytes,tail_drops,lost_packets,stalled_ns,pause_frames_sent,"
    "pause_frames_received,paused_ns,ecn_marks,credit_stalled_ns,fecn_marks";
const char* const kTimeseriesHeader = "time_ns,series,queue_bytes,tx_bytes,rate_limit_Gbps";

}  // namespace

TEST_CASE("cli: --version and run --list-params", "[cli]") {
  TempDir dir("rdmasim_cli");
  const Run v = rdmasim({"--version"}, dir);
  CHECK(v.exit_code == 0);
  CHECK(v.out.rfind("rdmasim ", 0) == 0);
  CHECK(v.out.size() > std::string("rdmasim \n").size());  // a version follows

  const Run p = rdmasim({"run", "--list-params"}, dir);
  INFO(p.out << p.err);
  CHECK(p.exit_code == 0);
  // Name, unit, default (the documented defaults of SwitchParams and NicParams).
  const std::string latency = line_starting(p.out, "fabric.switch.latency ");
  const std::string mtu = line_starting(p.out, "fabric.nic.mtu ");
  const std::string rto = line_starting(p.out, "fabric.nic.rto ");
  CHECK(contains(latency, " time "));
  CHECK(contains(latency, " 500ns "));
  CHECK(contains(mtu, " bytes "));
  CHECK(contains(mtu, " 4KiB "));
  CHECK(contains(rto, " time "));
  CHECK(contains(rto, " 1ms "));
  // Listing the parameters runs nothing.
  CHECK_FALSE(fs::exists(dir / "out"));
}

TEST_CASE("cli: run writes the documented outputs, identically twice", "[cli]") {
  TempDir dir("rdmasim_cli");
  const fs::path a = dir / "a", b = dir / "b";
  const Run r = rdmasim({"run", kQuickstart, "--out", a.string(), "-q"}, dir);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.empty());  // -q: no headline

  for (const char* f : {"summary.json", "run_stats.json", "flows.csv", "links.csv", "classes.csv",
                        "nics.csv", "timeseries.csv"}) {
    INFO(f);
    CHECK(fs::is_regular_file(a / f));
  }
  for (const auto& e : fs::directory_iterator(a)) {
    INFO(e.path());
    CHECK_FALSE(contains(e.path().filename().string(), ".tmp."));
  }
  const std::string flows = read_file(a / "flows.csv");
  const std::vector<std::string> flow_lines = lines_of(flows);
  REQUIRE(!flow_lines.empty());
  CHECK(flow_lines[0] == kFlowsHeader);
  CHECK(lines_of(read_file(a / "links.csv"))[0] == kLinksHeader);
  CHECK(lines_of(read_file(a / "timeseries.csv"))[0] == kTimeseriesHeader);

  // quickstart: a 4-sender incast plus a permutation of all 16 hosts: 20 flows, one row each,
  // every one completed, 15 columns per row.
  const Json summary = Json::parse(read_file(a / "summary.json"));
  CHECK(summary["results"]["flows"] == 20);
  CHECK(flow_lines.size() == 1 + 20);
  for (size_t i = 1; i < flow_lines.size(); ++i) {
    INFO(flow_lines[i]);
    CHECK(count_of(flow_lines[i], ',') == 14);
    CHECK(flow_lines[i].back() == '1');
    CHECK(flow_lines[i].rfind(std::to_string(i - 1) + ",", 0) == 0);
  }
  // 24 links, both directions.
  CHECK(lines_of(read_file(a / "links.csv")).size() == 1 + 48);
  CHECK(summary["topology"] == Json::parse(R"({"hosts": 16, "switches": 6, "links": 24})"));
  const Json stats = Json::parse(read_file(a / "run_stats.json"));
  CHECK(stats.contains("wall_seconds"));
  CHECK(stats.contains("events"));

  // Determinism: a second run gives the same bytes.
  const Run r2 = rdmasim({"run", kQuickstart, "--out", b.string(), "-q"}, dir);
  REQUIRE(r2.exit_code == 0);
  CHECK(read_file(b / "flows.csv") == flows);
  CHECK(read_file(b / "summary.json") == read_file(a / "summary.json"));
  CHECK(read_file(b / "links.csv") == read_file(a / "links.csv"));

  // A different seed changes the run (the comparison above could not pass trivially).
  const fs::path c = dir / "c";
  REQUIRE(rdmasim({"run", kQuickstart, "--out", c.string(), "-q", "--seed", "2"}, dir).exit_code ==
          0);
  CHECK(read_file(c / "flows.csv") != flows);
}

TEST_CASE("cli: check prints the fabric's size and fails --strict on a down link", "[cli]") {
  TempDir dir("rdmasim_cli");
  const Run ok = rdmasim({"check", kQuickstart}, dir);
  INFO(ok.out << ok.err);
  CHECK(ok.exit_code == 0);
  CHECK(contains(ok.out, "16 hosts, 6 switches, 24 links"));
  CHECK(contains(ok.out, "no problems found"));
  CHECK(rdmasim({"check", kQuickstart, "--strict"}, dir).exit_code == 0);

  const std::string failure = "link_failures=[{\"a\": \"leaf0\", \"b\": \"spine0\"}]";
  const Run warn = rdmasim({"check", kQuickstart, "--set", failure}, dir);
  INFO(warn.out << warn.err);
  CHECK(warn.exit_code == 0);  // a warning, not a failure, without --strict
  CHECK(contains(warn.out, "warnings:"));
  CHECK(contains(warn.out, "1 link(s) down"));

  const Run strict = rdmasim({"check", kQuickstart, "--set", failure, "--strict"}, dir);
  INFO(strict.out << strict.err);
  CHECK(strict.exit_code == 3);
  CHECK(contains(strict.out, "1 link(s) down"));
  // check runs nothing and writes nothing.
  CHECK_FALSE(fs::exists(dir / "out"));
}

TEST_CASE("cli: topo gen, topo show, --dot, and the file used by a scenario", "[cli]") {
  TempDir dir("rdmasim_cli");
  const fs::path topo = dir / "ls.json";
  const Run gen = rdmasim({"topo", "gen", "leaf-spine", "--leaves", "4", "--spines", "2",
                           "--hosts_per_leaf", "4", "-o", topo.string()},
                          dir);
  INFO(gen.out << gen.err);
  REQUIRE(gen.exit_code == 0);
  const Json t = Json::parse(read_file(topo));
  CHECK(t["nodes"].size() == 16 + 4 + 2);
  CHECK(t["links"].size() == 16 + 4 * 2);

  const fs::path dot = dir / "ls.dot";
  const Run show = rdmasim({"topo", "show", topo.string(), "--dot", dot.string()}, dir);
  INFO(show.out << show.err);
  CHECK(show.exit_code == 0);
  CHECK(contains(show.out, "16 hosts, 6 switches, 24 links"));
  const std::string drawing = read_file(dot);
  CHECK(drawing.rfind("graph", 0) == 0);
  CHECK(count_of(drawing, '\n') >= 22 + 24);  // a line per node and per link

  // The generated file as a scenario's topology: h0 (leaf0) to h15 (leaf3).
  const Json scenario = {
      {"name", "from-file"},
      {"topology", {{"file", "ls.json"}}},
      {"workload", {{"flows", {{{"src", "h0"}, {"dst", "h15"}, {"size", "64KB"}}}}}}};
  REQUIRE(!dir.write("scenario.json", scenario.dump()).empty());
  const Run run = rdmasim({"run", "scenario.json", "--out", "out", "-q"}, dir);
  INFO(run.out << run.err);
  REQUIRE(run.exit_code == 0);
  const Json summary = Json::parse(read_file(dir / "out" / "summary.json"));
  CHECK(summary["topology"]["hosts"] == 16);
  CHECK(summary["results"]["flows_completed"] == 1);
  CHECK(summary["results"]["payload_bytes_delivered"] == 64'000);
}

TEST_CASE("cli: imported hpcc and htsim scenarios run", "[cli]") {
  TempDir dir("rdmasim_cli");
  // hpcc: nodes 0..2 hosts, node 3 the switch; three flows starting at 2 s (HPCC's habit).
  REQUIRE(!dir.write("topo.txt",
                     "4 1 3\n"
                     "3\n"
                     "0 3 100Gbps 1000ns 0\n"
                     "1 3 100Gbps 1000ns 0\n"
                     "2 3 100Gbps 1000ns 0\n")
               .empty());
  REQUIRE(!dir.write("flows.txt",
                     "3\n"
                     "0 1 3 100 20000 2.000000000\n"
                     "1 2 3 100 30000 2.000001000\n"
                     "2 0 3 100 1000 2.000002000\n")
               .empty());
  const Run imp = rdmasim({"import", "hpcc", "topo.txt", "flows.txt", "-o", "hpcc.json"}, dir);
  INFO(imp.out << imp.err);
  REQUIRE(imp.exit_code == 0);
  const Run run = rdmasim({"run", "hpcc.json", "--out", "hpcc_out", "-q"}, dir);
  INFO(run.out << run.err);
  REQUIRE(run.exit_code == 0);
  const std::vector<std::string> rows = lines_of(read_file(dir / "hpcc_out" / "flows.csv"));
  REQUIRE(rows.size() == 1 + 3);
  // The peer's flows, in order: src, dst, bytes, start.
  CHECK(rows[1].rfind("0,flows,h0,h1,20000,3,1,2000000000.000,", 0) == 0);
  CHECK(rows[2].rfind("1,flows,h1,h2,30000,3,1,2000001000.000,", 0) == 0);
  CHECK(rows[3].rfind("2,flows,h2,h0,1000,3,1,2000002000.000,", 0) == 0);
  for (size_t i = 1; i < rows.size(); ++i) CHECK(rows[i].back() == '1');

  // htsim: a k = 4 fat-tree has 16 hosts; start times are in picoseconds.
  REQUIRE(!dir.write("m.cm",
                     "Nodes 16\n"
                     "Connections 2\n"
                     "0->15 id 1 start 0 size 40000\n"
                     "5->3 id 2 start 1000000 size 8000\n")
               .empty());
  const Run imp2 = rdmasim({"import", "htsim", "m.cm", "--fat-tree-k", "4", "-o", "ht.json"}, dir);
  INFO(imp2.out << imp2.err);
  REQUIRE(imp2.exit_code == 0);
  const Run run2 = rdmasim({"run", "ht.json", "--out", "ht_out", "-q"}, dir);
  INFO(run2.out << run2.err);
  REQUIRE(run2.exit_code == 0);
  const std::vector<std::string> rows2 = lines_of(read_file(dir / "ht_out" / "flows.csv"));
  REQUIRE(rows2.size() == 1 + 2);
  CHECK(rows2[1].rfind("0,flows,h0,h15,40000,", 0) == 0);
  CHECK(rows2[2].rfind("1,flows,h5,h3,8000,3,1,1000.000,", 0) == 0);  // 10^6 ps = 1000 ns
  const Json summary = Json::parse(read_file(dir / "ht_out" / "summary.json"));
  CHECK(summary["topology"]["hosts"] == 16);
  CHECK(summary["topology"]["switches"] == 20);  // k^2/4 cores + k^2 edge and aggregation
  CHECK(summary["results"]["flows_completed"] == 2);
}

TEST_CASE("cli: check reports a cyclic buffer dependency, and fails with --strict",
          "[cli][deadlock]") {
  TempDir dir;
  const std::string ring = RDMASIM_SOURCE_DIR "/scenarios/deadlock-ring4.json";
  const Run warn = rdmasim({"check", ring}, dir);
  CHECK(warn.exit_code == 0);
  CHECK(contains(warn.out, "cyclic buffer dependency"));
  CHECK(contains(warn.out, "s0:2:p3 -> s1:1:p3 -> s2:1:p3 -> s3:1:p3 -> s0:2:p3"));
  CHECK(rdmasim({"check", ring, "--strict"}, dir).exit_code == 3);
  // Without PFC nothing is held: no dependency, no warning.
  const Run lossy = rdmasim({"check", ring, "--strict", "--set", "fabric.pfc.enabled=false"}, dir);
  CHECK(lossy.exit_code == 0);
  CHECK(contains(lossy.out, "no lossless class"));
  // All pairs on the quickstart leaf-spine: shortest paths are up/down, no cycle.
  const Run pairs = rdmasim(
      {"check", kQuickstart, "--all-pairs", "--strict", "--set", "fabric.pfc.enabled=true"}, dir);
  CHECK(pairs.exit_code == 0);
  CHECK(contains(pairs.out, "all host pairs"));
}
