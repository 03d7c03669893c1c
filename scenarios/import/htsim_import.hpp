// Import of an htsim connection matrix (the UCL packet simulator, as maintained for Ultra
// Ethernet in ultraethernet/uet-htsim and as Broadcom/csg-htsim) into an rdmasim scenario on
// the fat-tree htsim builds for the same host count.
//
// Format: "Nodes N", "Connections C", then one line per connection
// "src->dst id K start T size B"; lines starting with '#' are comments.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace scen {

// Returns the scenario JSON: a k-ary fat-tree (k^3/4 hosts) at htsim's settings and one flow
// per connection, host i named "h<i>". Throws InputError with path "<file>:<line>" on
// malformed input, "<file>" when a required line is missing.
nlohmann::json import_htsim(const std::string& matrix_text, const std::string& matrix_name,
                            int fat_tree_k, const std::string& scenario_name);

}  // namespace scen
