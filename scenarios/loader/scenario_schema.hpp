// The scenario format as a JSON Schema (draft 2020-12), for editors and for checking files
// outside rdmasim (`rdmasim schema`). Every parameter section (fabric.*, infiniband.*,
// overrides[].set) lists its keys from the parameter tables (param_registry.hpp) and refuses
// others, as the loader does; the structural sections (topology, workload, outputs, failures)
// list their keys here, and a test checks that every key the loader reads in the shipped
// scenarios is described (tests/schema_test.cpp). The loader (`rdmasim check`) also checks what
// a schema cannot express: names that must exist in the topology, sums, cross-references.
#pragma once

#include "scenarios/loader/json_reader.hpp"

namespace scen {

Json scenario_schema();

}  // namespace scen
