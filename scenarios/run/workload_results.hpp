// What collective and training workloads report: per size the nccl-tests row (collectives.csv),
// per training step its time, exposed communication and MFU, and the headline of the last of
// each.
#pragma once

#include <memory>
#include <vector>

#include "models/collectives/collective_runner.hpp"
#include "models/training/training_step.hpp"
#include "scenarios/run/run_scenario.hpp"

namespace scen {

// Fills out.collectives, out.training_steps, out.training_all_reduces and res["training"],
// res["collective"].
void add_workload_results(const Scenario& s,
                          const std::vector<std::unique_ptr<models::CollectiveRunner>>& collectives,
                          const std::vector<std::unique_ptr<models::TrainingRunner>>& training,
                          RunOutcome& out, Json& res);

// Fills out.chakra_ranks, out.chakra_collectives and res["chakra"]: the iteration (the slowest
// rank's), the mean compute and exposed communication per rank.
void add_chakra_results(const std::vector<std::unique_ptr<models::ChakraRunner>>& chakra,
                        RunOutcome& out, Json& res);

}  // namespace scen
