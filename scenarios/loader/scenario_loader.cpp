#include <algorithm>
#include <filesystem>

#include "scenarios/loader/chakra_section.hpp"
#include "scenarios/loader/collective_section.hpp"
#include "scenarios/loader/fabric_section.hpp"
#include "scenarios/loader/failures_section.hpp"
#include "scenarios/loader/outputs_section.hpp"
#include "scenarios/loader/params.hpp"
#include "scenarios/loader/qos_section.hpp"
#include "scenarios/loader/routing_section.hpp"
#include "scenarios/loader/scenario.hpp"
#include "scenarios/loader/scenario_overlays.hpp"
#include "scenarios/loader/sharp_section.hpp"
#include "scenarios/loader/sl_to_vl_overrides.hpp"
#include "scenarios/loader/topology_section.hpp"
#include "scenarios/loader/training_section.hpp"
#include "scenarios/loader/watchdog_section.hpp"
#include "scenarios/loader/workload_section.hpp"

namespace scen {
namespace {

namespace fs = std::filesystem;

// One entry of "overrides", read into typed patches (the builder applies them): where it
// applies, then each key of its "set". `s` holds the fabric sections already read.
SwitchOverride read_override(JsonReader& r, const Scenario& s) {
  const topo::Fabric& f = s.fabric;
  r.expect_object();
  SwitchOverride o;
  o.path = r.path();
  const std::string sw = r.string("switch", "*");
  if (sw != "*") {
    o.node = f.node_by_name(sw);
    if (o.node < 0 || f.host_index[o.node] >= 0) {
      throw InputError(r.child_path("switch"), "\"" + sw + "\"", "the name of a switch, or \"*\"");
    }
  }
  if (r.has("port")) {
    const int64_t max_port = o.node >= 0 ? static_cast<int64_t>(f.ports[o.node].size()) - 1 : 65535;
    o.port = static_cast<int>(r.integer("port", 0, max_port));
  }
  if (r.has("priority")) o.priority = static_cast<int>(r.integer("priority", 0, 7));
  JsonReader set = r.at("set");
  set.expect_object();
  // Switch-wide keys only without port/priority.
  o.per_port = read_patch(set, port_fields());
  if (o.port < 0 && o.priority < 0) o.switch_wide = read_patch(set, switch_fields());
  if (set.has("scheduler")) {
    const JsonReader sched = set.at("scheduler");
    o.scheduler = read_scheduler_setting(sched.json(), sched.path(), o.priority);
  }
  if (set.has("ecn")) {
    JsonReader ecn = set.at("ecn");
    ecn.expect_object();
    o.ecn = read_patch(ecn, ecn_port_fields());
    try {
      ecn.finish();
    } catch (const InputError& e) {
      throw InputError(e.path, e.value,
                       "an ECN parameter that may differ per port and priority (enabled, kmin, "
                       "kmax, pmax); mark_at is fabric-wide");
    }
    o.has_ecn = true;
  }
  if (set.has("headroom")) {
    // PFC headroom of these (ingress port, priority) buffers, instead of the formula's.
    o.headroom_bytes = set.bytes("headroom", 1);
  }
  // InfiniBand: the SL -> VL table of these output ports (sl_to_vl_overrides.hpp).
  if (set.has("sl_to_vl")) o.sl_to_vl = read_sl_to_vl_override(set, o, s);
  if (set.has("pfc_watchdog")) {
    // The PFC watchdog of this switch's (or port's) egress (watchdog_section.hpp).
    if (o.priority >= 0) {
      throw InputError(r.child_path("priority"), std::to_string(o.priority),
                       "no priority with \"pfc_watchdog\" (set per switch or port)");
    }
    o.watchdog = read_watchdog_override(set);
  }
  try {
    set.finish();
  } catch (const InputError& e) {
    throw InputError(e.path, e.value,
                     o.port < 0 && o.priority < 0
                         ? "a switch parameter (see rdmasim run --list-params)"
                         : "a per-port parameter (queue_limit, reserve, alpha, scheduler, ecn, "
                           "headroom, pfc_watchdog, sl_to_vl); "
                           "switch-wide ones "
                           "need no "
                           "\"port\"/\"priority\"");
  }
  if (s.fabric_kind == FabricKind::Infiniband) check_infiniband_override(set);
  r.finish();
  return o;
}

void read_link_failures(JsonReader& r, Scenario& s) {
  r.expect_array();
  const auto& t = s.fabric.topo;
  for (size_t i = 0; i < r.size(); ++i) {
    JsonReader e = r.element(i);
    e.expect_object();
    if (e.has("link")) {
      const int64_t l = e.integer("link", 0, static_cast<int64_t>(t.links.size()) - 1);
      s.link_up[l] = false;
    } else {
      const std::string a = e.string("a"), b = e.string("b");
      const int na = s.fabric.node_by_name(a), nb = s.fabric.node_by_name(b);
      if (na < 0) throw InputError(e.child_path("a"), "\"" + a + "\"", "a node name");
      if (nb < 0) throw InputError(e.child_path("b"), "\"" + b + "\"", "a node name");
      bool any = false;
      for (size_t l = 0; l < t.links.size(); ++l) {
        if ((t.links[l].a == na && t.links[l].b == nb) ||
            (t.links[l].a == nb && t.links[l].b == na)) {
          s.link_up[l] = false;
          any = true;
        }
      }
      if (!any) throw InputError(e.path(), message_text(e.json()), "two nodes joined by a link");
    }
    e.finish();
  }
}

// The NIC receive buffer and NIC-sent PFC: refused when contradictory or without effect.
void check_nic_rx(const Scenario& s) {
  const models::NicParams& n = s.nic;
  const int64_t frame = n.mtu + n.header_bytes + n.framing_bytes;
  if (n.rx_buffer_bytes > 0 && n.rx_buffer_bytes < frame) {
    throw InputError("fabric.nic.rx_buffer", sim::format_bytes(n.rx_buffer_bytes),
                     "0 (unbounded) or at least one full frame (" + sim::format_bytes(frame) + ")");
  }
  if (n.pfc_xoff_bytes == 0) return;
  const std::string xoff = sim::format_bytes(n.pfc_xoff_bytes);
  if (!s.pfc.enabled) {
    throw InputError("fabric.nic.pfc_xoff", xoff,
                     "0 unless fabric.pfc.enabled is true (the switch must obey the NIC's pause "
                     "frames)");
  }
  if (n.rx_drain_rate_bps == 0) {
    throw InputError("fabric.nic.pfc_xoff", xoff,
                     "0 while fabric.nic.rx_drain_rate is 0 (an infinitely fast host never fills "
                     "the receive buffer)");
  }
  if (n.pfc_xon_offset_bytes >= n.pfc_xoff_bytes) {
    throw InputError("fabric.nic.pfc_xon_offset", sim::format_bytes(n.pfc_xon_offset_bytes),
                     "less than fabric.nic.pfc_xoff (" + xoff + ")");
  }
  if (n.rx_buffer_bytes > 0 && n.rx_buffer_bytes <= n.pfc_xoff_bytes) {
    throw InputError("fabric.nic.rx_buffer", sim::format_bytes(n.rx_buffer_bytes),
                     "more than fabric.nic.pfc_xoff (" + xoff + ") plus the headroom");
  }
}

// `fabric.cc`: the algorithm, then its preset (default `paper`), then the knobs.
// Kernel TCP carries every message of the fabric: RDMA's congestion control has nothing to act
// on, and GPU data is staged through host memory (no GPUDirect RDMA).
void check_tcp_fabric(const std::string& fab, Scenario& s) {
  const std::string tcp_cc = "TCP's window is fabric.tcp.cc (cubic, dctcp, reno)";
  if (s.dcqcn.enabled) {
    throw InputError(fab + ".dcqcn.enabled", "true",
                     "false with transport \"tcp\": DCQCN rate-limits RDMA queue pairs; " + tcp_cc);
  }
  if (s.cc.algorithm != models::CcAlgorithm::None) {
    throw InputError(fab + ".cc.algorithm",
                     std::string("\"") + models::cc_algorithm_name(s.cc.algorithm) + "\"",
                     "\"none\" with transport \"tcp\": fabric.cc is RDMA NICs' congestion "
                     "control; " +
                         tcp_cc);
  }
  topo::GpuNodeParams& gpus = s.fabric.topo.gpus.params;
  if (s.fabric.topo.gpus.servers > 0 && gpus.gpudirect_rdma) {
    gpus.gpudirect_rdma = false;
    s.tcp_staged_gpus = true;
  }
}

void read_cc_section(JsonReader& cc, Scenario& s) {
  cc.expect_object();
  const std::string name = cc.choice("algorithm", models::cc_algorithm_names(), "none");
  models::cc_algorithm_from_name(name, s.cc.algorithm);  // choice() has checked the name
  const std::string preset =
      cc.choice("preset", models::cc_preset_names(), models::cc_preset_names().front());
  models::cc_preset(preset, s.cc);
  read_fields(cc, cc_fields(), s.cc);
  cc.finish();
  if (s.cc.algorithm == models::CcAlgorithm::Dcqcn) {
    s.dcqcn.enabled = true;
    if (s.cc.classes != 0xff) s.dcqcn.classes = s.cc.classes;
  } else if (s.cc.algorithm != models::CcAlgorithm::None && s.dcqcn.enabled &&
             (s.cc.classes & s.dcqcn.classes) != 0) {
    throw InputError(cc.child_path("algorithm"), "\"" + name + "\"",
                     "one congestion control per traffic class: fabric.dcqcn.enabled is true "
                     "as well on classes this one controls (set \"algorithm\": \"dcqcn\", turn "
                     "DCQCN off, or give the two disjoint fabric.cc.classes and "
                     "fabric.dcqcn.classes)");
  }
  if (s.cc.timely_t_high <= s.cc.timely_t_low) {
    throw InputError(cc.child_path("timely_t_high"), sim::format_time(s.cc.timely_t_high),
                     "more than timely_t_low (" + sim::format_time(s.cc.timely_t_low) + ")");
  }
}

}  // namespace

Scenario load_scenario_file(const std::string& file, const LoadOptions& options) {
  const Json root = read_json_file(file);
  const fs::path p(file);
  Scenario s = load_scenario_json(root, p.parent_path().string(), options, file);
  return s;
}

Scenario load_scenario_json(Json root, const std::string& base_dir, const LoadOptions& options,
                            const std::string& source_file) {
  if (!root.is_object())
    throw InputError("(root)", message_text(root).substr(0, 60), "a JSON object");
  root = resolve_includes(root, base_dir.empty() ? "." : base_dir, source_file);
  for (const auto& a : options.sets) apply_set(root, a);
  if (options.has_seed) root["seed"] = options.seed;

  Scenario s;
  s.source_file = source_file;
  JsonReader r(root, "");
  s.name =
      r.string("name", source_file.empty() ? "scenario" : fs::path(source_file).stem().string());
  if (s.name.empty() || s.name.find('/') != std::string::npos) {
    throw InputError("name", "\"" + s.name + "\"", "a non-empty name without '/'");
  }
  r.string("description", "");
  r.string("$schema", "");  // an editor's pointer to `rdmasim schema`'s output: ignored
  s.seed = static_cast<uint64_t>(r.integer("seed", 1, 0, INT64_MAX));
  const std::string dir = base_dir.empty() ? "." : base_dir;

  JsonReader topo_r = r.at("topology");
  s.fabric = build_fabric_checked(read_topology_section(topo_r, dir), "topology");
  s.link_up.assign(s.fabric.topo.links.size(), true);

  LinkDefaults link_defaults;
  auto fab = select_fabric(r, options, s);  // "fabric": an object, or which fabric(s) to run
  if (s.fabric_kind == FabricKind::Infiniband) {
    read_infiniband_section(fab, s, link_defaults);
    s.qos.highest_priority = models::kIbServiceLevels - 1;  // a flow's priority is its SL
  } else if (fab) {
    fab->expect_object();
    if (auto sw = fab->get("switch")) {
      sw->expect_object();
      read_fields(*sw, switch_fields(), s.switch_defaults);
      read_fields(*sw, port_fields(), s.switch_defaults);
      sw->finish();
    }
    if (auto nic = fab->get("nic")) {
      nic->expect_object();
      read_fields(*nic, nic_fields(), s.nic);
      nic->finish();
    }
    if (auto pfc = fab->get("pfc")) {
      pfc->expect_object();
      read_fields(*pfc, pfc_fields(), s.pfc);
      pfc->finish();
      if (s.pfc.xon_offset_bytes >= s.pfc.xoff_bytes) {
        throw InputError("fabric.pfc.xon_offset", sim::format_bytes(s.pfc.xon_offset_bytes),
                         "less than fabric.pfc.xoff (" + sim::format_bytes(s.pfc.xoff_bytes) + ")");
      }
    }
    if (auto ecn = fab->get("ecn")) {
      ecn->expect_object();
      read_fields(*ecn, ecn_fields(), s.ecn);
      ecn->finish();
      if (s.ecn.kmax_bytes <= s.ecn.kmin_bytes) {
        throw InputError("fabric.ecn.kmax", sim::format_bytes(s.ecn.kmax_bytes),
                         "more than fabric.ecn.kmin (" + sim::format_bytes(s.ecn.kmin_bytes) + ")");
      }
    }
    if (auto dc = fab->get("dcqcn")) {
      dc->expect_object();
      if (dc->has("preset")) {
        const std::string name = dc->choice("preset", models::dcqcn_preset_names(), s.dcqcn.preset);
        models::dcqcn_preset(name, s.dcqcn);
      }
      read_fields(*dc, dcqcn_fields(), s.dcqcn);
      dc->finish();
    }
    if (auto cc = fab->get("cc")) read_cc_section(*cc, s);
    if (fab->has("transport")) {
      s.tcp_transport =
          fab->choice("transport", {"rdma", "tcp"}, s.tcp_transport ? "tcp" : "rdma") == "tcp";
    }
    if (auto tcp = fab->get("tcp")) {
      tcp->expect_object();
      read_fields(*tcp, tcp_fields(), s.tcp);
      tcp->finish();
    }
    if (auto qos = fab->get("qos")) {
      qos->expect_object();
      read_fields(*qos, qos_fields(), s.qos);
      qos->finish();
    }
    if (auto link = fab->get("link")) {
      link->expect_object();
      read_fields(*link, link_fields(), link_defaults);
      link->finish();
    }
    fab->finish();
  }
  if (s.tcp_transport) check_tcp_fabric(fab ? fab->path() : std::string("fabric"), s);
  check_qos(s.qos, s.nic);
  check_nic_rx(s);
  if (link_defaults.loss_rate > 0) {
    for (auto& l : s.fabric.topo.links) {
      if (l.loss_rate == 0.0) l.loss_rate = link_defaults.loss_rate;
    }
  }
  if (auto ov = r.get("overrides")) {
    ov->expect_array();
    for (size_t i = 0; i < ov->size(); ++i) {
      JsonReader e = ov->element(i);
      s.overrides.push_back(read_override(e, s));
    }
  }
  // Every resolved ECN setting is checked now, before any simulation.
  if (std::any_of(s.overrides.begin(), s.overrides.end(),
                  [](const SwitchOverride& o) { return o.has_ecn; })) {
    for (size_t n = 0; n < s.fabric.topo.nodes.size(); ++n) {
      if (s.fabric.host_index[n] >= 0) continue;
      for (size_t port = 0; port < s.fabric.ports[n].size(); ++port) {
        (void)ecn_params_for(s, static_cast<int>(n), static_cast<int>(port));
      }
    }
  }
  if (auto lf = r.get("link_failures")) read_link_failures(*lf, s);
  if (auto ps = r.get("pause_storms")) read_pause_storms(*ps, s);  // failures_section.hpp
  if (auto le = r.get("link_events")) read_link_events(*le, s);
  if (auto tg = r.get("tagging")) read_tagging(*tg, s);
  read_routing(r, s);

  static const Json kNoWorkload = Json::object();
  JsonReader w = options.allow_empty_workload && !r.has("workload")
                     ? JsonReader(kNoWorkload, "workload")
                     : r.at("workload");
  s.collectives = read_collective_section(w, s.fabric, s.nic, s.qos);
  s.training = read_training_section(w, s.fabric, s.nic, s.qos);
  s.chakra = read_chakra_section(w, s.fabric, s.nic, s.qos, dir);
  check_sharp_workload(r.json(), s);  // sharp_section.hpp
  s.flows =
      read_workload_section(w, s.fabric, s.nic, s.qos, s.seed, dir,
                            options.allow_empty_workload || !s.collectives.empty() ||
                                !s.training.empty() || !s.chakra.empty(),
                            options.max_memory_bytes, s.fabric_kind != FabricKind::Infiniband);
  check_tagging_flows(s);  // routing_section.hpp

  if (auto st = r.get("stop")) {
    st->expect_object();
    const std::string until = st->choice("until", {"workload-done", "time"}, "workload-done");
    s.stop_when_done = until == "workload-done";
    if (st->has("time")) s.stop_time = st->time("time", sim::Time(1));
    s.stop_on_deadlock = st->choice("on_deadlock", {"stop", "continue"}, "stop") == "stop";
    if (!s.stop_when_done && !st->has("time")) {
      throw InputError(st->child_path("time"), "", "a time limit when \"until\" is \"time\"");
    }
    st->finish();
  }
  if (auto out = r.get("outputs")) read_outputs(*out, s);
  r.finish();

  // The effective configuration: every parameter with its value after defaults.
  Json eff;
  eff["name"] = s.name;
  eff["seed"] = s.seed;
  eff["topology"] = root["topology"];
  eff["fabric"]["switch"] = write_fields(switch_fields(), s.switch_defaults);
  eff["fabric"]["switch"].update(write_fields(port_fields(), s.switch_defaults));
  eff["fabric"]["nic"] = write_fields(nic_fields(), s.nic);
  eff["fabric"]["link"] = write_fields(link_fields(), link_defaults);
  eff["fabric"]["pfc"] = write_fields(pfc_fields(), s.pfc);
  eff["fabric"]["ecn"] = write_fields(ecn_fields(), s.ecn);
  eff["fabric"]["dcqcn"] = write_fields(dcqcn_fields(), s.dcqcn);
  eff["fabric"]["cc"] = write_fields(cc_fields(), s.cc);
  eff["fabric"]["qos"] = write_fields(qos_fields(), s.qos);
  if (s.uses_tcp()) {  // only then, so that RDMA scenarios' summaries stay as they were
    eff["fabric"]["transport"] = s.tcp_transport ? "tcp" : "rdma";
    eff["fabric"]["tcp"] = write_fields(tcp_fields(), s.tcp);
  }
  eff["overrides"] = root.contains("overrides") ? root["overrides"] : Json::array();
  eff["link_failures"] = root.contains("link_failures") ? root["link_failures"] : Json::array();
  if (root.contains("routing")) eff["routing"] = routing_name(s);
  if (!s.pause_storms.empty()) eff["pause_storms"] = pause_storms_json(s);
  if (!s.link_events.empty()) eff["link_events"] = link_events_json(s);
  if (!s.tagging_priorities.empty()) eff["tagging"]["priorities"] = s.tagging_priorities;
  eff["workload"] = root["workload"];
  eff["stop"]["until"] = s.stop_when_done ? "workload-done" : "time";
  if (s.stop_time != sim::Time::max()) eff["stop"]["time"] = sim::format_time(s.stop_time);
  eff["stop"]["on_deadlock"] = s.stop_on_deadlock ? "stop" : "continue";
  if (root.contains("outputs")) eff["outputs"] = root["outputs"];
  s.effective = s.fabric_kind == FabricKind::Infiniband
                    ? infiniband_effective(eff, s, link_defaults)
                    : std::move(eff);
  return s;
}

models::SwitchParams switch_params_for(const Scenario& s, int node) {
  models::SwitchParams p = s.switch_defaults;
  for (const auto& o : s.overrides) {
    if (o.port >= 0 || o.priority >= 0) continue;
    if (o.node >= 0 && o.node != node) continue;
    o.switch_wide.apply(p);
    o.per_port.apply(p);
  }
  return p;
}

}  // namespace scen

namespace scen {

std::array<models::EcnParams, models::kPriorities> ecn_params_for(const Scenario& s, int node,
                                                                  int port) {
  std::array<models::EcnParams, models::kPriorities> out;
  out.fill(s.ecn);
  std::array<const SwitchOverride*, models::kPriorities> last{};
  for (const auto& o : s.overrides) {
    if (!o.has_ecn) continue;
    if (o.node >= 0 && o.node != node) continue;
    if (o.port >= 0 && o.port != port) continue;
    for (int prio = 0; prio < models::kPriorities; ++prio) {
      if (o.priority >= 0 && o.priority != prio) continue;
      o.ecn.apply(out[prio]);
      last[prio] = &o;
    }
  }
  for (int prio = 0; prio < models::kPriorities; ++prio) {
    const models::EcnParams& e = out[prio];
    if (last[prio] == nullptr || e.kmax_bytes > e.kmin_bytes) continue;
    const SwitchOverride& o = *last[prio];
    const std::string key = o.ecn.sets("kmax") ? "kmax" : "kmin";
    throw InputError(
        o.path + ".set.ecn." + key, sim::format_bytes(key == "kmax" ? e.kmax_bytes : e.kmin_bytes),
        "kmax more than kmin as resolved for switch " + s.fabric.topo.nodes[node].name + " port " +
            std::to_string(port) + " priority " + std::to_string(prio) + " (kmin " +
            sim::format_bytes(e.kmin_bytes) + ", kmax " + sim::format_bytes(e.kmax_bytes) + ")");
  }
  return out;
}

}  // namespace scen
