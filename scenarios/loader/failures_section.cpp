#include "scenarios/loader/failures_section.hpp"

#include <algorithm>

#include "sim/units.hpp"

namespace scen {

void read_pause_storms(JsonReader& r, Scenario& s) {
  r.expect_array();
  if (r.size() > 0 && !s.pfc.enabled) {
    throw InputError(r.path(), "a pause storm",
                     "fabric.pfc.enabled true (without PFC a pause frame holds nothing)");
  }
  const topo::Fabric& f = s.fabric;
  for (size_t i = 0; i < r.size(); ++i) {
    JsonReader e = r.element(i);
    e.expect_object();
    models::PauseStormParams p;
    const std::string host = e.string("host");
    const int node = f.node_by_name(host);
    if (node < 0 || f.host_index[node] < 0) {
      throw InputError(e.child_path("host"), "\"" + host + "\"", "the name of a host");
    }
    p.host = static_cast<uint32_t>(f.host_index[node]);
    p.start = e.time("start");
    if (e.has("end")) {
      p.end = e.time("end", p.start + sim::Time(1));
    }
    if (e.has("priorities")) {
      JsonReader list = e.at("priorities");
      list.expect_array();
      for (size_t k = 0; k < list.size(); ++k) {
        const Json& v = list.json()[k];
        if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > 7) {
          throw InputError(list.index_path(k), message_text(v), "a priority in [0, 7]");
        }
        p.priorities |= static_cast<uint8_t>(1u << v.get<int>());
      }
    }
    if (p.priorities == 0) p.priorities = s.pfc.lossless_priorities;
    p.quanta = static_cast<uint32_t>(e.integer("quanta", 65535, 1, 65535));
    p.interval = e.time("interval", sim::Time(0), sim::Time(0));
    e.finish();
    s.pause_storms.push_back(p);
  }
}

void read_link_events(JsonReader& r, Scenario& s) {
  r.expect_object();
  s.convergence_delay = r.time("convergence_delay", sim::Time(0), sim::Time(0));
  JsonReader list = r.at("events");
  list.expect_array();
  const topo::Fabric& f = s.fabric;
  for (size_t i = 0; i < list.size(); ++i) {
    JsonReader e = list.element(i);
    e.expect_object();
    Scenario::LinkEvent ev;
    ev.at = e.time("at");
    const std::string a = e.string("a"), b = e.string("b");
    const int na = f.node_by_name(a), nb = f.node_by_name(b);
    if (na < 0) throw InputError(e.child_path("a"), "\"" + a + "\"", "a node name");
    if (nb < 0) throw InputError(e.child_path("b"), "\"" + b + "\"", "a node name");
    for (size_t l = 0; l < f.topo.links.size(); ++l) {
      const topo::Link& k = f.topo.links[l];
      if ((k.a == na && k.b == nb) || (k.a == nb && k.b == na)) {
        ev.links.push_back(static_cast<int>(l));
      }
    }
    if (ev.links.empty()) {
      throw InputError(e.path(), a + "-" + b, "two nodes with a link between them");
    }
    const std::string state = e.choice("state", {"down", "up"}, "down");
    ev.up = state == "up";
    ev.label = a + "-" + b + " " + state + " at " + sim::format_time(ev.at);
    e.finish();
    s.link_events.push_back(std::move(ev));
  }
  r.finish();
  // Time order; events at the same time keep the file's order.
  std::stable_sort(
      s.link_events.begin(), s.link_events.end(),
      [](const Scenario::LinkEvent& x, const Scenario::LinkEvent& y) { return x.at < y.at; });
}

std::vector<bool> link_state_after(const Scenario& s, size_t count) {
  std::vector<bool> up = s.link_up;
  for (size_t i = 0; i < count && i < s.link_events.size(); ++i) {
    for (const int l : s.link_events[i].links) up[l] = s.link_events[i].up;
  }
  return up;
}

Json link_events_json(const Scenario& s) {
  Json j;
  j["convergence_delay"] = sim::format_time(s.convergence_delay);
  j["events"] = Json::array();
  for (const auto& e : s.link_events) j["events"].push_back(e.label);
  return j;
}

Json pause_storms_json(const Scenario& s) {
  Json a = Json::array();
  for (const auto& p : s.pause_storms) {
    Json e;
    e["host"] = s.fabric.topo.nodes[s.fabric.host_node[p.host]].name;
    e["start"] = sim::format_time(p.start);
    if (p.end != sim::Time::max()) e["end"] = sim::format_time(p.end);
    Json prios = Json::array();
    for (int k = 0; k < 8; ++k) {
      if ((p.priorities >> k) & 1u) prios.push_back(k);
    }
    e["priorities"] = prios;
    e["quanta"] = p.quanta;
    e["interval"] = sim::format_time(p.interval);
    a.push_back(e);
  }
  return a;
}

}  // namespace scen
