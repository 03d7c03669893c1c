// Failure injection and routing choices of a scenario, beside "link_failures":
//   "pause_storms": [{"host": "h0", "start": "50us", "end": "1ms", "priorities": [3],
//                     "quanta": 65535, "interval": "10us"}, ...]
//   "routing": "shortest-path" | "up-down" | "minhop" | "ftree"
//   "tagging": {"priorities": [3, 4]}
//   "link_events": {"convergence_delay": "100us",
//                   "events": [{"at": "500us", "a": "L0", "b": "S0", "state": "down"}, ...]}
#pragma once

#include <memory>

#include "scenarios/loader/json_reader.hpp"
#include "scenarios/loader/scenario.hpp"
#include "topologies/routing.hpp"
#include "topologies/valley_tagging.hpp"

namespace scen {

void read_pause_storms(JsonReader& r, Scenario& s);
void read_routing(JsonReader& root, Scenario& s);
// The scenario's "routing" as written ("shortest-path" when absent).
std::string routing_name(const Scenario& s);
void read_link_events(JsonReader& r, Scenario& s);
void read_tagging(JsonReader& r, Scenario& s);
// With tagging, no flow may be sent on the list's later priorities (kept for re-tagged
// packets: traffic sent on them would not be protected).
void check_tagging_flows(const Scenario& s);

// The effective values, for summary.json.
Json pause_storms_json(const Scenario& s);
Json link_events_json(const Scenario& s);

// The state of every topology link after the first `count` link events (in time order; the
// initial link failures applied first).
std::vector<bool> link_state_after(const Scenario& s, size_t count);

// Tagger's re-tagging for the static check (null when tagging is off).
std::unique_ptr<topo::ValleyRetag> valley_retag_for(const Scenario& s);

// The routing tables of the scenario's routing choice over the links that are up (with the
// linear forwarding tables for minhop and ftree).
topo::RoutingTables routes_for(const Scenario& s, const std::vector<bool>& link_up);

}  // namespace scen
