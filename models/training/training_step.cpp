#include "models/training/training_step.hpp"

#include "models/timeline.hpp"
#include "sim/units.hpp"

namespace models {

namespace {
// A bucket holding `fill` bytes is all-reduced once it holds bucket_bytes, or when the first
// layer's backward (the last to run) has added its gradients.
bool bucket_closes(const TrainingSpec& spec, int64_t fill, bool first_layer) {
  return fill >= spec.bucket_bytes || (first_layer && fill > 0);
}
}  // namespace

std::vector<int64_t> gradient_buckets(const TrainingSpec& spec) {
  std::vector<int64_t> buckets;
  int64_t fill = 0;
  for (size_t l = spec.layers.size(); l-- > 0;) {
    fill += spec.layers[l].gradient_bytes;
    if (bucket_closes(spec, fill, l == 0)) {
      buckets.push_back(fill);
      fill = 0;
    }
  }
  return buckets;
}

TrainingRunner::TrainingRunner(Context& ctx, Transport& transport, TrainingSpec spec,
                               uint32_t index, uint64_t seed)
    : EventHandler(ctx.sim), ctx_(ctx), spec_(std::move(spec)) {
  if (spec_.parallel.enabled()) {
    parallel_ = std::make_unique<ParallelTraining>(ctx, transport, spec_, index, seed);
    parallel_->set_on_step([this](TrainingStepResult r) { results_.push_back(std::move(r)); });
    parallel_->set_on_done([this] {
      done_ = true;
      if (on_done_) on_done_();
    });
    return;
  }
  spec_.comm.op = CollectiveOp::AllReduce;
  comm_ = std::make_unique<CollectiveRunner>(ctx, transport, spec_.comm, index, seed);
  rank_paced_ = true;
  for (const int64_t bytes : gradient_buckets(spec_)) {
    rank_paced_ = rank_paced_ && rank_paced(spec_.comm, bytes);
  }
  timeline_process_ = "training " + std::to_string(index);
  comm_->set_timeline_process(timeline_process_ + ": gradient all-reduces");
}

void TrainingRunner::timeline_span(bool compute, const std::string& name, sim::Time start,
                                   int64_t bytes) {
  TimelineRecorder* t = ctx_.timeline;
  if (t == nullptr) return;
  if (!has_tracks_) {
    compute_track_ = t->track(timeline_process_, "compute", 0);
    stream_track_ = t->track(timeline_process_, "all-reduce stream", 1);
    has_tracks_ = true;
  }
  const sim::Time now = clock_;
  if (!t->wants(start, now)) {
    t->leave_out(start, now);
    return;
  }
  t->span(compute ? compute_track_ : stream_track_, t->name(name), start, now, bytes);
}

void TrainingRunner::start() {
  if (parallel_) {
    parallel_->start();
    return;
  }
  comm_->attach();
  ctx_.sim.at_boundary(spec_.comm.start, this, kForwardDone, 1);  // arg 1: the step begins
}

void TrainingRunner::after(sim::Time d, Kind kind, uint64_t arg) {
  if (d.ps == 0) {
    on_phase(kind, arg);
    return;
  }
  ctx_.sim.at_boundary_stamped(clock_ + d, this, kind, arg);
}

void TrainingRunner::begin_step() {
  step_start_ = clock_;
  layer_ = static_cast<int>(spec_.layers.size()) - 1;
  bucket_fill_ = 0;
  backward_done_ = false;
  buckets_ = 0;
  comm_total_ = sim::Time(0);
  comm_end_ = step_start_;
  sim::Time forward;
  for (const auto& l : spec_.layers) forward += l.forward;
  after(forward, kForwardDone);
}

void TrainingRunner::on_event(uint32_t kind, uint64_t arg) {
  clock_ = ctx_.sim.now();
  on_phase(kind, arg);
}

void TrainingRunner::on_phase(uint32_t kind, uint64_t arg) {
  switch (kind) {
    case kForwardDone:
      if (arg == 1) {
        begin_step();
        return;
      }
      timeline_span(true, "forward", step_start_);
      after(spec_.layers[layer_].backward, kBackwardLayerDone);
      return;
    case kBackwardLayerDone: {
      if (ctx_.timeline != nullptr) {
        timeline_span(true, "backward layer " + std::to_string(layer_),
                      clock_ - spec_.layers[layer_].backward);
      }
      bucket_fill_ += spec_.layers[layer_].gradient_bytes;
      const bool last = layer_ == 0;
      if (bucket_closes(spec_, bucket_fill_, last)) {
        bucket_ready(bucket_fill_);
        bucket_fill_ = 0;
      }
      if (last) {
        backward_done_ = true;
        backward_end_ = clock_;
        if (!spec_.overlap) next_all_reduce();
        maybe_optimize();
      } else {
        --layer_;
        after(spec_.layers[layer_].backward, kBackwardLayerDone);
      }
      return;
    }
    case kOptimizerDone: {
      timeline_span(true, "optimizer", clock_ - spec_.optimizer);
      TrainingStepResult r;
      r.step = clock_ - step_start_;
      for (const auto& l : spec_.layers) r.compute += l.forward + l.backward;
      r.compute += spec_.optimizer;
      r.communication = comm_total_;
      r.exposed = r.step - r.compute;
      r.last_bucket_tail = comm_end_ > backward_end_ ? comm_end_ - backward_end_ : sim::Time(0);
      r.buckets = buckets_;
      const double gpus = spec_.gpus > 0 ? spec_.gpus : spec_.comm.ranks();
      if (spec_.peak_flops > 0 && r.step.ps > 0) {
        r.mfu = spec_.model_flops_per_step / (r.step.seconds() * gpus * spec_.peak_flops);
      }
      results_.push_back(r);
      if (++step_ < spec_.steps) {
        begin_step();
      } else {
        done_ = true;
        if (on_done_) on_done_();
      }
      return;
    }
  }
}

void TrainingRunner::bucket_ready(int64_t bytes) {
  ++buckets_;
  pending_.push_back(bytes);
  if (spec_.overlap || backward_done_) next_all_reduce();
}

void TrainingRunner::next_all_reduce() {
  if (rank_paced_) {
    // At a compute phase's end (a boundary event): every rank may take it.
    while (!pending_.empty()) {
      const int64_t bytes = pending_.front();
      pending_.pop_front();
      ++comm_open_;
      comm_->run_one(
          bytes, [this] { all_reduce_done(); }, clock_, /*boundary=*/true);
    }
    return;
  }
  if (comm_busy_ || pending_.empty()) return;
  comm_busy_ = true;
  const int64_t bytes = pending_.front();
  pending_.pop_front();
  comm_->run_one(
      bytes, [this] { all_reduce_done(); }, clock_);
}

void TrainingRunner::all_reduce_done() {
  const CollectiveResult& r = comm_->results().back();
  clock_ = r.end;
  comm_busy_ = false;
  if (rank_paced_) --comm_open_;
  // The stream's busy time: a rank-paced all-reduce may start on the first ranks before the
  // one before has ended on the last (their union counts).
  const sim::Time from = std::max(r.start, comm_end_);
  if (from == r.start) {
    comm_total_ += r.time;
  } else if (r.end > from) {
    comm_total_ += r.end - from;
  }
  if (ctx_.timeline != nullptr) {
    timeline_span(false, "bucket " + sim::format_bytes(r.size_bytes), from, r.size_bytes);
  }
  comm_end_ = clock_;
  if (!rank_paced_ && !pending_.empty()) {
    next_all_reduce();
    return;
  }
  maybe_optimize();
}

void TrainingRunner::maybe_optimize() {
  if (!backward_done_ || comm_busy_ || comm_open_ > 0 || !pending_.empty()) return;
  after(spec_.optimizer, kOptimizerDone);
}

}  // namespace models
