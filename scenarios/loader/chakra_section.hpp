// The workload's "chakra" key: per-rank MLCommons Chakra execution traces
// (models/workloads/chakra_spec.hpp): the files PREFIX.<rank>.et ("traces", one per rank, the
// ranks the topology's GPUs unless listed), their process groups (ASTRA-sim's
// communicator-group JSON, "comm_groups"), the collectives' settings ("comm"). Every node is
// checked while loading: its type and attributes, its dependencies (present, no cycle), its
// collective matched across the group, its send matched to a receive; anything else is
// refused naming the file and the node.
#pragma once

#include <string>
#include <vector>

#include "models/nic_params.hpp"
#include "models/qos_params.hpp"
#include "models/workloads/chakra_spec.hpp"
#include "scenarios/loader/json_reader.hpp"
#include "topologies/topology.hpp"

namespace scen {

// Reads workload.chakra (absent: none); `dir` resolves relative paths (the scenario's folder).
std::vector<models::ChakraSpec> read_chakra_section(JsonReader& w, const topo::Fabric& f,
                                                    const models::NicParams& nic,
                                                    const models::QosParams& qos,
                                                    const std::string& dir);

}  // namespace scen
