// The workload's "training" key: a data-parallel training step (models/collectives/
// training_spec.hpp): layers with compute times (given, or FLOPs / (peak × efficiency)),
// gradient buckets, optimizer, model FLOPs for MFU, and the all-reduce's communicator.
#pragma once

#include <vector>

#include "models/nic_params.hpp"
#include "models/qos_params.hpp"
#include "models/training/training_spec.hpp"
#include "scenarios/loader/json_reader.hpp"
#include "topologies/topology.hpp"

namespace scen {

// Reads workload.training (absent: none). Marks the key as read in `w`.
std::vector<models::TrainingSpec> read_training_section(JsonReader& w, const topo::Fabric& f,
                                                        const models::NicParams& nic,
                                                        const models::QosParams& qos);

}  // namespace scen
