// In-network reduction (SHARP) settings: `infiniband.sharp` (the aggregation nodes' reduction
// rate and latency, the chunk size, the outstanding chunks) and the check that a workload asks
// for algorithm "sharp" only where it exists (an all-reduce on an InfiniBand fabric).
#pragma once

#include "models/sharp/sharp_params.hpp"
#include "scenarios/loader/param_table.hpp"
#include "scenarios/loader/scenario.hpp"

namespace scen {

const FieldTable<models::SharpParams>& sharp_fields();

// Reads `infiniband.sharp` when the section has it.
void read_sharp_section(JsonReader& infiniband, Scenario& s);

// Algorithms "sharp", "collnet_direct" and "collnet_chain" on a fabric other than InfiniBand
// are refused, with the path of the workload's algorithm key (`root` is the scenario's JSON).
void check_sharp_workload(const Json& root, const Scenario& s);

}  // namespace scen
