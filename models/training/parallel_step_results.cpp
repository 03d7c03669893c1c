#include <algorithm>

#include "models/training/parallel_step.hpp"

namespace models {

namespace {
ParallelGroupResult group_result(const char* kind, int groups, int ranks) {
  ParallelGroupResult g;
  g.kind = kind;
  g.groups = groups;
  g.ranks = ranks;
  return g;
}
}  // namespace

// The step's summary (docs/collectives.md, "Tensor, pipeline and data-parallel groups"):
// compute and bubble from the stages' layer times, per group kind its calls, bytes and time.
TrainingStepResult ParallelTraining::step_result() const {
  const ParallelGroups& p = spec_.parallel;
  const sim::Time now = ctx_.sim.now();
  TrainingStepResult r;
  r.step = now - step_start_;
  // The slowest stage's forward + backward of one micro-batch sets the pipeline's pace.
  const int per_stage = static_cast<int>(spec_.layers.size()) / p.pp;
  sim::Time stage_pass;
  for (int s = 0; s < p.pp; ++s) {
    sim::Time t;
    for (int l = s * per_stage; l < (s + 1) * per_stage; ++l) {
      t += spec_.layers[static_cast<size_t>(l)].forward +
           spec_.layers[static_cast<size_t>(l)].backward;
    }
    stage_pass = std::max(stage_pass, t);
  }
  r.bubble = sim::Time(stage_pass.ps * (p.pp - 1));
  r.compute = sim::Time(stage_pass.ps * (p.microbatches + p.pp - 1)) + spec_.optimizer;
  r.exposed = r.step - r.compute;
  const double n = replicas_;
  auto mean = [n](int64_t sum) { return sim::Time(static_cast<int64_t>(sum / n)); };
  if (p.tp > 1) {
    ParallelGroupResult g = group_result("tensor", p.pp * p.dp, p.tp);
    int64_t time = 0, calls = 0;
    for (int rep = 0; rep < replicas_; ++rep) {
      time += replica_[static_cast<size_t>(rep)].tensor_time.ps;
      for (const Op& op : programs_[static_cast<size_t>(stage_of(rep))]) {
        calls += op.type == Op::Type::TensorAllReduce;
      }
    }
    g.calls = static_cast<double>(calls) / n;
    g.bytes = g.calls * static_cast<double>(p.activation_bytes);
    g.communication = mean(time);
    r.groups.push_back(g);
  }
  if (p.pp > 1) {
    ParallelGroupResult g = group_result("pipeline", p.dp * p.tp, p.pp);
    int64_t time = 0, wait = 0, sent = 0;
    for (const Replica& rep : replica_) {
      time += rep.p2p_time.ps;
      wait += rep.p2p_wait.ps;
      sent += rep.messages_sent;
    }
    g.calls = static_cast<double>(sent) / n;
    g.bytes = g.calls * static_cast<double>(p.activation_bytes);
    g.communication = mean(time);
    g.wait = mean(wait);
    r.groups.push_back(g);
  }
  sim::Time last_backward = step_start_, last_reduce = step_start_;
  for (const Replica& rep : replica_) last_backward = std::max(last_backward, rep.backward_end);
  if (p.dp > 1) {
    ParallelGroupResult g = group_result("data", p.pp * p.tp, p.dp);
    // A data group's all-reduces wait for its last GPU to join (its replica's backward end):
    // the time before that is each replica's wait, the time after it the group's
    // communication.
    std::vector<sim::Time> stage_last(static_cast<size_t>(p.pp), step_start_);
    for (int rep = 0; rep < replicas_; ++rep) {
      sim::Time& last = stage_last[static_cast<size_t>(stage_of(rep))];
      last = std::max(last, replica_[static_cast<size_t>(rep)].backward_end);
    }
    int64_t time = 0, wait = 0, calls = 0;
    double bytes = 0;
    for (int gi = 0; gi < p.pp * p.tp; ++gi) {
      const DataGroup& d = data_[static_cast<size_t>(gi)];
      time += (d.end - stage_last[static_cast<size_t>(gi / p.tp)]).ps;
      last_reduce = std::max(last_reduce, d.end);
      calls += static_cast<int64_t>(stage_buckets_[static_cast<size_t>(gi / p.tp)].size());
      bytes += static_cast<double>(stage_gradient_bytes_[static_cast<size_t>(gi / p.tp)]);
    }
    for (int rep = 0; rep < replicas_; ++rep) {
      wait += (stage_last[static_cast<size_t>(stage_of(rep))] -
               replica_[static_cast<size_t>(rep)].backward_end)
                  .ps;
    }
    const double groups = p.pp * p.tp;
    g.calls = static_cast<double>(calls) / groups;
    g.bytes = bytes / groups;
    g.communication = sim::Time(static_cast<int64_t>(static_cast<double>(time) / groups));
    g.wait = mean(wait);
    r.groups.push_back(g);
    r.last_bucket_tail = last_reduce - last_backward;
    for (const auto& b : stage_buckets_)
      r.buckets = std::max(r.buckets, static_cast<int>(b.size()));
  }
  for (const ParallelGroupResult& g : r.groups) r.communication += g.communication;
  const double gpus = spec_.gpus > 0 ? spec_.gpus : p.gpus();
  if (spec_.peak_flops > 0 && r.step.ps > 0) {
    r.mfu = spec_.model_flops_per_step / (r.step.seconds() * gpus * spec_.peak_flops);
    for (ParallelGroupResult& g : r.groups) {
      const sim::Time without = r.step - g.communication;
      if (without.ps > 0) {
        g.mfu_without = spec_.model_flops_per_step / (without.seconds() * gpus * spec_.peak_flops);
      }
    }
  }
  return r;
}

}  // namespace models
