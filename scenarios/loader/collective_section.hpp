// The workload's "collective" key: one object or an array of them, each an nccl-tests-style
// run of one operation over a range of sizes on a set of ranks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/collectives/collective_spec.hpp"
#include "models/nic_params.hpp"
#include "models/qos_params.hpp"
#include "scenarios/loader/json_reader.hpp"
#include "scenarios/loader/param_table.hpp"
#include "topologies/topology.hpp"

namespace scen {

// Reads workload.collective (absent: none). Marks the key as read in `w`.
std::vector<models::CollectiveSpec> read_collective_section(JsonReader& w, const topo::Fabric& f,
                                                            const models::NicParams& nic,
                                                            const models::QosParams& qos);

// One collective object; without sizes (`with_sizes` false: "op", "size", "min", "max" and
// "factor" are not keys) for the all-reduces of a training step.
models::CollectiveSpec read_collective(JsonReader& r, const topo::Fabric& f,
                                       const models::NicParams& nic, const models::QosParams& qos,
                                       bool with_sizes);

// A collective's element types ("type": "bfloat16") and their bytes.
struct ElementType {
  std::string name;
  int64_t bytes = 4;
};
const std::vector<ElementType>& element_types();

// The tunable keys of a collective entry (for --list-params and the echo).
const FieldTable<models::CollectiveSpec>& collective_fields();
// A collective's defaults as the loader starts from them ("chunk": "auto").
models::CollectiveSpec collective_defaults();

}  // namespace scen
