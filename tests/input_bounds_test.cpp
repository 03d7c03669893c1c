// Quantities are bounded so that every sum and product the simulation forms stays in range
// (scenarios/loader/quantity_bounds.hpp): a size, time or rate beyond them, or a message of
// more packets than a queue pair counts, is refused with its path and the bound (exit 2),
// in scenarios and in both importers; never a crash.
#include <catch2/catch.hpp>
#include <string>

#include "cli_runner.hpp"
#include "scenario_helpers.hpp"
#include "scenarios/loader/input_error.hpp"
#include "scenarios/loader/json_reader.hpp"
#include "scenarios/loader/scenario.hpp"
#include "temp_dir.hpp"

using test_support::rdmasim;
using test_support::Run;
using test_support::TempDir;

namespace {

scen::Json one_flow(const scen::Json& size) {
  scen::Json j;
  j["name"] = "bounds";
  j["topology"] = test_support::star(2);
  j["workload"]["flows"] = {{{"src", "h0"}, {"dst", "h1"}, {"size", size}}};
  return j;
}

std::string refused_path(const scen::Json& j) {
  try {
    (void)test_support::load(j);
  } catch (const scen::InputError& e) {
    return e.path;
  }
  return "(accepted)";
}

}  // namespace

TEST_CASE("sizes, times and rates beyond the bounds are refused with their path",
          "[unit][bounds][robustness]") {
  CHECK(refused_path(one_flow(INT64_MAX)) == "workload.flows[0].size");
  CHECK(refused_path(one_flow("2TiB")) == "workload.flows[0].size");
  CHECK(refused_path(one_flow("1TiB")) == "(accepted)");
  // 1 TiB in 64-byte packets is 2^34 packets: more than a QP's 31-bit PSNs.
  scen::Json small_mtu = one_flow("1TiB");
  small_mtu["fabric"]["nic"]["mtu"] = 64;
  CHECK(refused_path(small_mtu) == "workload.flows[0].size");
  scen::Json late = one_flow("1MiB");
  late["workload"]["flows"][0]["start"] = "2000000s";
  CHECK(refused_path(late) == "workload.flows[0].start");
  scen::Json fast = one_flow("1MiB");
  fast["topology"]["links"][0]["rate"] = "2000Tbps";
  CHECK(refused_path(fast) == "topology.links[0].rate");
  scen::Json slow = one_flow("1MiB");
  slow["topology"]["links"][0]["rate"] = "10bps";
  CHECK(refused_path(slow) == "topology.links[0].rate");
}

TEST_CASE("a flow of 2^63 - 1 bytes exits 2 in check and run, and in both importers",
          "[unit][bounds][robustness][cli]") {
  TempDir dir("rdmasim_bounds");
  REQUIRE(!dir.write("huge.json", one_flow(INT64_MAX).dump()).empty());
  for (const bool run : {false, true}) {
    const char* cmd = run ? "run" : "check";
    const Run r = run ? rdmasim({"run", "huge.json", "--out", "out", "-q"}, dir)
                      : rdmasim({"check", "huge.json"}, dir);
    INFO(cmd << ": " << r.out << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("workload.flows[0].size") != std::string::npos);
    CHECK(r.err.find("1TiB") != std::string::npos);
  }
  CHECK_FALSE(std::filesystem::exists(dir / "out"));
  REQUIRE(!dir.write("topo.txt", "3 1 2\n2\n0 2 100Gbps 1000ns 0\n1 2 100Gbps 1000ns 0\n").empty());
  REQUIRE(!dir.write("flows.txt", "1\n0 1 3 100 9223372036854775807 2.0\n").empty());
  const Run hpcc = rdmasim({"import", "hpcc", "topo.txt", "flows.txt", "-o", "h.json"}, dir);
  INFO(hpcc.out << hpcc.err);
  CHECK(hpcc.exit_code == 2);
  CHECK(hpcc.err.find("flows.txt:2") != std::string::npos);
  REQUIRE(!dir.write("m.cm",
                     "Nodes 16\nConnections 1\n0->15 id 1 start 0 size "
                     "9223372036854775807\n")
               .empty());
  const Run htsim = rdmasim({"import", "htsim", "m.cm", "--fat-tree-k", "4", "-o", "t.json"}, dir);
  INFO(htsim.out << htsim.err);
  CHECK(htsim.exit_code == 2);
  CHECK(htsim.err.find("m.cm:3") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir / "h.json"));
  CHECK_FALSE(std::filesystem::exists(dir / "t.json"));
}

TEST_CASE("import hpcc of a topology declaring 10^9 nodes exits 2",
          "[unit][bounds][robustness][cli]") {
  TempDir dir("rdmasim_bounds");
  REQUIRE(!dir.write("topo.txt", "1000000000 1 1\n0\n0 1 100Gbps 1000ns 0\n").empty());
  REQUIRE(!dir.write("flows.txt", "0\n").empty());
  const Run r = rdmasim({"import", "hpcc", "topo.txt", "flows.txt", "-o", "h.json"}, dir);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("topo.txt:1") != std::string::npos);
  CHECK(r.err.find("1000000") != std::string::npos);
}

TEST_CASE("JSON nested 100,000 deep and numbers beyond a double exit 2 with their place",
          "[unit][bounds][robustness][cli]") {
  TempDir dir("rdmasim_bounds");
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  REQUIRE(!dir.write("deep.json", "{\"name\": " + deep + "}").empty());
  const Run a = rdmasim({"check", "deep.json"}, dir);
  INFO(a.err);
  CHECK(a.exit_code == 2);
  CHECK(a.err.find("deep.json:1:") != std::string::npos);
  CHECK(a.err.find("nested at most 256") != std::string::npos);
  scen::Json j = one_flow("1MiB");
  REQUIRE(!dir.write("ok.json", j.dump()).empty());
  std::string text = j.dump();
  text.replace(text.find("\"1MiB\""), 6, "1e999");
  REQUIRE(!dir.write("huge_number.json", text).empty());
  const Run b = rdmasim({"check", "huge_number.json"}, dir);
  INFO(b.err);
  CHECK(b.exit_code == 2);
  CHECK(b.err.find("huge_number.json") != std::string::npos);
  const Run c = rdmasim({"check", "ok.json", "--set", "fabric.nic.mtu=1e999"}, dir);
  INFO(c.err);
  CHECK(c.exit_code == 2);
  CHECK(c.err.find("--set fabric.nic.mtu") != std::string::npos);
  const Run d = rdmasim({"check", "ok.json", "--set",
                         "fabric.nic.mtu=" + std::string(1000, '[') + std::string(1000, ']')},
                        dir);
  CHECK(d.exit_code == 2);
  CHECK(rdmasim({"check", "ok.json"}, dir).exit_code == 0);
}

TEST_CASE("sweep -j beyond 4 per core is refused, never a crash",
          "[unit][bounds][robustness][cli]") {
  TempDir dir("rdmasim_bounds");
  const std::string sweep = RDMASIM_SOURCE_DIR "/scenarios/sweeps/allreduce-sizes.json";
  for (const char* j : {"100000", "1000"}) {
    const Run r = rdmasim({"sweep", sweep, "-j", j, "--out", "o", "-q"}, dir);
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("--jobs") != std::string::npos);
    CHECK(r.err.find(std::string(j) == "1000" ? "per core" : "at most 4096") != std::string::npos);
  }
  CHECK_FALSE(std::filesystem::exists(dir / "o" / "points"));
}

TEST_CASE("inputs once reported as internal errors exit 2 with their path",
          "[unit][bounds][robustness][cli]") {
  scen::Json incast;
  incast["name"] = "incast";
  incast["topology"] = test_support::star(4);
  incast["workload"]["incast"] = {
      {"senders", {"h0", "h1", "h0"}}, {"receiver", "h3"}, {"size", "1MiB"}};
  CHECK(refused_path(incast) == "workload.incast.senders[2]");
  scen::Json fat;
  fat["name"] = "fat";
  fat["topology"] = {{"generator", "fat-tree"}, {"k", 64}};
  fat["workload"]["flows"] = {{{"src", "h0"}, {"dst", "h1"}, {"size", "1MiB"}}};
  CHECK(refused_path(fat) == "topology");
  TempDir dir("rdmasim_bounds");
  const Run cal = rdmasim(
      {"calibrate", "--cluster", RDMASIM_SOURCE_DIR "/scenarios/clusters/dgx-h100-1node.json",
       "--trace", "missing.txt", "--min-size", "abc", "-o", "p.json"},
      dir);
  INFO(cal.err);
  CHECK(cal.exit_code == 2);
  CHECK(cal.err.find("--min-size") != std::string::npos);
}

TEST_CASE("a generated topology beyond the routing tables' indices is refused before it is built",
          "[unit][bounds][robustness]") {
  // The lower bounds of its nodes and hosts from the generator's parameters are enough: the
  // refusal says "at least" (after building, it would give the exact counts, in seconds).
  const auto refusal = [](const scen::Json& topology) {
    scen::Json j;
    j["name"] = "big";
    j["topology"] = topology;
    j["workload"]["flows"] = {{{"src", "h0"}, {"dst", "h1"}, {"size", "1MiB"}}};
    try {
      (void)test_support::load(j);
    } catch (const scen::InputError& e) {
      return e.path + ": " + e.value;
    }
    return std::string("(accepted)");
  };
  CHECK(refusal({{"generator", "fat-tree"}, {"k", 64}}) ==
        "topology: at least 70656 nodes x 65536 hosts");
  CHECK(refusal({{"generator", "rail"},
                 {"nodes", {{"count", 55834}, {"preset", "dgx-h100"}}},
                 {"nodes_per_leaf", 16}}) == "topology: at least 893352 nodes x 893344 hosts");
  CHECK(refusal({{"generator", "leaf-spine"}, {"leaves", 1000}, {"hosts_per_leaf", 100}}) ==
        "topology: at least 101002 nodes x 100000 hosts");
  CHECK(refusal({{"generator", "clos3"},
                 {"pods", 100},
                 {"tors_per_pod", 10},
                 {"aggs_per_pod", 4},
                 {"cores", 4},
                 {"hosts_per_tor", 100}}) == "topology: at least 101404 nodes x 100000 hosts");
}

TEST_CASE("every binary and subcommand answers --help with exit 0", "[unit][robustness][cli]") {
  TempDir dir("rdmasim_help");
  for (const std::vector<std::string>& args : {std::vector<std::string>{"--help"},
                                               {"topo", "--help"},
                                               {"topo", "show", "--help"},
                                               {"topo", "gen", "--help"},
                                               {"run", "--help"},
                                               {"check", "--help"},
                                               {"schema", "--help"},
                                               {"sweep", "--help"},
                                               {"calibrate", "--help"},
                                               {"validate", "--help"},
                                               {"import", "--help"},
                                               {"chakra", "--help"},
                                               {"chakra", "generate", "--help"},
                                               {"report", "--help"},
                                               {"plot", "--help"}}) {
    const Run r = rdmasim(args, dir);
    std::string joined;
    for (const auto& a : args) joined += a + " ";
    INFO(joined << ": " << r.err);
    CHECK(r.exit_code == 0);
    CHECK_FALSE(r.out.empty());
  }
  const std::string bench = std::string(RDMASIM_BIN_DIR) + "/rdmasim_bench";
  if (std::filesystem::exists(bench)) {
    CHECK(std::system((test_support::shell_quote(bench) + " --help >/dev/null").c_str()) == 0);
  }
}

TEST_CASE("no temporary file outlives a write, a failed one, or a killed writer",
          "[unit][robustness][cli]") {
  TempDir dir("rdmasim_tmp");
  // topo gen -o FOLDER: refused, and nothing written beside the folder.
  std::filesystem::create_directories(dir / "outdir");
  const Run r = rdmasim({"topo", "gen", "leaf-spine", "-o", "outdir"}, dir);
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("not a folder") != std::string::npos);
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
    INFO(e.path());
    CHECK(e.path().filename().string().find(".tmp.") == std::string::npos);
  }
  // A temporary copy left by a writer that was killed (its process is gone) is removed the next
  // time the same file is written; a live process's is left alone.
  const std::string stale = ".t.json.tmp.999999999";
  REQUIRE(!dir.write(stale, "half").empty());
  const std::string live = ".t.json.tmp." + std::to_string(::getppid());
  REQUIRE(!dir.write(live, "in progress").empty());
  const Run g = rdmasim({"topo", "gen", "leaf-spine", "-o", "t.json"}, dir);
  INFO(g.err);
  REQUIRE(g.exit_code == 0);
  CHECK(std::filesystem::is_regular_file(dir / "t.json"));
  CHECK_FALSE(std::filesystem::exists(dir / stale));
  CHECK(std::filesystem::exists(dir / live));
}

TEST_CASE("a key given twice in one JSON object is refused with its path",
          "[unit][robustness][cli]") {
  TempDir dir("rdmasim_dup");
  REQUIRE(!dir.write("dup.json",
                     R"({"name": "d", "topology": {"generator": "leaf-spine", "leaves": 1,
                          "spines": 1, "hosts_per_leaf": 2},
                         "workload": {"flows": [{"src": "h0", "dst": "h1", "size": "1MiB",
                                                 "size": "2MiB"}]}})")
               .empty());
  const Run r = rdmasim({"check", "dup.json"}, dir);
  INFO(r.err);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("dup.json: workload.flows[0].size") != std::string::npos);
  // The same keys in different objects are fine.
  REQUIRE(!dir.write("ok.json", R"({"a": {"x": 1}, "b": {"x": 1}, "c": [{"x": 1}, {"x": 2}]})")
               .empty());
  CHECK_NOTHROW(scen::read_json_file((dir / "ok.json").string()));
}

TEST_CASE("sweep --tasks must be a positive count", "[unit][robustness][cli]") {
  TempDir dir("rdmasim_tasks");
  const std::string sweep = RDMASIM_SOURCE_DIR "/scenarios/sweeps/allreduce-sizes.json";
  for (const char* t : {"-3", "0", "99999999999"}) {
    const Run r = rdmasim(
        {"sweep", sweep, "--emit-slurm", "job.sh", "--tasks=" + std::string(t), "--out", "o"}, dir);
    INFO(t << ": " << r.err);
    CHECK(r.exit_code == 2);
    CHECK_FALSE(std::filesystem::exists(dir / "job.sh"));
  }
}

TEST_CASE("error messages escape raw bytes: a binary file as a scenario",
          "[unit][robustness][cli]") {
  CHECK(scen::printable(std::string("a\x01\t\xc2\xb5s\xff\x7f", 8)) ==
        "a\\x01\t\xc2\xb5s\\xff\\x7f");
  CHECK(scen::printable("\xe2\x82") == "\\xe2\\x82");  // a cut sequence
  TempDir dir("rdmasim_binary");
  const std::string elf(
      "\x7f"
      "ELF\x02\x01\x01\x00\x00\xff\xfe{\x1b[31m",
      17);
  dir.write("binary.json", elf);
  const Run r = rdmasim({"run", "binary.json", "-q"}, dir);
  INFO(r.err);
  CHECK(r.exit_code == 2);
  for (const char c : r.err) {
    const auto u = static_cast<unsigned char>(c);
    INFO(static_cast<int>(u));
    CHECK((u >= 0x20 || c == '\n' || c == '\t'));
    CHECK(u != 0x7f);
    CHECK(u < 0x80);  // the file's bytes are all escaped (none of them valid UTF-8)
  }
}

// Found by fuzz_scenario: a --set path with bytes that are not UTF-8 became a JSON key, and the
// message naming it as unknown failed in the JSON serializer (an internal error).
TEST_CASE(
    "a --set path or topo gen option that is not UTF-8 text is refused, not an internal error",
    "[unit][robustness][cli]") {
  scen::Json root = scen::Json::object();
  try {
    scen::apply_set(root,
                    "fabric.nic\xff"
                    "=4KiB");
    FAIL("accepted");
  } catch (const scen::InputError& e) {
    CHECK(std::string(e.what()) == "--set: got fabric.nic\\xff; expected a path of UTF-8 text");
  }
  CHECK(root.empty());
  TempDir dir("rdmasim_utf8_path");
  const std::string scenario = RDMASIM_SOURCE_DIR "/scenarios/quickstart.json";
  for (const std::vector<std::string>& args :
       // An unknown key ("fabrix") whose value holds the bad key: the message prints that value.
       {std::vector<std::string>{"check", scenario, "--set",
                                 "fabrix.ni\xff"
                                 "c=4KiB"},
        std::vector<std::string>{"run", scenario, "--set",
                                 "fabrix.ni\xff"
                                 "c=4KiB",
                                 "--out", "o", "-q"},
        std::vector<std::string>{"topo", "gen", "leaf-spine", "--lea\xffves", "2"},
        std::vector<std::string>{"topo", "gen", "leaf-spi\xffne", "--leaves", "2"}}) {
    const Run r = rdmasim(args, dir);
    INFO(args[0] << ": " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("UTF-8 text") != std::string::npos);
    CHECK(r.err.find("internal error") == std::string::npos);
    CHECK_FALSE(std::filesystem::exists(dir / "o"));
  }
}

TEST_CASE("a --set value that is not UTF-8 text is refused, not an internal error",
          "[unit][robustness][cli]") {
  CHECK(scen::is_utf8("400Gbps \xc2\xb5s \xe2\x82\xac \xf0\x9f\x98\x80"));
  CHECK_FALSE(scen::is_utf8("7\xff"));
  CHECK_FALSE(scen::is_utf8("\xc0\xaf"));          // an overlong '/'
  CHECK_FALSE(scen::is_utf8("\xed\xa0\x80"));      // a UTF-16 surrogate
  CHECK_FALSE(scen::is_utf8("\xf4\x90\x80\x80"));  // beyond U+10FFFF
  CHECK_FALSE(scen::is_utf8("\xe2\x82"));          // a cut sequence
  try {
    scen::parse_cli_value(
        "7\xff"
        "b",
        "--set seed");
    FAIL("accepted");
  } catch (const scen::InputError& e) {
    CHECK(std::string(e.what()) == "--set seed: got 7\\xffb; expected UTF-8 text");
  }
  TempDir dir("rdmasim_utf8");
  const std::string scenario = RDMASIM_SOURCE_DIR "/scenarios/quickstart.json";
  const std::string set =
      "seed=7\xff"
      "b";
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"check", scenario, "--set", set},
        std::vector<std::string>{"run", scenario, "--set", set, "--out", "o", "-q"}}) {
    const Run r = rdmasim(args, dir);
    INFO(args[0] << ": " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("expected UTF-8 text") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(dir / "o"));
  }
}

TEST_CASE("a message shows a JSON value compactly and never fails", "[unit][robustness]") {
  // Bytes that are not UTF-8 cannot reach a value through the readers, but a message printing
  // one must not throw from the serializer (as Json::dump() does): they print as U+FFFD.
  const scen::Json stray = std::string("ni\xff") + "c";
  CHECK_THROWS(stray.dump());
  CHECK(scen::message_text(stray) ==
        "\"ni\xef\xbf\xbd"
        "c\"");
  // An object or array is cut at 80 characters; a string is shown whole (a long file name).
  scen::Json big = scen::Json::array();
  for (int i = 0; i < 100; ++i) big.push_back(i);
  const std::string shown = scen::message_text(big);
  CHECK(shown.size() == 80);
  CHECK(shown.substr(0, 7) == "[0,1,2,");
  CHECK(shown.substr(77) == "...");
  const std::string name(300, 'x');
  CHECK(scen::message_text(name) == "\"" + name + "\"");
  CHECK(scen::message_text(scen::Json(0.125)) == "0.125");
}
