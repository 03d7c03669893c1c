#include "scenarios/loader/scenario_schema.hpp"

#include "models/cc/cc_params.hpp"
#include "models/host_path.hpp"
#include "models/roce/dcqcn_params.hpp"
#include "scenarios/loader/collective_section.hpp"
#include "scenarios/loader/param_registry.hpp"
#include "topologies/gpu_nodes.hpp"

namespace scen {
namespace {

Json strings(const std::vector<std::string>& values) {
  Json a = Json::array();
  for (const auto& v : values) a.push_back(v);
  return a;
}

Json described(Json schema, const std::string& text) {
  schema["description"] = text;
  return schema;
}

// An object whose keys are the parameters at `path` (and `extra`), no others.
Json section(const std::string& path, Json extra = Json::object()) {
  Json props = Json::object();
  for (const ParamRow& row : parameters_at(path)) {
    Json v = row.schema;
    v["description"] = row.meaning + " [" + row.unit + ", default " +
                       (row.default_value.is_string() ? row.default_value.get<std::string>()
                                                      : row.default_value.dump()) +
                       "]";
    props[row.key] = std::move(v);
  }
  props.update(extra);
  return Json{{"type", "object"}, {"properties", props}, {"additionalProperties", false}};
}

// The parameters of an Ethernet fabric: "fabric" as an object, or the "roce" / "tcp" section.
Json ethernet_fabric() {
  Json props;
  props["switch"] = section("fabric.switch");
  props["nic"] = section("fabric.nic");
  props["link"] = section("fabric.link");
  props["pfc"] = section("fabric.pfc");
  props["ecn"] = section("fabric.ecn");
  props["dcqcn"] =
      section("fabric.dcqcn", {{"preset", Json{{"enum", strings(models::dcqcn_preset_names())}}}});
  props["cc"] =
      section("fabric.cc", {{"algorithm", {{"enum", strings(models::cc_algorithm_names())}}},
                            {"preset", {{"enum", strings(models::cc_preset_names())}}}});
  props["transport"] = Json{{"enum", {"rdma", "tcp"}}};
  props["tcp"] = section("fabric.tcp");
  props["qos"] = section("fabric.qos");
  return Json{{"type", "object"}, {"properties", props}, {"additionalProperties", false}};
}

Json infiniband_fabric() {
  Json s = section("infiniband");
  Json& props = s["properties"];
  props["switch"] = section("infiniband.switch");
  props["nic"] = section("fabric.nic");
  props["link"] = section("fabric.link");
  props["cc"] = section("infiniband.cc");
  props["sharp"] = section("infiniband.sharp");
  return s;
}

// One entry of "overrides": where, and the keys that may be set there.
Json override_entry() {
  Json set = section("fabric.switch");
  Json& props = set["properties"];
  props["scheduler"] = described(Json{{"type", {"string", "integer", "object"}}},
                                 "\"strict\", a weight (with \"priority\"), or an object like "
                                 "fabric.qos.scheduler");
  Json ecn = section("fabric.ecn");
  ecn["properties"].erase("mark_at");  // fabric-wide only
  props["ecn"] = ecn;
  props["headroom"] = described(unit_schema("bytes"), "PFC headroom of these ingress buffers");
  props["pfc_watchdog"] = section("overrides[].set.pfc_watchdog");
  props["sl_to_vl"] =
      described(Json{{"type", "array"}}, "InfiniBand: the SL -> VL table of these output ports");
  Json entry = {{"type", "object"},
                {"properties",
                 {{"switch", described(Json{{"type", "string"}}, "a switch's name, or \"*\"")},
                  {"port", bounded_schema("integer", 0, 65535)},
                  {"priority", bounded_schema("integer", 0, 7)},
                  {"set", set}}},
                {"required", {"set"}},
                {"additionalProperties", false}};
  return entry;
}

// An object of exactly these keys (the loader refuses any other: JsonReader::finish).
Json object_of(Json props, const std::vector<std::string>& required = {}) {
  Json o = {{"type", "object"}, {"properties", std::move(props)}, {"additionalProperties", false}};
  if (!required.empty()) o["required"] = strings(required);
  return o;
}

Json array_of(Json items) {
  return Json{{"type", "array"}, {"items", std::move(items)}};
}

// A workload key that takes one object or a list of them.
Json one_or_many(const Json& item) {
  return Json{{"anyOf", {item, array_of(item)}}};
}

Json time_text(const std::string& text) {
  return described(unit_schema("time"), text);
}
Json rate_text(const std::string& text) {
  return described(unit_schema("rate"), text);
}
Json bytes_text(const std::string& text) {
  return described(unit_schema("bytes"), text);
}
Json count(int64_t min, int64_t max, const std::string& text) {
  return described(bounded_schema("integer", min, max), text);
}

// A host: its name in the topology ("h3") or its number.
Json host_ref() {
  return described(Json{{"anyOf", {{{"type", "string"}}, {{"type", "integer"}, {"minimum", 0}}}}},
                   "a host's name (\"h3\") or number");
}
Json host_list() {
  return described(Json{{"anyOf", {{{"const", "all"}}, array_of(host_ref())}}},
                   "\"all\" (the default) or a list of distinct hosts");
}

// The keys every traffic source takes: its class and, for flows, transport and queue pairs.
void add_class_keys(Json& props, bool flows) {
  props["priority"] = count(0, 7, "the traffic class (PFC priority)");
  props["dscp"] = count(0, 63, "the DSCP, mapped by fabric.qos.dscp_to_priority");
  if (!flows) return;
  props["qps"] = count(1, 4096, "queue pairs per flow (default 1)");
  props["transport"] = described(Json{{"enum", {"rdma", "tcp"}}},
                                 "RDMA (default) or kernel TCP on an Ethernet fabric");
}

// A generator's size and start.
void add_size_start(Json& props) {
  props["size"] = bytes_text("bytes per flow");
  props["start"] = time_text("when its flows start (default 0)");
}

// The settings of a collective (NCCL's choices and costs, docs/collectives.md); with `sizes`,
// the operation and its sizes too (a training step's groups take theirs from the model).
Json collective_settings(bool sizes) {
  Json c = section("workload.collective");
  Json& props = c["properties"];
  props["ranks"] = described(
      Json{{"anyOf", {{{"const", "all"}}, array_of(Json{{"type", {"string", "integer"}}})}}},
      "\"all\" (every GPU, else every host) or a list of GPUs or hosts");
  props["placement"] =
      described(Json{{"enum", {"node-major", "gpu-major"}}}, "the order of a GPU cluster's ranks");
  props["algorithm"] = Json{{"enum", enum_names(models::kCollectiveAlgorithms)}};
  props["protocol"] = Json{{"enum", enum_names(models::kCollectiveProtocols)}};
  std::vector<std::string> types;
  for (const ElementType& t : element_types()) types.push_back(t.name);
  props["type"] = described(Json{{"enum", types}}, "the element type (its size rounds the chunks)");
  props["channel_placement"] = Json{{"enum", {"nccl", "rank-order"}}};
  props["pxn"] = described(Json{{"type", "boolean"}}, "NCCL's PXN (default true)");
  props["tuning"] = Json{{"enum", {"nccl", "thresholds"}}};
  props["costs"] = Json{{"enum", {"nccl", "none"}}};
  props["channels"] = Json{{"anyOf", {props["channels"], {{"const", "auto"}}}}};
  props["chunk"] = Json{{"anyOf", {props["chunk"], {{"const", "auto"}}}}};
  props["launch_latency"] = Json{{"anyOf", {props["launch_latency"], {{"const", "auto"}}}}};
  add_class_keys(props, false);
  if (sizes) {
    props["op"] = Json{{"enum", enum_names(models::kCollectiveOps)}};
    props["size"] = bytes_text("one size (or \"min\", \"max\" and \"factor\")");
    props["min"] = bytes_text("the first size of a sweep");
    props["max"] = bytes_text("the last size of a sweep");
    props["factor"] = count(2, 1 << 20, "each size of a sweep times the one before (default 2)");
  }
  return c;
}

Json training() {
  Json layer = object_of({{"forward", time_text("a layer's forward compute time")},
                          {"backward", time_text("its backward (default twice the forward)")},
                          {"forward_flops", described(Json{{"type", "number"}, {"minimum", 0}},
                                                      "or its FLOPs, with peak_tflops")},
                          {"backward_flops", described(Json{{"type", "number"}, {"minimum", 0}},
                                                       "or its FLOPs, with peak_tflops")},
                          {"gradients", bytes_text("its gradient bytes")}});
  Json props;
  props["peak_tflops"] = Json{{"type", "number"}, {"minimum", 0}};
  props["efficiency"] = Json{{"type", "number"}, {"exclusiveMinimum", 0}, {"maximum", 1}};
  props["model_flops"] = Json{{"type", "number"}, {"minimum", 0}};
  props["bucket"] = bytes_text("gradient bucket size");
  props["optimizer"] = time_text("the optimizer step's time");
  props["overlap"] = described(Json{{"type", "boolean"}}, "gradient all-reduce overlaps backward");
  props["steps"] = count(1, 1000, "training steps");
  props["gpus"] = count(0, 1 << 24, "data-parallel GPUs (default: every GPU)");
  props["layers"] = described(
      Json{
          {"anyOf", {{{"type", "integer"}, {"minimum", 1}, {"maximum", 100000}}, array_of(layer)}}},
      "a count of identical layers (with \"layer\") or a list of layers");
  props["layer"] = layer;
  props["parallel"] = object_of({{"tp", count(1, 4096, "tensor-parallel degree")},
                                 {"pp", count(1, 4096, "pipeline stages")},
                                 {"dp", count(1, 1 << 20, "data-parallel degree")},
                                 {"microbatches", count(1, 100000, "micro-batches per step")}});
  props["activations"] = bytes_text("one micro-batch's activations (tp or pp above 1)");
  props["comm"] = described(collective_settings(false), "the gradient all-reduce's settings");
  props["tp_comm"] = described(collective_settings(false), "the tensor-parallel collectives'");
  return object_of(props);
}

Json workload() {
  Json flow;
  flow["src"] = host_ref();
  flow["dst"] = host_ref();
  add_size_start(flow);
  flow["route"] =
      described(array_of(Json{{"type", "string"}}), "the switches the flow crosses, in order");
  add_class_keys(flow, true);
  Json incast;
  incast["receiver"] = host_ref();
  incast["senders"] =
      described(Json{{"anyOf", {host_list(), {{"type", "integer"}, {"minimum", 1}}}}},
                "hosts, or a count of senders drawn with the seed");
  add_size_start(incast);
  add_class_keys(incast, true);
  Json permutation;
  permutation["hosts"] = host_list();
  add_size_start(permutation);
  add_class_keys(permutation, true);
  Json poisson;
  poisson["hosts"] = host_list();
  poisson["cdf"] = described(Json{{"type", "string"}},
                             "a shipped size distribution (\"websearch\") or a CDF file");
  poisson["load"] = Json{{"type", "number"}, {"exclusiveMinimum", 0}, {"maximum", 1}};
  poisson["host_rate"] = rate_text("the rate the load is a fraction of (default: the host link's)");
  poisson["start"] = time_text("the first arrival's earliest time");
  poisson["duration"] = time_text("how long flows arrive");
  add_class_keys(poisson, true);
  Json chakra = object_of(
      {{"traces",
        described(Json{{"type", "string"}}, "the traces' prefix: PREFIX.0.et .. PREFIX.<n-1>.et")},
       {"comm_groups", described(Json{{"type", "string"}}, "the process groups' JSON file")},
       {"ranks", array_of(Json{{"type", "string"}})},
       {"comm", described(collective_settings(false), "settings of the traces' collectives")},
       {"start", unit_schema("time")},
       {"priority", bounded_schema("integer", 0, 7)},
       {"dscp", bounded_schema("integer", 0, 63)}},
      {"traces"});
  Json props;
  props["flows"] = array_of(object_of(flow, {"src", "dst", "size"}));
  props["incast"] = one_or_many(object_of(incast, {"receiver", "size"}));
  props["permutation"] = one_or_many(object_of(permutation, {"size"}));
  props["all_to_all"] = one_or_many(object_of(permutation, {"size"}));
  props["poisson"] = one_or_many(object_of(poisson, {"cdf", "duration"}));
  props["collective"] = one_or_many(collective_settings(true));
  props["training"] = training();
  props["chakra"] = chakra;
  props["start_jitter"] = time_text("each flow's start moved by up to this, with the seed");
  add_class_keys(props, true);
  return object_of(props);
}

// GPU servers' parameters: a preset and its keys (topology.nodes; `count` for generators,
// `servers` for inline topologies).
Json gpu_servers(bool inline_servers) {
  Json g = section("topology.nodes");
  Json& props = g["properties"];
  props["preset"] = Json{{"enum", topo::gpu_node_preset_names()}};
  props["nvlink_buffer"] = Json{{"anyOf", {props["nvlink_buffer"], {{"const", "auto"}}}}};
  const Json path_presets = {{"enum", models::host_path_preset_names()}};
  Json path = section("topology.nodes.host_path");
  path["properties"]["preset"] = path_presets;
  props["host_path"] = Json{{"anyOf", {path_presets, path}}};
  Json override_entry = path;
  override_entry["properties"]["servers"] = array_of(Json{{"type", "integer"}, {"minimum", 0}});
  override_entry["properties"]["rails"] = array_of(Json{{"type", "integer"}, {"minimum", 0}});
  props["host_path_overrides"] = array_of(override_entry);
  if (inline_servers) {
    props["servers"] = described(array_of(array_of(Json{{"type", "string"}})),
                                 "each server's NICs: host names in \"nodes\"");
    g["required"] = strings({"servers"});
  } else {
    props["count"] = count(1, 100000, "GPU servers");
    g["required"] = strings({"count"});
  }
  return g;
}

// One form of "topology": a file, a generator with its keys, or inline nodes and links. An
// editor completes the keys of the form it sees; a key of another generator is flagged.
Json topology() {
  const Json name = Json{{"type", "string"}};
  const auto generator = [&](const std::string& which, Json props) {
    props["generator"] = Json{{"const", which}};
    props["name"] = name;
    return object_of(std::move(props), {"generator"});
  };
  const Json rate = unit_schema("rate"), latency = unit_schema("time");
  const Json servers = described(gpu_servers(false), "GPU servers: their NICs are the hosts");
  Json leaf_spine = generator(
      "leaf-spine", {{"leaves", count(1, 100000, "leaf switches")},
                     {"spines", count(1, 100000, "spine switches")},
                     {"hosts_per_leaf", count(1, 100000, "hosts under each leaf")},
                     {"uplinks_per_pair", count(1, 1024, "links between a leaf and a spine")},
                     {"host_rate", rate},
                     {"fabric_rate", rate},
                     {"host_latency", latency},
                     {"fabric_latency", latency},
                     {"nodes", servers}});
  Json fat_tree = generator(
      "fat-tree",
      {{"k", count(2, 128, "the switches' radix")}, {"rate", rate}, {"latency", latency}});
  Json clos3 =
      generator("clos3", {{"pods", count(1, 10000, "pods")},
                          {"tors_per_pod", count(1, 10000, "ToR switches per pod")},
                          {"aggs_per_pod", count(1, 10000, "aggregation switches per pod")},
                          {"cores", count(1, 100000, "core switches")},
                          {"hosts_per_tor", count(1, 10000, "hosts under each ToR")},
                          {"host_rate", rate},
                          {"tor_agg_rate", rate},
                          {"agg_core_rate", rate},
                          {"latency", latency}});
  Json rail = generator(
      "rail",
      {{"nodes", Json{{"anyOf", {servers, count(1, 100000, "servers (plain hosts per rail)")}}}},
       {"rails", count(1, 64, "NICs per server, one rail each")},
       {"nodes_per_leaf", count(1, 100000, "servers under each rail leaf")},
       {"spines", count(1, 100000, "spine switches")},
       {"uplinks_per_pair", count(1, 1024, "links between a leaf and a spine")},
       {"host_rate", rate},
       {"fabric_rate", rate},
       {"host_latency", latency},
       {"fabric_latency", latency}});
  Json node = object_of({{"name", name},
                         {"kind", Json{{"enum", {"host", "switch"}}}},
                         {"radix", count(0, 65535, "ports (0: as many as its links)")},
                         {"tier", count(0, 16, "its level (hosts 0), for up*/down* routing")},
                         {"group", count(-1, 1 << 30, "its partition group (-1: none)")}},
                        {"name", "kind"});
  Json link = object_of(
      {{"a", name},
       {"b", name},
       {"a_port", bounded_schema("integer", 0, 65535)},
       {"b_port", bounded_schema("integer", 0, 65535)},
       {"rate", rate},
       {"latency", latency},
       {"cable", described(Json{{"type", "string"}}, "a cable's length (\"5m\"): its latency")},
       {"loss_rate", Json{{"type", "number"}, {"minimum", 0}, {"maximum", 0.999999}}}},
      {"a", "b"});
  Json inline_form =
      object_of({{"name", name},
                 {"nodes", array_of(node)},
                 {"links", array_of(link)},
                 {"defaults", object_of({{"rate", rate},
                                         {"latency", latency},
                                         {"loss_rate", Json{{"type", "number"}, {"minimum", 0}}}})},
                 {"gpu_servers", gpu_servers(true)}},
                {"nodes"});
  Json file = object_of(
      {{"file", described(name, "a topology file: {\"nodes\": [...], \"links\": [...]}")}},
      {"file"});
  return Json{{"anyOf", {file, leaf_spine, fat_tree, clos3, rail, inline_form}}};
}

Json outputs() {
  Json timeseries = object_of(
      {{"interval", time_text("the sampling interval")},
       {"ports", described(array_of(Json{{"type", "string"}}), "\"switch:port\" or host names")},
       {"flows", described(array_of(Json{{"type", "integer"}, {"minimum", 0}}),
                           "flow ids (flows.csv order)")}});
  return object_of(
      {{"timeseries", timeseries},
       {"fct_by_size",
        described(Json{{"anyOf", {{{"type", "boolean"}}, array_of(unit_schema("bytes"))}}},
                  "true (decade buckets) or the buckets' increasing upper edges")}});
}

Json priorities() {
  return array_of(bounded_schema("integer", 0, 7));
}

}  // namespace

Json scenario_schema() {
  Json fabric_names = {{"enum", {"roce", "infiniband", "tcp"}}};
  Json props;
  props["$schema"] = described(Json{{"type", "string"}}, "this schema, for editors (ignored)");
  props["name"] = described(Json{{"type", "string"}, {"pattern", "^[^/]+$"}},
                            "the run's name (default: the file's name)");
  props["description"] = Json{{"type", "string"}};
  props["seed"] = described(Json{{"type", "integer"}, {"minimum", 0}}, "random seed (default 1)");
  props["include"] = described(
      Json{{"anyOf", {{{"type", "string"}}, {{"type", "array"}, {"items", {{"type", "string"}}}}}}},
      "scenario files merged under this one, in order (docs/scenario-format.md)");
  props["topology"] = described(
      topology(),
      "a generator (\"generator\": leaf-spine, fat-tree, clos3, rail), a \"file\", or inline "
      "\"nodes\" and \"links\"; GPU servers in \"nodes\" (docs/scenario-format.md)");
  props["fabric"] = described(
      Json{{"anyOf",
            {ethernet_fabric(),
             fabric_names,
             {{"type", "array"}, {"items", fabric_names}, {"minItems", 1}}}}},
      "the fabric's parameters (RoCEv2), or which fabric(s) to run: \"roce\", \"infiniband\", "
      "\"tcp\" or a list of them, each with its section");
  props["roce"] = ethernet_fabric();
  props["tcp"] = ethernet_fabric();
  props["infiniband"] = infiniband_fabric();
  props["overrides"] = described(Json{{"type", "array"}, {"items", override_entry()}},
                                 "per-switch, per-port and per-priority parameters");
  props["link_failures"] =
      described(array_of(object_of({{"link", Json{{"type", "integer"}, {"minimum", 0}}},
                                    {"a", Json{{"type", "string"}}},
                                    {"b", Json{{"type", "string"}}}})),
                "links down for the whole run: {\"link\": N} or {\"a\": NODE, \"b\": NODE}");
  props["pause_storms"] =
      described(array_of(object_of({{"host", Json{{"type", "string"}}},
                                    {"start", unit_schema("time")},
                                    {"end", unit_schema("time")},
                                    {"priorities", priorities()},
                                    {"quanta", bounded_schema("integer", 1, 65535)},
                                    {"interval", unit_schema("time")}},
                                   {"host", "start"})),
                "NICs that send pause frames without end");
  props["link_events"] = described(
      object_of({{"events", array_of(object_of({{"a", Json{{"type", "string"}}},
                                                {"b", Json{{"type", "string"}}},
                                                {"at", unit_schema("time")},
                                                {"state", Json{{"enum", {"down", "up"}}}}},
                                               {"a", "b", "at"}))},
                 {"convergence_delay", unit_schema("time")}},
                {"events"}),
      "links going down or up during the run (\"events\", "
      "\"convergence_delay\")");
  props["tagging"] = described(object_of({{"priorities", priorities()}}, {"priorities"}),
                               "Tagger: {\"priorities\": [...]}, the lossless priorities packets "
                               "move to when they leave the up*/down* path");
  props["routing"] = described(Json{{"enum", {"shortest-path", "up-down", "minhop", "ftree"}}},
                               "how switches choose among paths");
  props["workload"] = described(
      workload(),
      "flows, generators (incast, permutation, Poisson), collectives, training steps, Chakra "
      "traces (docs/scenario-format.md, docs/collectives.md)");
  props["stop"] = Json{{"type", "object"},
                       {"properties",
                        {{"until", {{"enum", {"workload-done", "time"}}}},
                         {"time", unit_schema("time")},
                         {"on_deadlock", {{"enum", {"stop", "continue"}}}}}},
                       {"additionalProperties", false}};
  props["outputs"] = described(outputs(),
                               "optional outputs: \"timeseries\", \"fct_by_size\" "
                               "(docs/outputs.md)");
  return Json{{"$schema", "https://json-schema.org/draft/2020-12/schema"},
              {"title", "rdmasim scenario"},
              {"description",
               "A scenario file of rdmasim. Every key is described; the loader (rdmasim check) "
               "also checks what a schema cannot (names, cross-references, sums)."},
              {"type", "object"},
              {"properties", props},
              {"additionalProperties", false}};
}

}  // namespace scen
