#include "scenarios/loader/param_registry.hpp"

#include <cctype>

#include "scenarios/loader/collective_section.hpp"
#include "scenarios/loader/fabric_section.hpp"
#include "scenarios/loader/gpu_nodes_section.hpp"
#include "scenarios/loader/host_path_section.hpp"
#include "scenarios/loader/params.hpp"
#include "scenarios/loader/qos_section.hpp"
#include "scenarios/loader/sharp_section.hpp"
#include "scenarios/loader/watchdog_section.hpp"

namespace scen {
namespace {

// The unit names sim/units.cpp parses (a number, then the unit; spaces allowed around).
constexpr const char* kTimePattern = "^ *([0-9]+[.]?[0-9]*|[.][0-9]+) *(ps|ns|us|µs|ms|s) *$";
constexpr const char* kRatePattern =
    "^ *([0-9]+[.]?[0-9]*|[.][0-9]+) *([KMGT]?bps|[KMGT]?bit/s) *$";
constexpr const char* kBytesPattern = "^ *([0-9]+[.]?[0-9]*|[.][0-9]+) *([KMGT]i?B|B)? *$";

std::string cell(const Json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

// Markdown table cells: a '|' would end the cell.
std::string escape_cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

// How overrides set values per switch, port and priority: --list-params' tail and the
// reference's last section.
std::string override_rules() {
  return "Per-switch, per-port and per-priority values go in \"overrides\": [{\"switch\": NAME,\n"
         "\"port\": N, \"priority\": P, \"set\": {...}}]. The switch-wide keys of fabric.switch\n"
         "(latency, forwarding, buffer, threshold_mode, adaptive_routing) take no port or "
         "priority;\n"
         "queue_limit, reserve and alpha may be set per port and priority, and so may "
         "\"scheduler\"\n"
         "(\"strict\" or a weight with \"priority\", else an object like fabric.qos.scheduler),\n"
         "\"ecn\" (enabled, kmin, kmax, pmax; mark_at stays fabric-wide), \"headroom\" (the PFC\n"
         "headroom of those ingress buffers) and, per switch or port, \"pfc_watchdog\" (the keys "
         "of\n"
         "overrides[].set.pfc_watchdog) and, on InfiniBand, \"sl_to_vl\".\n"
         "\"fabric\" may also be \"roce\" or \"infiniband\" (parameters in a \"roce\" or\n"
         "\"infiniband\" section) or a list of both (run on each, compared); the infiniband "
         "section\n"
         "takes switch (latency [130ns], forwarding), nic and link as above (nic defaults there:\n"
         "header_bytes 26, framing_bytes 0) and the infiniband.* keys.\n";
}

}  // namespace

Json unit_schema(const std::string& unit) {
  if (unit == "time") return Json{{"type", "string"}, {"pattern", kTimePattern}};
  if (unit == "rate") return Json{{"type", "string"}, {"pattern", kRatePattern}};
  if (unit == "bytes") {
    return Json{{"anyOf", Json::array({Json{{"type", "integer"}, {"minimum", 0}},
                                       Json{{"type", "string"}, {"pattern", kBytesPattern}}})}};
  }
  if (unit == "integer") return Json{{"type", "integer"}};
  if (unit == "number") return Json{{"type", "number"}};
  if (unit == "boolean") return Json{{"type", "boolean"}};
  if (unit == "choice") return Json{{"type", "string"}};
  if (unit == "fraction") return Json{{"type", {"number", "string"}}};  // 0.125 or "1/8"
  if (unit == "classes") {
    return Json{{"anyOf", Json::array({Json{{"const", "all"}},
                                       Json{{"type", "array"},
                                            {"items", bounded_schema("integer", 0, 7)}}})}};
  }
  if (unit == "list") return Json{{"type", "array"}};
  if (unit == "map" || unit == "object") return Json{{"type", {"object", "string", "array"}}};
  return Json::object();  // anything: the loader checks it
}

const std::vector<ParamSection>& parameter_sections() {
  static const std::vector<ParamSection> sections = [] {
    std::vector<ParamSection> s;
    s.push_back(describe_fields("fabric.switch", switch_fields(), models::SwitchParams{}));
    s.push_back(describe_fields("fabric.switch", port_fields(), models::SwitchParams{}));
    s.push_back(describe_fields("fabric.nic", nic_fields(), models::NicParams{}));
    s.push_back(describe_fields("fabric.link", link_fields(), LinkDefaults{}));
    s.push_back(describe_fields("fabric.pfc", pfc_fields(), models::PfcParams{}));
    s.push_back(describe_fields("fabric.ecn", ecn_fields(), models::EcnParams{}));
    s.push_back(describe_fields("fabric.dcqcn", dcqcn_fields(), models::DcqcnParams{}));
    s.push_back(describe_fields("fabric.cc", cc_fields(), models::CcParams{}));
    s.push_back(describe_fields("fabric.qos", qos_fields(), models::QosParams{}));
    // "transport": "tcp" (or the fabric "tcp" of a list): kernel TCP's parameters.
    s.push_back(describe_fields("fabric.tcp", tcp_fields(), models::TcpParams{}));
    // "fabric": "infiniband": the "infiniband" section (its nic and link keys are those above;
    // its defaults: switch latency 130ns, header_bytes 26, framing_bytes 0).
    models::SwitchParams ib_switch;
    ib_switch.latency = kInfinibandSwitchLatency;
    s.push_back(describe_fields("infiniband.switch", ib_switch_fields(), ib_switch));
    s.push_back(describe_fields("infiniband", ib_fields(), models::IbParams{}));
    s.push_back(describe_fields("infiniband.cc", ib_cc_fields(), models::IbCcParams{}));
    s.push_back(describe_fields("infiniband.sharp", sharp_fields(), models::SharpParams{}));
    s.push_back(describe_fields("workload.collective", collective_fields(), collective_defaults()));
    s.push_back(describe_fields("topology.nodes", gpu_node_fields(), topo::GpuNodeParams{}));
    // GPU servers' NICs: the same keys under topology.nodes.host_path (or a preset name) and
    // topology.nodes.host_path_overrides[i] with "servers"/"rails" (host_path_section.hpp).
    s.push_back(
        describe_fields("topology.nodes.host_path", host_path_fields(), models::HostPathParams{}));
    // An override's "pfc_watchdog" object (per switch or port; watchdog_section.hpp).
    s.push_back(describe_fields("overrides[].set.pfc_watchdog", watchdog_override_fields(),
                                models::PfcParams{}));
    return s;
  }();
  return sections;
}

std::vector<ParamRow> parameters_at(const std::string& path) {
  std::vector<ParamRow> rows;
  for (const auto& s : parameter_sections()) {
    if (s.path == path) rows.insert(rows.end(), s.rows.begin(), s.rows.end());
  }
  return rows;
}

std::string list_parameters() {
  std::string out;
  out += "parameter                          unit      default      meaning\n";
  for (const auto& s : parameter_sections()) {
    for (const auto& row : s.rows) {
      std::string key = s.path + "." + row.key;
      key.resize(std::max<size_t>(key.size(), 34), ' ');
      std::string unit = row.unit;
      unit.resize(std::max<size_t>(unit.size(), 9), ' ');
      std::string def = cell(row.default_value);
      def.resize(std::max<size_t>(def.size(), 12), ' ');
      out += key + " " + unit + " " + def + " " + row.meaning + "\n";
    }
  }
  out += "\n" + override_rules();
  return out;
}

std::string parameters_markdown() {
  std::string out =
      "# Parameter reference\n"
      "\n"
      "Every model parameter of the scenario format: its key, the unit its value is written in,\n"
      "its default and what it means. Generated from the parameter tables by `rdmasim schema\n"
      "--reference` (do not edit by hand: `tests/schema_test.cpp` fails when this file differs\n"
      "from what the build generates). How a scenario is laid out: "
      "[scenario-format.md](scenario-format.md);\n"
      "units: times and rates are strings with a unit (`\"600ns\"`, `\"400Gbps\"`), sizes a "
      "string with a\n"
      "unit (`\"4KiB\"`) or a plain number of bytes. Editors can check a scenario against "
      "`rdmasim schema`'s\n"
      "JSON Schema.\n"
      "\n"
      "## Contents\n"
      "\n";
  std::vector<std::string> paths;
  for (const auto& s : parameter_sections()) {
    if (paths.empty() || paths.back() != s.path) paths.push_back(s.path);
  }
  auto anchor = [](std::string p) {
    std::string a;
    for (char c : p) {  // GitHub's anchors keep letters, digits, '-' and '_'
      if (std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_') a += c;
    }
    return a;
  };
  for (const auto& p : paths) out += "- [`" + p + "`](#" + anchor(p) + ")\n";
  for (const auto& p : paths) {
    out += "\n## `" + p + "`\n\n| key | unit | default | meaning |\n|---|---|---|---|\n";
    for (const auto& row : parameters_at(p)) {
      out += "| `" + row.key + "` | " + row.unit + " | `" + escape_cell(cell(row.default_value)) +
             "` | " + escape_cell(row.meaning) + " |\n";
    }
  }
  out += "\n## Overrides\n\n" + override_rules();
  return out;
}

}  // namespace scen
