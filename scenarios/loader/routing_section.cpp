#include "scenarios/loader/routing_section.hpp"

#include <algorithm>

#include "topologies/updown_routing.hpp"

namespace scen {

void read_routing(JsonReader& root, Scenario& s) {
  const std::string r =
      root.choice("routing", {"shortest-path", "up-down", "minhop", "ftree"}, "shortest-path");
  s.updown_routing = r == "up-down" || r == "ftree";
  s.lft_routing = r == "minhop" || r == "ftree";
  s.lft_algorithm = r == "ftree" ? topo::LftAlgorithm::FatTree : topo::LftAlgorithm::MinHop;
}

std::string routing_name(const Scenario& s) {
  if (s.lft_routing) return topo::lft_algorithm_name(s.lft_algorithm);
  return s.updown_routing ? "up-down" : "shortest-path";
}

void read_tagging(JsonReader& r, Scenario& s) {
  r.expect_object();
  JsonReader list = r.at("priorities");
  list.expect_array();
  if (!s.pfc.enabled) {
    throw InputError(r.path(), "tagging",
                     "fabric.pfc.enabled true (tagging moves lossless traffic)");
  }
  if (s.qos.trust == models::Trust::Dscp) {
    throw InputError(r.path(), "tagging",
                     "fabric.qos.trust \"pcp\" (a switch trusting DSCP would undo the re-tag)");
  }
  uint8_t seen = 0;
  for (size_t i = 0; i < list.size(); ++i) {
    const Json& v = list.json()[i];
    if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > 7) {
      throw InputError(list.index_path(i), message_text(v), "a priority in [0, 7]");
    }
    const int p = v.get<int>();
    if (((s.pfc.lossless_priorities >> p) & 1u) == 0) {
      throw InputError(list.index_path(i), message_text(v),
                       "a lossless priority (fabric.pfc.priorities)");
    }
    if ((seen >> p) & 1u)
      throw InputError(list.index_path(i), message_text(v), "each priority once");
    seen |= static_cast<uint8_t>(1u << p);
    s.tagging_priorities.push_back(p);
  }
  if (s.tagging_priorities.size() < 2) {
    throw InputError(list.path(), message_text(list.json()),
                     "two or more lossless priorities, in order");
  }
  r.finish();
}

void check_tagging_flows(const Scenario& s) {
  const auto& tags = s.tagging_priorities;
  for (size_t i = 0; i < s.flows.size() && tags.size() > 1; ++i) {
    const int p = s.flows[i].priority;
    if (std::find(tags.begin() + 1, tags.end(), p) != tags.end()) {
      throw InputError("workload",
                       "flow " + std::to_string(i) + " on priority " + std::to_string(p),
                       "flows on tagging.priorities[0] (" + std::to_string(tags[0]) +
                           ") or a priority outside the list: the later ones carry re-tagged "
                           "packets only");
    }
  }
}

std::unique_ptr<topo::ValleyRetag> valley_retag_for(const Scenario& s) {
  if (s.tagging_priorities.empty()) return nullptr;
  return std::make_unique<topo::ValleyRetag>(
      topo::make_valley_retag(s.fabric, s.tagging_priorities));
}

topo::RoutingTables routes_for(const Scenario& s, const std::vector<bool>& link_up) {
  topo::RoutingTables rt = s.updown_routing ? topo::compute_updown_routes(s.fabric, link_up)
                                            : topo::compute_routes(s.fabric, link_up);
  if (s.lft_routing) rt.lft = topo::compute_lft(s.fabric, rt, s.lft_algorithm);
  return rt;
}

}  // namespace scen
