#include "models/training/parallel_step.hpp"

#include <algorithm>

#include "models/timeline.hpp"
#include "models/training/pipeline_schedule.hpp"

namespace models {

ParallelTraining::ParallelTraining(Context& ctx, Transport& transport, const TrainingSpec& spec,
                                   uint32_t index, uint64_t seed)
    : EventHandler(ctx.sim),
      ctx_(ctx),
      transport_(transport),
      spec_(spec),
      index_(index),
      seed_(seed) {
  const ParallelGroups& p = spec_.parallel;
  replicas_ = p.pp * p.dp;
  timeline_process_ = "training " + std::to_string(index);
  const int layers_per_stage = static_cast<int>(spec_.layers.size()) / p.pp;
  for (int s = 0; s < p.pp; ++s) {
    programs_.push_back(one_f_one_b_program(spec_.layers, s, p.pp, p.microbatches, p.tp));
    // The stage's gradients per GPU, in buckets as backward produces them (last layer first).
    int64_t total = 0, fill = 0;
    std::vector<int64_t> buckets;
    for (int l = (s + 1) * layers_per_stage - 1; l >= s * layers_per_stage; --l) {
      const int64_t g = spec_.layers[static_cast<size_t>(l)].gradient_bytes;
      total += g;
      fill += g;
      if (fill >= spec_.bucket_bytes) {
        buckets.push_back(fill);
        fill = 0;
      }
    }
    if (fill > 0) buckets.push_back(fill);
    stage_gradient_bytes_.push_back(total);
    stage_buckets_.push_back(std::move(buckets));
  }
  replica_.resize(static_cast<size_t>(replicas_));
  if (p.tp > 1) {
    for (int r = 0; r < replicas_; ++r) {
      CollectiveSpec g = p.tensor_groups[static_cast<size_t>(r)];
      g.op = CollectiveOp::AllReduce;
      tensor_.push_back(std::make_unique<CollectiveRunner>(ctx, transport, std::move(g), index,
                                                           seed ^ (0x7e45ull << 40) ^ r));
      tensor_.back()->set_timeline_process(timeline_process_ + ": tensor group " +
                                           std::to_string(r / p.dp) + "." +
                                           std::to_string(r % p.dp));
      tensor_.back()->attach();
    }
  }
  data_.resize(static_cast<size_t>(p.pp * p.tp));
  if (p.dp > 1) {
    for (int g = 0; g < p.pp * p.tp; ++g) {
      CollectiveSpec d = p.data_groups[static_cast<size_t>(g)];
      d.op = CollectiveOp::AllReduce;
      data_[g].runner = std::make_unique<CollectiveRunner>(ctx, transport, std::move(d), index,
                                                           seed ^ (0xda7aull << 40) ^ g);
      data_[g].runner->set_timeline_process(timeline_process_ + ": data group " +
                                            std::to_string(g / p.tp) + "." +
                                            std::to_string(g % p.tp));
      data_[g].runner->attach();
    }
  }
  transport_.add_listener(this);
}

void ParallelTraining::set_sharp(SharpAllReduce* sharp) {
  for (auto& t : tensor_) t->set_sharp(sharp);
  for (auto& d : data_) {
    if (d.runner) d.runner->set_sharp(sharp);
  }
}

void ParallelTraining::start() {
  ctx_.sim.at(spec_.comm.start, this, kStepBegins, 0);
}

void ParallelTraining::begin_step() {
  step_start_ = ctx_.sim.now();
  for (auto& r : replica_) r = Replica{};
  stage_replicas_done_.assign(static_cast<size_t>(spec_.parallel.pp), 0);
  groups_done_ = 0;
  for (auto& d : data_) {
    d.next_bucket = 0;
    d.start = d.end = step_start_;
  }
  for (int r = 0; r < replicas_; ++r) run(r);
}

void ParallelTraining::run(int replica) {
  Replica& R = replica_[static_cast<size_t>(replica)];
  const std::vector<Op>& prog = programs_[static_cast<size_t>(stage_of(replica))];
  while (R.pc < prog.size()) {
    const Op& op = prog[R.pc];
    R.op_start = ctx_.sim.now();
    switch (op.type) {
      case Op::Type::Compute:
        ctx_.sim.after(op.time, this, kComputeDone, static_cast<uint64_t>(replica));
        return;
      case Op::Type::TensorAllReduce:
        tensor_[static_cast<size_t>(replica)]->run_one(
            spec_.parallel.activation_bytes, [this, replica] {
              Replica& q = replica_[replica];
              q.tensor_time += ctx_.sim.now() - q.op_start;
              ++q.pc;
              run(replica);
            });
        return;
      case Op::Type::PointToPoint:
        if (post_call(replica, op)) return;
        ++R.pc;
        break;
    }
  }
  replica_finished(replica);
}

bool ParallelTraining::post_call(int replica, const Op& op) {
  Replica& R = replica_[static_cast<size_t>(replica)];
  R.last_transfer_start = ctx_.sim.now();
  R.open_items = (op.send_forward >= 0) + (op.send_backward >= 0) + (op.recv_forward >= 0) +
                 (op.recv_backward >= 0);
  if (R.open_items == 0) return false;
  if (op.send_forward >= 0) post_side(replica, Direction::Forward, op.send_forward, true);
  if (op.send_backward >= 0) post_side(replica, Direction::Backward, op.send_backward, true);
  if (op.recv_forward >= 0) post_side(replica, Direction::Forward, op.recv_forward, false);
  if (op.recv_backward >= 0) post_side(replica, Direction::Backward, op.recv_backward, false);
  return true;
}

uint64_t ParallelTraining::transfer_key(int receiver, Direction dir, int micro) const {
  return (static_cast<uint64_t>(receiver) << 33) | (static_cast<uint64_t>(dir) << 32) |
         static_cast<uint32_t>(micro);
}

void ParallelTraining::post_side(int replica, Direction dir, int micro, bool send) {
  const ParallelGroups& p = spec_.parallel;
  const int dp = p.dp;
  // Activations go to the next stage (the same replica index d), gradients to the previous.
  const int peer = dir == Direction::Forward ? (send ? replica + dp : replica - dp)
                                             : (send ? replica - dp : replica + dp);
  const int receiver = send ? peer : replica;
  const uint64_t key = transfer_key(receiver, dir, micro);
  Transfer& t = transfers_[key];
  if (t.clear.empty()) {
    t.clear.assign(static_cast<size_t>(p.tp), false);
    t.started.assign(static_cast<size_t>(p.tp), false);
    t.undelivered = t.incomplete = p.tp;
  }
  t.sender = send ? replica : peer;
  t.receiver = receiver;
  if (send) {
    t.send_posted = true;
    ++replica_[static_cast<size_t>(replica)].messages_sent;
    for (int tr = 0; tr < p.tp; ++tr) {
      if (t.clear[static_cast<size_t>(tr)]) start_flow(key, t, tr);
    }
    return;
  }
  t.recv_posted = true;
  // Each tensor rank of the receiver tells its peer where to write (start_clear_to_send).
  const int from_stage = stage_of(t.sender), to_stage = stage_of(t.receiver);
  const int d = t.sender % dp;
  for (int tr = 0; tr < p.tp; ++tr) {
    const int src = rank_of(from_stage, d, tr), dst = rank_of(to_stage, d, tr);
    const uint32_t flow = start_clear_to_send(transport_, p.endpoints, static_cast<uint32_t>(dst),
                                              static_cast<uint32_t>(src), ctx_.sim.now(),
                                              connection_sport(dst, src) ^ 0x1a5a);
    if (clear_of_flow_.size() <= flow) clear_of_flow_.resize(flow + 1, {0, 0});
    clear_of_flow_[flow] = {key + 1, tr};
  }
}

uint16_t ParallelTraining::connection_sport(int src_rank, int dst_rank) const {
  return connection_source_port(seed_ ^ (static_cast<uint64_t>(index_) << 48) ^
                                (static_cast<uint64_t>(src_rank) << 24) ^
                                static_cast<uint64_t>(dst_rank));
}

void ParallelTraining::start_flow(uint64_t key, Transfer& t, int tr) {
  const ParallelGroups& p = spec_.parallel;
  if (t.started[static_cast<size_t>(tr)]) return;
  t.started[static_cast<size_t>(tr)] = true;
  const int from_stage = stage_of(t.sender), to_stage = stage_of(t.receiver);
  const int d = t.sender % p.dp;
  // Each tensor rank sends its copy of the micro-batch's activations (or their gradients) to
  // the same tensor rank of the other stage: over NVLink inside a server, else NIC to NIC.
  const int src = rank_of(from_stage, d, tr), dst = rank_of(to_stage, d, tr);
  const uint32_t flow = start_p2p_flow(transport_, p.endpoints, static_cast<uint32_t>(src),
                                       static_cast<uint32_t>(dst), p.activation_bytes,
                                       ctx_.sim.now(), "pipeline", connection_sport(src, dst));
  if (transfer_of_flow_.size() <= flow) transfer_of_flow_.resize(flow + 1, 0);
  transfer_of_flow_[flow] = key + 1;
  replica_[static_cast<size_t>(t.sender)].last_transfer_start = ctx_.sim.now();
  replica_[static_cast<size_t>(t.receiver)].last_transfer_start = ctx_.sim.now();
}

void ParallelTraining::on_flow_delivered(uint32_t flow) {
  if (flow < clear_of_flow_.size() && clear_of_flow_[flow].first != 0) {
    const uint64_t key = clear_of_flow_[flow].first - 1;
    const int tr = clear_of_flow_[flow].second;
    clear_of_flow_[flow] = {0, 0};
    Transfer& t = transfers_.at(key);
    t.clear[static_cast<size_t>(tr)] = true;
    if (t.send_posted) start_flow(key, t, tr);
    return;
  }
  flow_done(flow, true);
}

void ParallelTraining::on_flow_complete(uint32_t flow) {
  flow_done(flow, false);
}

void ParallelTraining::flow_done(uint32_t flow, bool delivered) {
  if (flow >= transfer_of_flow_.size() || transfer_of_flow_[flow] == 0) return;
  const uint64_t key = transfer_of_flow_[flow] - 1;
  if (!delivered) transfer_of_flow_[flow] = 0;  // completion is a flow's last news
  auto it = transfers_.find(key);
  if (it == transfers_.end()) return;
  Transfer& t = it->second;
  // The receiver's side is done once every tensor rank's copy has arrived, the sender's once
  // every one is acknowledged.
  if (--(delivered ? t.undelivered : t.incomplete) > 0) return;
  const int replica = delivered ? t.receiver : t.sender;
  if (t.undelivered == 0 && t.incomplete == 0) transfers_.erase(it);
  item_done(replica);
}

void ParallelTraining::item_done(int replica) {
  Replica& R = replica_[static_cast<size_t>(replica)];
  if (--R.open_items > 0) return;
  const sim::Time now = ctx_.sim.now();
  R.p2p_wait += R.last_transfer_start - R.op_start;
  R.p2p_time += now - R.last_transfer_start;
  timeline_span(replica, false, "pipeline", R.op_start);
  ++R.pc;
  run(replica);
}

void ParallelTraining::timeline_span(int replica, bool compute, const std::string& name,
                                     sim::Time start) {
  TimelineRecorder* t = ctx_.timeline;
  // One track per stage: its first replica's (the others run the same program).
  if (t == nullptr || replica % spec_.parallel.dp != 0) return;
  const sim::Time now = ctx_.sim.now();
  if (!t->wants(start, now)) {
    t->leave_out(start, now);
    return;
  }
  const int stage = stage_of(replica);
  const uint32_t track =
      t->track(timeline_process_, "stage " + std::to_string(stage) + (compute ? "" : " pipeline"),
               2 * stage + (compute ? 0 : 1));
  t->span(track, t->name(name), start, now);
}

void ParallelTraining::on_event(uint32_t kind, uint64_t arg) {
  switch (kind) {
    case kStepBegins:
      begin_step();
      return;
    case kComputeDone: {
      const int replica = static_cast<int>(arg);
      Replica& R = replica_[static_cast<size_t>(replica)];
      if (ctx_.timeline != nullptr) {
        timeline_span(replica, true, programs_[stage_of(replica)][R.pc].name, R.op_start);
      }
      ++R.pc;
      run(replica);
      return;
    }
    case kOptimizerDone:
      if (++groups_done_ == spec_.parallel.pp * spec_.parallel.tp) step_done();
      return;
  }
}

void ParallelTraining::replica_finished(int replica) {
  const ParallelGroups& p = spec_.parallel;
  replica_[static_cast<size_t>(replica)].backward_end = ctx_.sim.now();
  const int stage = stage_of(replica);
  if (++stage_replicas_done_[static_cast<size_t>(stage)] < p.dp) return;
  // The stage's last replica is done: its data-parallel groups all-reduce the gradients.
  for (int t = 0; t < p.tp; ++t) {
    const int g = stage * p.tp + t;
    data_[g].start = ctx_.sim.now();
    next_bucket(g);
  }
}

void ParallelTraining::next_bucket(int group) {
  DataGroup& d = data_[static_cast<size_t>(group)];
  const std::vector<int64_t>& buckets =
      stage_buckets_[static_cast<size_t>(group / spec_.parallel.tp)];
  if (d.runner && d.next_bucket < buckets.size()) {
    const int64_t bytes = buckets[d.next_bucket++];
    d.runner->run_one(bytes, [this, group] {
      data_rows_.push_back(data_[static_cast<size_t>(group)].runner->results().back());
      next_bucket(group);
    });
    return;
  }
  d.end = ctx_.sim.now();
  ctx_.sim.after(spec_.optimizer, this, kOptimizerDone, static_cast<uint64_t>(group));
}

void ParallelTraining::step_done() {
  TrainingStepResult r = step_result();
  ++steps_done_;
  if (on_step_) on_step_(std::move(r));
  if (++step_ < spec_.steps) {
    begin_step();
    return;
  }
  done_ = true;
  if (on_done_) on_done_();
}

}  // namespace models
