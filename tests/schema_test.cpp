// The scenario format's JSON Schema (rdmasim schema) and the generated parameter reference:
// every shipped scenario validates with a real validator (Debian's python3-jsonschema), a
// misspelt or mistyped parameter does not, and docs/parameters.md is what the build generates.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "cli_runner.hpp"
#include "models/host_path.hpp"
#include "scenarios/loader/collective_section.hpp"
#include "scenarios/loader/json_reader.hpp"
#include "scenarios/loader/param_registry.hpp"
#include "scenarios/loader/scenario.hpp"
#include "scenarios/loader/scenario_schema.hpp"
#include "temp_dir.hpp"
#include "topologies/gpu_nodes.hpp"

namespace {

namespace fs = std::filesystem;
using scen::Json;
using test_support::rdmasim;
using test_support::TempDir;

const std::string kSource = RDMASIM_SOURCE_DIR;

// Validates each file against the schema with python3-jsonschema: one line per file,
// "ok NAME" or "invalid NAME: PATH: MESSAGE"; exit 3 when the module is missing.
constexpr const char* kValidator = R"(import json, sys
try:
    import jsonschema
except ImportError:
    sys.exit(3)
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
v = jsonschema.Draft202012Validator(schema)
for name in sys.argv[2:]:
    errors = sorted(v.iter_errors(json.load(open(name))), key=lambda e: list(e.path))
    if errors:
        e = errors[0]
        print("invalid %s: %s: %s" % (name, "/".join(str(p) for p in e.path), e.message[:200]))
    else:
        print("ok %s" % name)
)";

std::string python() {
  return fs::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
}

// Runs the validator over `files`; returns its output (exit code in `code`).
std::string validate(const TempDir& dir, const std::vector<std::string>& files, int& code) {
  { std::ofstream(dir / "validate.py") << kValidator; }
  std::string cmd = python() + " " + test_support::shell_quote((dir / "validate.py").string()) +
                    " " + test_support::shell_quote((dir / "schema.json").string());
  for (const auto& f : files) cmd += " " + test_support::shell_quote(f);
  cmd += " > " + test_support::shell_quote((dir / "validation.txt").string()) + " 2>&1";
  const int status = std::system(cmd.c_str());
  code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return test_support::read_file(dir / "validation.txt");
}

void write_schema(const TempDir& dir) {
  const auto r = rdmasim({"schema", "-o", "schema.json"}, dir);
  REQUIRE(r.exit_code == 0);
  REQUIRE(fs::is_regular_file(dir / "schema.json"));
}

// Scenarios with the keys the shipped ones leave out (each generator, inline nodes and GPU
// servers, host paths, every workload generator, training layers, pause storms, link events and
// failures, a topology file, Chakra traces): the loader accepts each (`rdmasim check`), the schema
// too, and what the loader reads in them is described. topo.json is the file of file-topology.json.
const std::vector<std::pair<std::string, std::string>> kRareForms = {
    {"gpu-leaf-spine.json",
     R"({"topology": {"generator": "leaf-spine", "name": "ks", "leaves": 2, "spines": 2, )"
     R"("hosts_per_leaf": 16, "uplinks_per_pair": 2, "fabric_rate": "400Gbps", )"
     R"("host_latency": "100ns", "fabric_latency": "200ns", "nodes": {"count": 2, )"
     R"("preset": "dgx-h100", "nvlink_buffer": "auto", "nvlink_latency": "100ns", )"
     R"("nvswitch_latency": "100ns", "host_memory_rate": "400Gbps", )"
     R"("host_path": {"preset": "pcie-gen5-x16", "doorbell_latency": "300ns"}, )"
     R"("host_path_overrides": [{"servers": [1], "rails": [0, 1], "preset": "pcie-gen4-x16", )"
     R"("dma_read_latency": "1us", "dma_write_latency": "500ns", "pcie_rate": "200Gbps"}]}}, )"
     R"("workload": {"priority": 3, "qps": 2, "transport": "rdma", "flows": [{"src": 16, )"
     R"("dst": "h20", "size": "1MB", "start": "1us", "priority": 3, "qps": 1, )"
     R"("transport": "rdma"}], "incast": [{"receiver": 17, "senders": ["h18", 19], )"
     R"("size": 4096, "start": "2us", "priority": 3, "qps": 1}], "permutation": {"hosts": [21, )"
     R"(22, 23], "size": "64KB", "priority": 3}, "all_to_all": [{"hosts": [24, 25, 26], )"
     R"("size": "8KB", "start": "1us", "priority": 3, "qps": 1, "transport": "rdma"}], )"
     R"("poisson": {"hosts": [27, 28, 29], "cdf": "websearch", "load": 0.1, )"
     R"("host_rate": "400Gbps", "start": "1us", "duration": "10us", "priority": 3, "qps": 1}, )"
     R"("collective": [{"op": "all_reduce", "size": "1MiB", "ranks": "all", )"
     R"("placement": "gpu-major", "type": "bfloat16", "algorithm": "ring", )"
     R"("protocol": "simple", "channels": 2, "chunk": "128KiB", "launch_latency": "5us", )"
     R"("iterations": 2, "size_gap": "10us", "slots": 4, "pxn": false, "tuning": "thresholds", )"
     R"("costs": "none", "channel_placement": "rank-order", "priority": 3}, )"
     R"({"op": "all_gather", "min": "64KiB", "max": "256KiB", "factor": 4, "channels": "auto", )"
     R"("chunk": "auto", "launch_latency": "auto", "start": "1ms"}], "start_jitter": "1us"}, )"
     R"("outputs": {"timeseries": {"interval": "10us", "ports": ["h16"], "flows": [0]}, )"
     R"("fct_by_size": ["10KB", "1MB"]}})"},
    {"inline-training-storms.json",
     R"({"topology": {"name": "inline-ks", "defaults": {"rate": "100Gbps", "latency": "500ns", )"
     R"("loss_rate": 0}, "nodes": [{"name": "s0", "kind": "switch", "radix": 8, "tier": 1, )"
     R"("group": 0}, {"name": "a", "kind": "host"}, {"name": "b", "kind": "host"}, )"
     R"({"name": "c", "kind": "host", "tier": 0, "group": 1}, {"name": "d", "kind": "host"}], )"
     R"("links": [{"a": "a", "b": "s0", "a_port": 0, "b_port": 0}, {"a": "b", "b": "s0", )"
     R"("rate": "200Gbps", "latency": "1us", "loss_rate": 0.0}, {"a": "c", "b": "s0", )"
     R"("cable": "5m"}, {"a": "d", "b": "s0"}], "gpu_servers": {"servers": [["a", "b"]], )"
     R"("preset": "generic", "gpus": 2, "nics": 2, "nic_rate": "100Gbps", )"
     R"("nvlink_rate": "900Gbps", "gpu_pcie_rate": "256Gbps", "gpudirect_rdma": true, )"
     R"("host_path": "pcie-gen5-x16"}}, "fabric": {"pfc": {"enabled": true}}, )"
     R"("workload": {"training": {"peak_tflops": 989, "efficiency": 0.5, "steps": 1, )"
     R"("overlap": false, "bucket": "1MiB", "optimizer": "2us", )"
     R"("layers": [{"forward_flops": 1000000000.0, "backward_flops": 2000000000.0, )"
     R"("gradients": "1MiB"}, {"forward": "10us", "backward": "20us", "gradients": "512KiB"}], )"
     R"("comm": {"algorithm": "ring", "protocol": "simple", "channels": 1}}, )"
     R"("flows": [{"src": "c", "dst": "d", "size": 1000}]}, "pause_storms": [{"host": "d", )"
     R"("start": "1us", "end": "3us", "priorities": [3], "quanta": 100, "interval": "1us"}], )"
     R"("link_events": {"events": [{"a": "c", "b": "s0", "at": "50us", "state": "down"}, )"
     R"({"a": "c", "b": "s0", "at": "60us", "state": "up"}], "convergence_delay": "1us"}})"},
    {"rail.json",
     R"({"topology": {"generator": "rail", "name": "r", "nodes": 4, "rails": 2, )"
     R"("nodes_per_leaf": 4, "spines": 1, "uplinks_per_pair": 1, "host_rate": "200Gbps", )"
     R"("fabric_rate": "400Gbps", "host_latency": "100ns", "fabric_latency": "100ns"}, )"
     R"("workload": {"dscp": 26, "flows": [{"src": 0, "dst": 3, "size": 1000, "dscp": 26}]}})"},
    {"clos3-failures-tagging.json",
     R"({"topology": {"generator": "clos3", "pods": 2, "tors_per_pod": 2, "aggs_per_pod": 2, )"
     R"("cores": 2, "hosts_per_tor": 2, "host_rate": "100Gbps", "tor_agg_rate": "100Gbps", )"
     R"("agg_core_rate": "100Gbps", "latency": "500ns"}, "fabric": {"pfc": {"enabled": true, )"
     R"("priorities": [3, 4]}}, "routing": "up-down", "tagging": {"priorities": [3, 4]}, )"
     R"("link_failures": [{"link": 19}], "workload": {"permutation": {"size": 10000}}})"},
    {"file-topology.json",
     R"({"topology": {"file": "topo.json"}, "workload": {"flows": [{"src": "x", "dst": "y", )"
     R"("size": 1000, "route": ["s"]}]}})"},
    {"fat-tree-poisson.json",
     R"({"topology": {"generator": "fat-tree", "k": 4, "rate": "100Gbps", "latency": "1us", )"
     R"("name": "ft"}, "workload": {"poisson": [{"cdf": "websearch", "load": 0.2, )"
     R"("duration": "100us"}]}})"},
    {"chakra.json",
     R"({"topology": {"generator": "leaf-spine", "leaves": 1, "spines": 1, "hosts_per_leaf": 2}, )"
     R"("workload": {"chakra": {"traces": "tr", "comm_groups": "tr.comm_groups.json", )"
     R"("ranks": ["h0", "h1"], "comm": {"algorithm": "ring", "protocol": "simple"}, )"
     R"("start": "1us", "priority": 3}}})"},
    {"topo.json",
     R"({"name": "t", "nodes": [{"name": "s", "kind": "switch"}, {"name": "x", "kind": "host"}, )"
     R"({"name": "y", "kind": "host"}], "links": [{"a": "x", "b": "s", "rate": "100Gbps", )"
     R"("latency": "1us"}, {"a": "y", "b": "s", "rate": "100Gbps", "latency": "1us"}]})"},
};

void write_rare_forms(const TempDir& dir) {
  for (const auto& [name, text] : kRareForms) std::ofstream(dir / name) << text;
  // chakra.json's traces: two data-parallel ranks.
  const auto r = rdmasim({"chakra", "generate", "--dp", "2", "--layers", "2", "--forward", "10us",
                          "--activations", "1MiB", "--gradients", "1MiB", "-o", "tr"},
                         dir);
  REQUIRE(r.exit_code == 0);
}

// Whether `schema` describes the value reached by `steps` (keys; "[]" for an array's
// elements): through "properties", an array's "items", a map's "additionalProperties", or any
// branch of "anyOf". An object that names no properties describes none of its keys.
bool describes(const Json& schema, const std::vector<std::string>& steps, size_t at = 0) {
  if (at == steps.size()) return true;
  if (schema.contains("anyOf")) {
    for (const Json& branch : schema["anyOf"]) {
      if (describes(branch, steps, at)) return true;
    }
  }
  if (steps[at] == "[]")
    return schema.contains("items") && describes(schema["items"], steps, at + 1);
  if (schema.contains("properties") && schema["properties"].contains(steps[at])) {
    return describes(schema["properties"][steps[at]], steps, at + 1);
  }
  const auto extra = schema.find("additionalProperties");
  return extra != schema.end() && extra->is_object() && describes(*extra, steps, at + 1);
}

// "workload.flows[].src" -> workload, flows, [], src.
std::vector<std::string> steps_of(const std::string& path) {
  std::vector<std::string> steps;
  std::string word;
  for (const char c : path) {
    if (c == '.' || c == '[') {
      if (!word.empty()) steps.push_back(word);
      word.clear();
      if (c == '[') steps.emplace_back("[]");
    } else if (c != ']') {
      word += c;
    }
  }
  if (!word.empty()) steps.push_back(word);
  return steps;
}

}  // namespace

TEST_CASE("schema: every key the loader reads in the shipped scenarios is described", "[cli]") {
  // The loader refuses every key it does not read (JsonReader::finish), so a key it reads and
  // the schema lacks is one an editor would wrongly flag; and the schema's open objects are
  // what this finds.
  std::set<std::string> keys;
  std::vector<std::string> files = {kSource + "/bench/allreduce-1024gpu.json"};
  for (const auto& e : fs::directory_iterator(kSource + "/scenarios")) {
    if (e.path().extension() == ".json") files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  TempDir rare;
  write_rare_forms(rare);
  for (const auto& [name, text] : kRareForms) {
    if (name != "topo.json") files.push_back((rare / name).string());
  }
  scen::set_key_log(&keys);
  for (const auto& f : files) {
    const Json root = scen::read_json_file(f);
    // Each fabric of a file that names several: their sections differ.
    std::vector<std::string> fabrics = {""};
    if (root.contains("fabric") && root["fabric"].is_array()) {
      fabrics.clear();
      for (const Json& name : root["fabric"]) fabrics.push_back(name.get<std::string>());
    }
    for (const auto& fabric : fabrics) {
      scen::LoadOptions options;
      options.fabric = fabric;
      try {
        scen::load_scenario_file(f, options);
      } catch (const std::exception& e) {
        scen::set_key_log(nullptr);
        FAIL(f + ": " + e.what());
      }
    }
  }
  scen::set_key_log(nullptr);
  REQUIRE(keys.size() > 100);
  const Json schema = scen::scenario_schema();
  // Keys the loader looks for only to refuse them with a message of their own.
  const std::set<std::string> refused = {"infiniband.cc.algorithm"};
  std::string missing;
  for (const auto& key : keys) {
    // Keys of a file a scenario names are logged under its path (the Chakra comm_groups file's)
    // or, a topology file's (file-topology.json), from its root: the inline form's.
    if (key.starts_with('/')) continue;
    if (!refused.contains(key) && !describes(schema, steps_of(key)) &&
        !describes(schema, steps_of("topology." + key))) {
      missing += key + "\n";
    }
  }
  INFO("keys the loader reads that the schema does not describe:\n" << missing);
  CHECK(missing.empty());
  // The walk itself: a key the schema lacks is found.
  CHECK_FALSE(describes(schema, steps_of("workload.flows[].no_such_key")));
  CHECK(describes(schema, steps_of("fabric.switch.latency")));
}

TEST_CASE("schema: every shipped scenario validates with python3-jsonschema", "[cli]") {
  TempDir dir;
  write_schema(dir);
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(kSource + "/scenarios")) {
    if (e.path().extension() == ".json") files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 40);
  int code = 0;
  const std::string out = validate(dir, files, code);
  INFO(out);
  REQUIRE(code != 3);  // python3-jsonschema: bash tools/setup-deps.sh --tests installs it
  REQUIRE(code == 0);
  for (const auto& f : files) CHECK(test_support::contains(out, "ok " + f + "\n"));
  CHECK_FALSE(test_support::contains(out, "invalid"));
}

TEST_CASE("schema: the rarer forms load and validate", "[cli]") {
  TempDir dir;
  write_schema(dir);
  write_rare_forms(dir);
  std::vector<std::string> files;
  for (const auto& [name, text] : kRareForms) {
    if (name == "topo.json") continue;
    files.push_back((dir / name).string());
    const auto r = rdmasim({"check", name}, dir);
    INFO(name << ": " << r.err);
    CHECK(r.exit_code == 0);
  }
  int code = 0;
  const std::string out = validate(dir, files, code);
  INFO(out);
  REQUIRE(code == 0);
  for (const auto& f : files) CHECK(test_support::contains(out, "ok " + f + "\n"));
}

TEST_CASE("schema: a misspelt, mistyped or misplaced parameter is invalid", "[cli]") {
  TempDir dir;
  write_schema(dir);
  const std::string base = R"({"topology": {"generator": "leaf-spine"}, "workload": {}, )";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"ok.json", base + R"("fabric": {"switch": {"latency": "300ns"}}})"},
      {"misspelt.json", base + R"("fabric": {"switch": {"latncy": "300ns"}}})"},
      {"unitless-time.json", base + R"("fabric": {"switch": {"latency": 300}}})"},
      {"bad-unit.json", base + R"("fabric": {"nic": {"rto": "5 hours"}}})"},
      {"out-of-range.json", base + R"("fabric": {"nic": {"ack_priority": 9}}})"},
      {"bad-choice.json", base + R"("fabric": {"cc": {"algorithm": "bbr"}}})"},
      {"override-key.json", base + R"("overrides": [{"switch": "*", "set": {"mark_at": 1}}]})"},
      {"watchdog-key.json",
       base + R"("overrides": [{"switch": "*", "set": {"pfc_watchdog": {"timout": "1ms"}}}]})"},
      {"watchdog-action.json",
       base + R"("overrides": [{"switch": "*", "set": {"pfc_watchdog": {"action": "reset"}}}]})"},
      {"top-level.json", base + R"("fabirc": {}})"},
      // The structural sections list their keys too.
      {"flow-key.json",
       R"({"topology": {"generator": "leaf-spine"}, "workload": {"flows": [{"src": "h0", "dst": )"
       R"("h1", "size": 1000, "strat": "1us"}]}})"},
      {"generator.json", R"({"topology": {"generator": "leaf-spin"}, "workload": {}})"},
      {"generator-key.json", R"({"topology": {"generator": "fat-tree", "kk": 4}, "workload": {}})"},
      // A key of another generator (leaf-spine's "leaves" on a fat-tree).
      {"other-generator.json",
       R"({"topology": {"generator": "fat-tree", "leaves": 4}, "workload": {}})"},
      {"collective-op.json",
       base.substr(0, base.find("\"workload\"")) +
           R"("workload": {"collective": {"op": "allreduce", "size": "1MiB"}}})"},
      {"outputs-key.json", base + R"("outputs": {"timeseries": {"intreval": "1us"}}})"},
  };
  std::vector<std::string> files;
  for (const auto& [name, text] : cases) {
    std::ofstream(dir / name) << text;
    files.push_back((dir / name).string());
  }
  int code = 0;
  const std::string out = validate(dir, files, code);
  INFO(out);
  REQUIRE(code == 0);
  CHECK(test_support::contains(out, "ok " + files[0] + "\n"));
  for (size_t i = 1; i < files.size(); ++i) {
    CHECK(test_support::contains(out, "invalid " + files[i] + ":"));
  }
}

TEST_CASE("schema: every parameter of the registry is in its section", "[unit]") {
  const Json schema = scen::scenario_schema();
  const Json& fabric = schema["properties"]["fabric"]["anyOf"][0]["properties"];
  for (const auto& row : scen::parameters_at("fabric.nic")) {
    CHECK(fabric["nic"]["properties"].contains(row.key));
  }
  for (const auto& row : scen::parameters_at("fabric.switch")) {
    CHECK(fabric["switch"]["properties"].contains(row.key));
  }
  const Json& ib = schema["properties"]["infiniband"]["properties"];
  for (const auto& row : scen::parameters_at("infiniband")) CHECK(ib.contains(row.key));
  for (const auto& row : scen::parameters_at("infiniband.cc")) {
    CHECK(ib["cc"]["properties"].contains(row.key));
  }
  CHECK(fabric["switch"]["additionalProperties"] == false);
  // Bounds come from the field: ack_priority is a class 0..7.
  CHECK(fabric["nic"]["properties"]["ack_priority"]["maximum"] == 7);
}

TEST_CASE("docs/parameters.md is the generated parameter reference", "[unit][docs]") {
  std::ifstream in(kSource + "/docs/parameters.md");
  REQUIRE(in);
  const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  INFO("regenerate with: build/bin/rdmasim schema --reference -o docs/parameters.md");
  CHECK(doc == scen::parameters_markdown());
  // Every parameter --list-params prints has a row.
  for (const auto& s : scen::parameter_sections()) {
    for (const auto& row : s.rows) CHECK(test_support::contains(doc, "| `" + row.key + "` |"));
  }
}

TEST_CASE("schema: a scenario's \"$schema\" key is accepted and ignored", "[cli]") {
  TempDir dir;
  std::ifstream in(kSource + "/scenarios/quickstart.json");
  REQUIRE(in);
  Json j = Json::parse(in);
  j["$schema"] = "./scenario.schema.json";
  std::ofstream(dir / "with-schema.json") << j.dump(2);
  const auto r = rdmasim({"check", "with-schema.json"}, dir);
  INFO(r.err);
  CHECK(r.exit_code == 0);
  // Any other unknown top-level key is still refused.
  j["$schemas"] = "x";
  std::ofstream(dir / "typo.json") << j.dump(2);
  CHECK(rdmasim({"check", "typo.json"}, dir).exit_code == 2);
}

TEST_CASE("schema: choices come from one list each, which the models know", "[unit]") {
  // Every preset name the loader and the schema offer is one the preset function knows.
  for (const auto& name : topo::gpu_node_preset_names()) {
    topo::GpuNodeParams p;
    CHECK(topo::gpu_node_preset(name, p));
  }
  for (const auto& name : models::host_path_preset_names()) {
    models::HostPathParams p;
    CHECK(models::host_path_preset(name, p));
  }
  // Each enum value is read back from its name, and named once.
  const auto round_trip = [](const auto& values, const char* key) {
    std::set<std::string> names;
    for (const auto v : values) {
      const Json j = {{key, to_string(v)}};
      scen::JsonReader r(j, "");
      CHECK(scen::choose(r, key, values, values.back()) == v);
      names.insert(to_string(v));
    }
    CHECK(names.size() == values.size());
  };
  round_trip(models::kCollectiveOps, "op");
  round_trip(models::kCollectiveAlgorithms, "algorithm");
  round_trip(models::kCollectiveProtocols, "protocol");
  CHECK(models::kCollectiveAlgorithms.size() == 11);
  // The schema offers the same names.
  const Json schema = scen::scenario_schema();
  const Json& collective = schema["properties"]["workload"]["properties"]["collective"]["anyOf"][0];
  CHECK(collective["properties"]["algorithm"]["enum"] ==
        Json(scen::enum_names(models::kCollectiveAlgorithms)));
  CHECK(collective["properties"]["type"]["enum"].size() == scen::element_types().size());
  // A name outside the list is refused.
  const Json bad = {{"protocol", "ll64"}};
  scen::JsonReader r(bad, "c");
  CHECK_THROWS_AS(
      scen::choose(r, "protocol", models::kCollectiveProtocols, models::CollectiveProtocol::Simple),
      scen::InputError);
}
