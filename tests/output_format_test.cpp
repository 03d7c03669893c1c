// The output contract (issue 17 item 12): units unambiguous in every file (_Gbps bits, _GBps
// bytes per second; never _gbps), numbers in summary.json written as JSON numbers (with the
// end time exact in picoseconds), and every CSV field as RFC 4180 writes it, so that names
// holding commas or quotes keep their rows whole and read back as written.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "temp_dir.hpp"

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using test_support::contains;
using test_support::rdmasim;
using test_support::read_file;
using test_support::Run;
using test_support::TempDir;

// RFC 4180 records (quoted fields may hold commas, doubled quotes and line breaks).
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows(1);
  std::string field;
  bool quoted = false, any = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    any = true;
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      REQUIRE(field.empty());  // a quote opens a field or is doubled inside one
      quoted = true;
    } else if (c == ',') {
      rows.back().push_back(field);
      field.clear();
    } else if (c == '\n') {
      rows.back().push_back(field);
      field.clear();
      rows.emplace_back();
      any = false;
    } else {
      field += c;
    }
  }
  REQUIRE_FALSE(quoted);
  if (any) rows.back().push_back(field);
  if (rows.back().empty()) rows.pop_back();
  return rows;
}

// Hosts named with a comma and a quote, a switch with a space; a flow between them, sampled.
const char* const kAwkwardNames = R"({
  "name": "awkward",
  "topology": {
    "nodes": [{"name": "h,0", "kind": "host"}, {"name": "h\"1", "kind": "host"},
              {"name": "sw 0", "kind": "switch"}],
    "links": [{"a": "h,0", "b": "sw 0", "rate": "100Gbps", "latency": "1us"},
              {"a": "h\"1", "b": "sw 0", "rate": "100Gbps", "latency": "1us"}]},
  "fabric": {"pfc": {"enabled": true}},
  "workload": {"flows": [{"src": "h,0", "dst": "h\"1", "size": "100KB"}]},
  "outputs": {"timeseries": {"ports": ["h,0"], "flows": [0], "interval": "10us"}}
})";

// Every key in `j` (recursively), with its value.
void each_key(const Json& j, const std::function<void(const std::string&, const Json&)>& f) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      f(it.key(), it.value());
      each_key(it.value(), f);
    }
  } else if (j.is_array()) {
    for (const auto& v : j) each_key(v, f);
  }
}

}  // namespace

TEST_CASE("outputs: CSV fields as RFC 4180 writes them, names with commas and quotes kept",
          "[scenario][outputs][cli]") {
  TempDir dir("rdmasim_format");
  dir.write("awkward.json", kAwkwardNames);
  const Run r = rdmasim({"run", "awkward.json", "-o", "out", "-q"}, dir);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  int files = 0;
  for (const auto& e : fs::directory_iterator(dir / "out")) {
    if (e.path().extension() != ".csv") continue;
    ++files;
    const auto rows = parse_csv(read_file(e.path()));
    INFO(e.path().filename().string());
    REQUIRE_FALSE(rows.empty());  // a header at least (pfc.csv: no pause in this run)
    for (const auto& row : rows) CHECK(row.size() == rows[0].size());
  }
  CHECK(files >= 6);  // flows, links, classes, nics, timeseries, pfc
  const auto flows = parse_csv(read_file(dir / "out/flows.csv"));
  CHECK(flows[1][2] == "h,0");
  CHECK(flows[1][3] == "h\"1");
  const auto nics = parse_csv(read_file(dir / "out/nics.csv"));
  CHECK(nics[1][0] == "h,0");
  CHECK(nics[2][0] == "h\"1");
  const auto links = parse_csv(read_file(dir / "out/links.csv"));
  CHECK(links[1][2] == "h,0");
  CHECK(links[1][4] == "sw 0");
  CHECK(parse_csv(read_file(dir / "out/timeseries.csv"))[1][1] == "h,0");
  // compare reads such a flows.csv back.
  const Run cmp = rdmasim({"compare", "out", "out"}, dir);
  INFO(cmp.out << cmp.err);
  CHECK(cmp.exit_code == 0);
}

TEST_CASE("outputs: summary.json writes numbers, the end time exact in ps",
          "[scenario][outputs][cli]") {
  TempDir dir("rdmasim_numbers");
  const Run r =
      rdmasim({"run", RDMASIM_SOURCE_DIR "/scenarios/quickstart.json", "-o", "out", "-q"}, dir);
  REQUIRE(r.exit_code == 0);
  const Json summary = Json::parse(read_file(dir / "out/summary.json"));
  const Json& res = summary["results"];
  REQUIRE(res["end_time_ps"].is_number_integer());
  CHECK(res["end_time_ns"].is_number());
  CHECK(res["end_time_ns"].get<double>() ==
        Approx(static_cast<double>(res["end_time_ps"].get<int64_t>()) / 1000).epsilon(1e-15));
  for (const char* key :
       {"fct_p50_ns", "fct_p99_ns", "fct_max_ns", "slowdown_p50", "slowdown_p99", "goodput_Gbps"}) {
    INFO(key);
    CHECK(res[key].is_number());
  }
  // No result is a number written as text.
  each_key(res, [](const std::string& key, const Json& v) {
    if (!v.is_string()) return;
    const std::string s = v.get<std::string>();
    INFO(key << " = " << s);
    CHECK(s.find_first_not_of("0123456789.-") != std::string::npos);
  });
  const Json stats = Json::parse(read_file(dir / "out/run_stats.json"));
  CHECK(stats["simulated_ps"] == res["end_time_ps"]);
}

TEST_CASE("outputs: rates are _Gbps (bits) or _GBps (bytes), never _gbps",
          "[scenario][outputs][cli]") {
  TempDir dir("rdmasim_units");
  for (const char* scenario : {"quickstart", "nvls-allreduce-1node", "roce-dcqcn-convergence"}) {
    const std::string out = std::string("out-") + scenario;
    const Run r =
        rdmasim({"run", RDMASIM_SOURCE_DIR "/scenarios/" + std::string(scenario) + ".json", "-o",
                 out, "-q", "--set", "stop.time=200us"},
                dir);
    INFO(scenario << ": " << r.out << r.err);
    REQUIRE(r.exit_code == 0);
    for (const auto& e : fs::directory_iterator(dir / out)) {
      INFO(e.path().string());
      if (e.path().extension() == ".csv") {
        const std::string text = read_file(e.path());
        CHECK_FALSE(contains(text.substr(0, text.find('\n')), "_gbps"));
      } else if (e.path().extension() == ".json") {
        each_key(Json::parse(read_file(e.path())), [](const std::string& key, const Json&) {
          INFO(key);
          CHECK_FALSE(contains(key, "_gbps"));
        });
      }
    }
  }
  const auto collectives = parse_csv(read_file(dir / "out-nvls-allreduce-1node/collectives.csv"));
  CHECK(std::find(collectives[0].begin(), collectives[0].end(), "busbw_GBps") !=
        collectives[0].end());
  const Json summary =
      Json::parse(read_file(dir / "out-nvls-allreduce-1node/summary.json"))["results"];
  CHECK(summary["collective"]["busbw_GBps"].is_number());
}
