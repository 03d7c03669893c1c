// A training step as data: data-parallel (training_step.hpp runs it), or tensor, pipeline and
// data parallel (parallel_step.hpp).
#pragma once

#include <cstdint>
#include <vector>

#include "models/collectives/collective_spec.hpp"
#include "models/workloads/gpu_endpoints.hpp"

namespace models {

struct TrainingLayer {
  sim::Time forward;
  sim::Time backward;
  int64_t gradient_bytes = 0;
};

// Tensor, pipeline and data parallelism (parallel_step.hpp runs them): `tp` x `pp` x `dp` GPUs
// in Megatron-LM's rank order (tensor fastest, then data, then pipeline: global rank
// t + tp (d + dp s) is tensor rank t of data-parallel replica d of pipeline stage s), so a
// tensor-parallel group is `tp` consecutive GPUs of one server (NVLink) and a data-parallel or
// pipeline peer is the same local GPU of another server (its rail). Empty (pp = 0): the single
// data-parallel communicator of `comm`.
struct ParallelGroups {
  int tp = 0, pp = 0, dp = 0;
  int microbatches = 1;
  // One micro-batch's activations at a stage boundary (micro-batch x sequence x hidden x
  // element bytes): the size of each tensor-parallel all-reduce and of each pipeline message.
  int64_t activation_bytes = 0;
  // [stage * dp + d]: the tensor-parallel group of replica d of stage s (its ranks in tensor
  // rank order); [stage * tp + t]: the data-parallel group of tensor rank t of stage s.
  std::vector<CollectiveSpec> tensor_groups;
  std::vector<CollectiveSpec> data_groups;
  // Pipeline messages: where each global rank's enter the fabric, and their class.
  GpuEndpoints endpoints;
  bool enabled() const { return pp > 0; }
  int gpus() const { return tp * pp * dp; }
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
  // With tensor/pipeline parallelism the layers' times are one micro-batch's on one GPU and
  // the gradients one GPU's (already divided by `tp`); `comm` is then the template of the
  // data-parallel groups (data_groups).
  ParallelGroups parallel;
};

}  // namespace models
