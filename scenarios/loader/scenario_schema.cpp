#include "scenarios/loader/scenario_schema.hpp"

#include "models/cc/cc_params.hpp"
#include "models/roce/dcqcn_params.hpp"
#include "scenarios/loader/param_registry.hpp"

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

Json list_of_objects(const std::string& text) {
  return described(Json{{"type", "array"}, {"items", {{"type", "object"}}}}, text);
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
      Json{{"type", "object"}},
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
  props["link_failures"] = list_of_objects(
      "links down for the whole run: {\"link\": N} or "
      "{\"a\": NODE, \"b\": NODE}");
  props["pause_storms"] = list_of_objects("NICs that send pause frames without end");
  props["link_events"] = described(Json{{"type", "object"}},
                                   "links going down or up during the run (\"events\", "
                                   "\"convergence_delay\")");
  props["tagging"] = described(Json{{"type", "object"}},
                               "Tagger: {\"priorities\": [...]}, the lossless priorities packets "
                               "move to when they leave the up*/down* path");
  props["routing"] = described(Json{{"enum", {"shortest-path", "up-down", "minhop", "ftree"}}},
                               "how switches choose among paths");
  props["workload"] = described(
      Json{{"type", "object"}},
      "flows, generators (incast, permutation, Poisson), collectives, training steps, Chakra "
      "traces (docs/scenario-format.md, docs/collectives.md)");
  props["stop"] = Json{{"type", "object"},
                       {"properties",
                        {{"until", {{"enum", {"workload-done", "time"}}}},
                         {"time", unit_schema("time")},
                         {"on_deadlock", {{"enum", {"stop", "continue"}}}}}},
                       {"additionalProperties", false}};
  props["outputs"] = described(Json{{"type", "object"}},
                               "optional outputs: \"timeseries\", \"fct_by_size\" "
                               "(docs/outputs.md)");
  return Json{{"$schema", "https://json-schema.org/draft/2020-12/schema"},
              {"title", "rdmasim scenario"},
              {"description",
               "A scenario file of rdmasim. Parameter sections are complete; the loader "
               "(rdmasim check) also checks what a schema cannot (names, cross-references)."},
              {"type", "object"},
              {"properties", props},
              {"additionalProperties", false}};
}

}  // namespace scen
