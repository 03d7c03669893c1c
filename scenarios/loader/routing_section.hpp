// How a scenario's switches route, and Tagger's re-tagging:
//   "routing": "shortest-path" | "up-down" | "minhop" | "ftree"
//   "tagging": {"priorities": [3, 4]}
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "scenarios/loader/json_reader.hpp"
#include "scenarios/loader/scenario.hpp"
#include "topologies/routing.hpp"
#include "topologies/valley_tagging.hpp"

namespace scen {

void read_routing(JsonReader& root, Scenario& s);
// The scenario's "routing" as written ("shortest-path" when absent).
std::string routing_name(const Scenario& s);
void read_tagging(JsonReader& r, Scenario& s);
// With tagging, no flow may be sent on the list's later priorities (kept for re-tagged
// packets: traffic sent on them would not be protected).
void check_tagging_flows(const Scenario& s);

// Tagger's re-tagging for the static check (null when tagging is off).
std::unique_ptr<topo::ValleyRetag> valley_retag_for(const Scenario& s);

// The routing tables of the scenario's routing choice over the links that are up (with the
// linear forwarding tables for minhop and ftree).
topo::RoutingTables routes_for(const Scenario& s, const std::vector<bool>& link_up);

}  // namespace scen
