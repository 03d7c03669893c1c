// The `outputs` section: what a run samples over time (`timeseries`: an interval, ports named
// "switch:port" or by host, flows by id), checked against the topology and the flows.
#pragma once

#include "scenarios/loader/json_reader.hpp"
#include "scenarios/loader/scenario.hpp"

namespace scen {

// Needs s.fabric and s.flows read.
void read_outputs(JsonReader& r, Scenario& s);

}  // namespace scen
