#include "models/training/pipeline_schedule.hpp"

#include <algorithm>

namespace models {

std::vector<PipelineOp> one_f_one_b_program(const std::vector<TrainingLayer>& layers, int stage,
                                            int stages, int micro, int tp) {
  const int per_stage = static_cast<int>(layers.size()) / stages;
  const bool first = stage == 0, last = stage == stages - 1;
  std::vector<PipelineOp> prog;
  auto compute = [&](sim::Time t, const std::string& name) {
    if (t.ps <= 0) return;
    PipelineOp op;
    op.type = PipelineOp::Type::Compute;
    op.time = t;
    op.name = name;
    prog.push_back(op);
  };
  auto all_reduce = [&] {
    if (tp <= 1) return;
    PipelineOp op;
    op.type = PipelineOp::Type::TensorAllReduce;
    prog.push_back(op);
  };
  // A layer's pass is two halves (attention, MLP), each followed by the tensor group's
  // all-reduce (Megatron-LM's g in forward, f in backward); without tensor parallelism the
  // stage's layers are one computation.
  auto pass = [&](int m, bool forward) {
    const std::string name = (forward ? "forward " : "backward ") + std::to_string(m);
    if (tp <= 1) {
      sim::Time t;
      for (int l = stage * per_stage; l < (stage + 1) * per_stage; ++l) {
        const TrainingLayer& layer = layers[static_cast<size_t>(l)];
        t += forward ? layer.forward : layer.backward;
      }
      compute(t, name);
      return;
    }
    for (int k = 0; k < per_stage; ++k) {
      const int l = forward ? stage * per_stage + k : (stage + 1) * per_stage - 1 - k;
      const TrainingLayer& layer = layers[static_cast<size_t>(l)];
      const sim::Time whole = forward ? layer.forward : layer.backward;
      const sim::Time half(whole.ps / 2);
      compute(half, name);
      all_reduce();
      compute(whole - half, name);
      all_reduce();
    }
  };
  // A point-to-point call; the sides that do not exist at the pipeline's ends are dropped
  // (Megatron's send_forward on the last stage and recv_forward on the first are no-ops).
  auto call = [&](int send_f, int send_b, int recv_f, int recv_b) {
    PipelineOp op;
    op.type = PipelineOp::Type::PointToPoint;
    op.send_forward = last ? -1 : send_f;
    op.recv_backward = last ? -1 : recv_b;
    op.recv_forward = first ? -1 : recv_f;
    op.send_backward = first ? -1 : send_b;
    if (op.send_forward >= 0 || op.send_backward >= 0 || op.recv_forward >= 0 ||
        op.recv_backward >= 0) {
      prog.push_back(op);
    }
  };
  // Megatron's non-interleaved 1F1B: warm-up, steady state, cool-down.
  const int warmup = std::min(stages - stage - 1, micro);
  const int steady = micro - warmup;
  for (int i = 0; i < warmup; ++i) {
    call(-1, -1, i, -1);
    pass(i, true);
    call(i, -1, -1, -1);
  }
  if (steady > 0) call(-1, -1, warmup, -1);
  for (int i = 0; i < steady; ++i) {
    pass(warmup + i, true);
    call(warmup + i, -1, -1, i);  // send_forward_recv_backward
    pass(i, false);
    if (i == steady - 1) {
      call(-1, i, -1, -1);
    } else {
      call(-1, i, warmup + i + 1, -1);  // send_backward_recv_forward
    }
  }
  for (int i = steady; i < micro; ++i) {
    call(-1, -1, -1, i);
    pass(i, false);
    call(-1, i, -1, -1);
  }
  return prog;
}

}  // namespace models
