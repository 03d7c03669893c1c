// One pipeline stage's program in Megatron-LM's non-interleaved 1F1B schedule (schedules.py,
// forward_backward_pipelining_without_interleaving): warm-up forwards, one forward and one
// backward in turn, cool-down backwards; each layer's pass two halves (attention, MLP), each
// followed by the tensor group's all-reduce when tp > 1 (Megatron-LM's g and f); the
// point-to-point calls between stages as Megatron's p2p_communication makes them. Run by
// parallel_step.hpp and written as Chakra traces by `rdmasim chakra generate`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/training/training_spec.hpp"

namespace models {

struct PipelineOp {
  enum class Type : uint8_t { Compute, TensorAllReduce, PointToPoint } type = Type::Compute;
  sim::Time time;  // Compute
  std::string name;
  // PointToPoint: the micro-batches sent and received in each direction (-1: none); a call
  // posts its sends and receives together and ends when all are done.
  int send_forward = -1, send_backward = -1, recv_forward = -1, recv_backward = -1;
};

// Stage `stage` of `stages` (the layers split evenly), `micro` micro-batches, tensor size `tp`.
std::vector<PipelineOp> one_f_one_b_program(const std::vector<TrainingLayer>& layers, int stage,
                                            int stages, int micro, int tp);

}  // namespace models
