// The scenario format as a JSON Schema (draft 2020-12), for editors and for checking files
// outside rdmasim (`rdmasim schema`). Every parameter section (fabric.*, infiniband.*,
// overrides[].set) lists its keys from the parameter tables (param_registry.hpp) and refuses
// others, as the loader does; the structural sections (topology, workload, outputs, failures)
// are described at their top level and checked in full only by the loader (`rdmasim check`),
// whose rules (names that must exist in the topology, sums and cross-references) a schema cannot
// express.
#pragma once

#include "scenarios/loader/json_reader.hpp"

namespace scen {

Json scenario_schema();

}  // namespace scen
