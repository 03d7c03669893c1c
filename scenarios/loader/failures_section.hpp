// Failure injection of a scenario, beside "link_failures":
//   "pause_storms": [{"host": "h0", "start": "50us", "end": "1ms", "priorities": [3],
//                     "quanta": 65535, "interval": "10us"}, ...]
//   "link_events": {"convergence_delay": "100us",
//                   "events": [{"at": "500us", "a": "L0", "b": "S0", "state": "down"}, ...]}
// (routing and tagging: routing_section.hpp)
#pragma once

#include <vector>

#include "scenarios/loader/json_reader.hpp"
#include "scenarios/loader/scenario.hpp"

namespace scen {

void read_pause_storms(JsonReader& r, Scenario& s);
void read_link_events(JsonReader& r, Scenario& s);

// The effective values, for summary.json.
Json pause_storms_json(const Scenario& s);
Json link_events_json(const Scenario& s);

// The state of every topology link after the first `count` link events (in time order; the
// initial link failures applied first).
std::vector<bool> link_state_after(const Scenario& s, size_t count);

}  // namespace scen
