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
  CollectiveSpec comm;              // ranks, algorithm, protocol, channels, chunk
};

}  // namespace models
