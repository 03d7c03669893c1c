// A data-parallel training step as data (training_step.hpp runs it).
#pragma once

#include <cstdint>
#include <vector>

#include "models/collectives/collective_spec.hpp"

namespace models {

struct TrainingLayer {
  sim::Time forward;
  sim::Time backward;
  int64_t gradient_bytes = 0;
};

struct TrainingSpec {
  std::vector<TrainingLayer> layers;  // in forward order
  int64_t bucket_bytes = 25 << 20;    // PyTorch DDP bucket_cap_mb default (25 MB)
  sim::Time optimizer;
  bool overlap = true;
  int steps = 1;
  double model_flops_per_step = 0;  // all GPUs together
  double peak_flops = 0;            // per GPU
  // GPUs the model runs on, for MFU; 0 = the all-reduce's ranks. More when the simulated
  // all-reduce is one of several identical groups (e.g. one rail's data-parallel group).
  int gpus = 0;
  CollectiveSpec comm;  // ranks, algorithm, protocol, channels, chunk
};

}  // namespace models
