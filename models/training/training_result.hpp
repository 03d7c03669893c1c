// What a training step reports: its time, its compute, its exposed communication and MFU;
// with tensor/pipeline parallelism, each kind of group's share (parallel_step.hpp).
#pragma once

#include <string>
#include <vector>

#include "sim/time.hpp"

namespace models {

// One kind of parallel group's share of a step, per GPU and averaged over the GPUs.
struct ParallelGroupResult {
  std::string kind;  // "tensor", "pipeline" or "data"
  int groups = 0;
  int ranks = 0;     // GPUs per group
  double calls = 0;  // all-reduces, or pipeline messages sent, per GPU
  double bytes = 0;  // data per GPU: all-reduce buffers, or pipeline messages sent
  // Time the GPU's compute stream waited for this kind's data to move (all exposed: tensor
  // all-reduces and pipeline calls block the stream; the gradient all-reduces follow backward).
  sim::Time communication;
  // Time it waited for peers before any data could move: a pipeline call for its peer to post
  // the other side (the pipeline's bubble and imbalance), a data-parallel group for the
  // stage's slowest replica to finish backward.
  sim::Time wait;
  // The step's MFU were this kind's communication free (model FLOPs / ((step - communication)
  // x GPUs x peak)): what the group costs in MFU, beside the step's own.
  double mfu_without = 0;
};

struct TrainingStepResult {
  sim::Time step;
  // Data parallel: forward + backward + optimizer. Pipeline parallel: the step without any
  // communication, (micro-batches + stages - 1) x (a stage's forward + backward of one
  // micro-batch) + optimizer (Narayanan et al., SC'21, eq. 1's bubble).
  sim::Time compute;
  sim::Time communication;     // sum of the all-reduce times (per GPU, all groups)
  sim::Time exposed;           // step - compute
  sim::Time last_bucket_tail;  // end of the last all-reduce - end of backward
  int buckets = 0;
  double mfu = 0;  // model FLOPs / (step × GPUs × peak)
  // Pipeline parallel: (stages - 1) x (forward + backward of one micro-batch), and the groups.
  sim::Time bubble;
  std::vector<ParallelGroupResult> groups;
};

}  // namespace models
