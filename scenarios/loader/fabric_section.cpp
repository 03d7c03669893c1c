#include "scenarios/loader/fabric_section.hpp"

#include <algorithm>

#include "scenarios/loader/sharp_section.hpp"

namespace scen {
const std::vector<std::string>& known_fabrics() {
  static const std::vector<std::string> k = {"roce", "infiniband", "tcp"};
  return k;
}

namespace {

constexpr const char* kFabricExpected =
    "\"roce\", \"infiniband\", \"tcp\", a list of them, or an object (RoCE parameters)";

// The fabrics named by "fabric", checked (path "fabric" or "fabric[i]").
std::vector<std::string> fabric_names(const Json& root) {
  if (!root.contains("fabric") || root["fabric"].is_object()) return {"roce"};
  const Json& f = root["fabric"];
  auto check = [](const Json& v, const std::string& path) {
    if (!v.is_string() || std::find(known_fabrics().begin(), known_fabrics().end(),
                                    v.get<std::string>()) == known_fabrics().end()) {
      throw InputError(path, message_text(v), kFabricExpected);
    }
    return v.get<std::string>();
  };
  if (f.is_string()) return {check(f, "fabric")};
  if (!f.is_array() || f.empty()) throw InputError("fabric", message_text(f), kFabricExpected);
  std::vector<std::string> names;
  for (size_t i = 0; i < f.size(); ++i) {
    const std::string n = check(f[i], "fabric[" + std::to_string(i) + "]");
    if (std::find(names.begin(), names.end(), n) != names.end()) {
      throw InputError("fabric[" + std::to_string(i) + "]", message_text(f[i]), "each fabric once");
    }
    names.push_back(n);
  }
  return names;
}

}  // namespace

std::vector<std::string> listed_fabrics(const Json& root) {
  return fabric_names(root);
}

std::optional<JsonReader> select_fabric(JsonReader& root, const LoadOptions& options, Scenario& s) {
  s.fabrics = fabric_names(root.json());
  std::string chosen = s.fabrics.front();
  if (!options.fabric.empty()) {
    if (std::find(s.fabrics.begin(), s.fabrics.end(), options.fabric) == s.fabrics.end()) {
      throw InputError("fabric", root.value_text("fabric"),
                       "a list that names \"" + options.fabric + "\"");
    }
    chosen = options.fabric;
  }
  s.fabric_kind = chosen == "infiniband" ? FabricKind::Infiniband : FabricKind::Roce;
  s.tcp_transport = chosen == "tcp";  // Ethernet with kernel TCP at the hosts
  const bool object_form = !root.has("fabric") || root.json()["fabric"].is_object();
  if (object_form) {
    if (root.has("roce")) {
      throw InputError("roce", root.value_text("roce"),
                       "no \"roce\" section when \"fabric\" is an object (it holds the RoCE "
                       "parameters); or \"fabric\": \"roce\"");
    }
    return root.get("fabric");
  }
  (void)root.at("fabric");
  // The other fabrics' sections are read when the scenario is loaded for them: those listed,
  // and, when "fabric" names one, those of a file whose list it replaced (--set fabric=tcp, a
  // sweep's fabric axis).
  const bool one_named = root.json()["fabric"].is_string();
  for (const auto& name : known_fabrics()) {
    const bool listed = std::find(s.fabrics.begin(), s.fabrics.end(), name) != s.fabrics.end();
    if (name != chosen && (listed || one_named) && root.has(name)) (void)root.at(name);
  }
  return root.get(chosen);
}

const FieldTable<models::IbParams>& ib_fields() {
  using models::IbParams;
  static const FieldTable<IbParams> t = fields_from(
      models::ib_param_table(),
      {Field<IbParams>{
           "sl_to_vl", "list", "",
           [](JsonReader& r, IbParams& p) {
             if (!r.has("sl_to_vl")) return;
             JsonReader list = r.at("sl_to_vl");
             list.expect_array();
             if (list.size() == 0 || list.size() > models::kIbServiceLevels) {
               throw InputError(list.path(), message_text(list.json()), "a list of 1 to 16 VLs");
             }
             for (size_t i = 0; i < list.size(); ++i) {
               const Json& v = list.json()[i];
               if (!v.is_number_integer() || v.get<int64_t>() < 0 ||
                   v.get<int64_t>() >= models::kIbMaxDataVls) {
                 throw InputError(list.index_path(i), message_text(v), "a VL in [0, data_vls)");
               }
               p.sl_to_vl[i] = static_cast<uint8_t>(v.get<int>());
             }
             for (size_t i = list.size(); i < p.sl_to_vl.size(); ++i) p.sl_to_vl[i] = 0;
             p.sl_to_vl_given = true;
           },
           [](const IbParams& p) {
             Json a = Json::array();
             for (int sl = 0; sl < models::kIbServiceLevels; ++sl) {
               a.push_back(p.vl_of(static_cast<uint8_t>(sl)));
             }
             return a;
           }},
       Field<IbParams>{
           "vl_arbitration", "object", "",
           [](JsonReader& r, IbParams& p) {
             if (!r.has("vl_arbitration")) return;
             JsonReader a = r.at("vl_arbitration");
             a.expect_object();
             auto table = [&](const char* key, std::vector<models::VlArbEntry>& out) {
               if (!a.has(key)) return;
               JsonReader list = a.at(key);
               list.expect_array();
               if (list.size() > 64) {
                 throw InputError(list.path(), std::to_string(list.size()) + " entries",
                                  "at most 64 entries");
               }
               out.clear();
               for (size_t i = 0; i < list.size(); ++i) {
                 JsonReader e = list.element(i);
                 e.expect_object();
                 models::VlArbEntry entry;
                 entry.vl = static_cast<uint8_t>(e.integer("vl", 0, models::kIbMaxDataVls - 1));
                 entry.weight = static_cast<uint8_t>(e.integer("weight", 0, 255));
                 e.finish();
                 out.push_back(entry);
               }
             };
             table("high", p.arbitration.high);
             table("low", p.arbitration.low);
             p.arbitration.high_limit =
                 static_cast<int>(a.integer("high_limit", p.arbitration.high_limit, 0, 255));
             a.finish();
             p.arbitration_given = true;
           },
           [](const IbParams& p) {
             auto table = [](const std::vector<models::VlArbEntry>& t) {
               Json a = Json::array();
               for (const auto& e : t) a.push_back({{"vl", e.vl}, {"weight", e.weight}});
               return a;
             };
             if (!p.arbitration_given) return Json("default");
             return Json{{"high", table(p.arbitration.high)},
                         {"low", table(p.arbitration.low)},
                         {"high_limit", p.arbitration.high_limit}};
           }}});
  return t;
}

const FieldTable<models::SwitchParams>& ib_switch_fields() {
  static const FieldTable<models::SwitchParams> t = [] {
    FieldTable<models::SwitchParams> f;
    for (const auto& field : switch_fields()) {
      if (field.key == "latency" || field.key == "forwarding") f.push_back(field);
    }
    return f;
  }();
  return t;
}

void read_infiniband_section(std::optional<JsonReader>& section, Scenario& s,
                             LinkDefaults& link_defaults) {
  // InfiniBand defaults: Quantum-2-class switching latency (100-130 ns per switch,
  // docs/references.md "Fabric figures"); IB headers LRH 8 + BTH 12 + ICRC 4 + VCRC 2 = 26
  // bytes, no Ethernet framing.
  s.switch_defaults.latency = kInfinibandSwitchLatency;
  s.nic.header_bytes = 26;
  s.nic.framing_bytes = 0;
  if (section) {
    JsonReader& r = *section;
    r.expect_object();
    if (auto sw = r.get("switch")) {
      sw->expect_object();
      read_fields(*sw, ib_switch_fields(), s.switch_defaults);
      try {
        sw->finish();
      } catch (const InputError& e) {
        throw InputError(e.path, e.value,
                         "an InfiniBand switch parameter (latency, forwarding); its buffer is "
                         "infiniband.vl_buffer per input port and VL");
      }
    }
    if (auto nic = r.get("nic")) {
      nic->expect_object();
      read_fields(*nic, nic_fields(), s.nic);
      nic->finish();
    }
    if (auto link = r.get("link")) {
      link->expect_object();
      read_fields(*link, link_fields(), link_defaults);
      link->finish();
    }
    if (auto cc = r.get("cc")) read_ib_cc_section(*cc, s.ib.cc);
    read_sharp_section(r, s);  // sharp_section.hpp
    read_fields(r, ib_fields(), s.ib);
    r.finish();
  }
  const std::string where = section ? section->path() : std::string("infiniband");
  models::IbParams& ib = s.ib;
  for (int sl = 0; sl < models::kIbServiceLevels; ++sl) {
    if (ib.vl_of(static_cast<uint8_t>(sl)) >= ib.data_vls) {
      throw InputError(where + ".sl_to_vl[" + std::to_string(sl) + "]",
                       std::to_string(ib.vl_of(static_cast<uint8_t>(sl))),
                       "a VL below data_vls (" + std::to_string(ib.data_vls) + ")");
    }
  }
  for (const auto* t : {&ib.arbitration.high, &ib.arbitration.low}) {
    for (size_t i = 0; i < t->size(); ++i) {
      if ((*t)[i].vl >= ib.data_vls) {
        throw InputError(where + ".vl_arbitration." + (t == &ib.arbitration.high ? "high" : "low") +
                             "[" + std::to_string(i) + "].vl",
                         std::to_string((*t)[i].vl),
                         "a VL below data_vls (" + std::to_string(ib.data_vls) + ")");
      }
    }
  }
  if (s.nic.mtu > 4096) {
    throw InputError(where + ".nic.mtu", sim::format_bytes(s.nic.mtu),
                     "at most 4096 bytes (the InfiniBand MTU)");
  }
  if (ib.vl_buffer_bytes % models::kIbBlockBytes != 0) {
    throw InputError(where + ".vl_buffer", sim::format_bytes(ib.vl_buffer_bytes),
                     "a whole number of 64-byte blocks");
  }
  const int64_t frame = s.nic.mtu + s.nic.header_bytes + s.nic.framing_bytes;
  const int64_t frame_blocks = models::ib_blocks(static_cast<uint32_t>(frame));
  if (ib.vl_buffer_bytes / models::kIbBlockBytes < frame_blocks) {
    throw InputError(where + ".vl_buffer", sim::format_bytes(ib.vl_buffer_bytes),
                     "at least one largest packet (" + std::to_string(frame_blocks) +
                         " blocks of 64 bytes = " +
                         sim::format_bytes(frame_blocks * models::kIbBlockBytes) + ")");
  }
  if (s.nic.rx_buffer_bytes != 0) {
    throw InputError(where + ".nic.rx_buffer", sim::format_bytes(s.nic.rx_buffer_bytes),
                     "0: an InfiniBand NIC's receive buffer is vl_buffer per VL, bounded by "
                     "credits");
  }
  if (link_defaults.loss_rate > 0) {
    throw InputError(where + ".link.loss_rate", std::to_string(link_defaults.loss_rate),
                     "0: InfiniBand links are modelled lossless (a lost data packet would leak "
                     "credits; the spec's FCTBS resynchronisation is not modelled)");
  }
  // NVLink links (GPU servers' NVSwitch domains, topologies/gpu_nodes.hpp) keep their rate.
  std::vector<bool> nvlink_node(s.fabric.topo.nodes.size(), false);
  for (int n : s.fabric.topo.gpus.nvlink_node) nvlink_node[n] = true;
  for (size_t i = 0; i < s.fabric.topo.links.size(); ++i) {
    topo::Link& l = s.fabric.topo.links[i];
    if (nvlink_node[l.a] || nvlink_node[l.b]) continue;
    if (l.loss_rate > 0) {
      throw InputError("topology.links[" + std::to_string(i) + "].loss_rate",
                       std::to_string(l.loss_rate),
                       "0 on an InfiniBand fabric (links are modelled lossless)");
    }
    if (ib.preset_rate_bps > 0) l.rate_bps = ib.preset_rate_bps;
  }
}

void check_infiniband_override(const JsonReader& set) {
  for (auto it = set.json().begin(); it != set.json().end(); ++it) {
    if (it.key() == "latency" || it.key() == "forwarding" || it.key() == "sl_to_vl") continue;
    throw InputError(set.child_path(it.key()), message_text(it.value()),
                     "an InfiniBand switch parameter (latency, forwarding, sl_to_vl): the buffer "
                     "is infiniband.vl_buffer per input port and VL");
  }
}

Json infiniband_effective(const Json& roce_effective, const Scenario& s,
                          const LinkDefaults& link_defaults) {
  Json eff = roce_effective;
  eff["fabric"] = "infiniband";
  Json ib = write_fields(ib_fields(), s.ib);
  ib["switch"] = write_fields(ib_switch_fields(), s.switch_defaults);
  ib["nic"] = write_fields(nic_fields(), s.nic);
  ib["link"] = write_fields(link_fields(), link_defaults);
  ib["cc"] = write_fields(ib_cc_fields(), s.ib.cc);
  ib["sharp"] = write_fields(sharp_fields(), s.sharp);
  eff["infiniband"] = std::move(ib);
  return eff;
}

}  // namespace scen
