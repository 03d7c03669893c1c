// Import of the ns-3 HPCC simulator's plain-text inputs (alibaba-edu/High-Precision-
// Congestion-Control, also read by the ns-3 backends of ASTRA-sim and SimAI) into an rdmasim
// scenario, so the same workload can run in both simulators side by side.
//
// Topology file: "N_nodes N_switches N_links", then the switch node ids on one line, then one
// line per link "src dst rate delay error_rate" (e.g. "0 320 100Gbps 1000ns 0").
// Flow file: the number of flows, then one line per flow
// "src dst priority dport size_bytes start_seconds".
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace scen {

// Returns the scenario JSON. Node i becomes "h<i>" (host) or "s<i>" (switch), keeping the
// peer's numbering. Throws InputError with path "<file>:<line>" on malformed input; the
// *_name arguments are the file names used in those paths.
nlohmann::json import_hpcc(const std::string& topo_text, const std::string& topo_name,
                           const std::string& flows_text, const std::string& flows_name,
                           const std::string& scenario_name);

}  // namespace scen
