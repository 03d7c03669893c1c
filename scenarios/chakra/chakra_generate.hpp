// Chakra execution traces of a training step described by its parallel layout (`rdmasim
// chakra generate`): per rank the program Megatron-LM runs (models/training/
// pipeline_schedule.hpp: 1F1B over the pipeline stages, the tensor group's all-reduces after
// each half layer), as a chain of nodes — compute nodes, all-reduces on the tensor group,
// sends and receives between stages (a call's sends and receives side by side, the next node
// after all of them), then the gradient all-reduces on the data group in buckets and the
// optimizer. Ranks in Megatron's order (tensor, data, pipeline); process groups "tp_S_D" and
// "dp_S_T" in ASTRA-sim's communicator-group file. Compute times are whole microseconds
// (Chakra's duration_micros).
#pragma once

#include <cstdint>
#include <string>

#include "scenarios/loader/chakra_trace.hpp"
#include "sim/time.hpp"

namespace scen {

struct ChakraTrainingLayout {
  int tp = 1, pp = 1, dp = 1, microbatches = 1, layers = 1;
  sim::Time forward, backward, optimizer;  // per layer and micro-batch on one GPU
  int64_t activation_bytes = 0;            // one micro-batch's activations
  int64_t gradient_bytes = 0;              // per layer and GPU
  int64_t bucket_bytes = 25 << 20;
};

// A trace file as Chakra's tools write it (a varint length before each message), atomically
// (a temporary name, then renamed).
void write_et_file(const std::string& file, const EtFile& et);

// Writes PREFIX.<rank>.et for every rank and PREFIX.comm_groups.json; returns the ranks.
// Throws InputError for a layout that does not hold together (layers not a multiple of pp,
// sizes missing).
int write_training_traces(const ChakraTrainingLayout& layout, const std::string& prefix);

}  // namespace scen
