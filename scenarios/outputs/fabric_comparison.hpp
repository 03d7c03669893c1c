// One scenario run on several fabrics ("fabric": ["infiniband", "roce"]): a table of what
// differs, one row per fabric: FCT percentiles, flow-control holds (PFC pauses or credit
// stalls) and drops.
#pragma once

#include <string>
#include <vector>

#include "scenarios/run/run_scenario.hpp"

namespace scen {

struct FabricRun {
  std::string fabric;  // "roce" | "infiniband"
  const RunOutcome* outcome = nullptr;
};

// Plain text, aligned columns (what `rdmasim run` prints).
std::string fabric_comparison_table(const std::vector<FabricRun>& runs);
// The same rows as CSV (comparison.csv).
std::string fabric_comparison_csv(const std::vector<FabricRun>& runs);

}  // namespace scen
