#include "models/training/parallel_step.hpp"

#include <algorithm>

#include "models/timeline.hpp"
#include "models/training/pipeline_schedule.hpp"
#include "sim/atomic_max.hpp"

namespace models {

std::vector<std::vector<int64_t>> stage_gradient_buckets(const TrainingSpec& spec) {
  const int stages = spec.parallel.pp;
  const int layers_per_stage = static_cast<int>(spec.layers.size()) / stages;
  std::vector<std::vector<int64_t>> stage_buckets;
  for (int s = 0; s < stages; ++s) {
    // The stage's gradients per GPU, in buckets as backward produces them (last layer first).
    int64_t fill = 0;
    std::vector<int64_t> buckets;
    for (int l = (s + 1) * layers_per_stage - 1; l >= s * layers_per_stage; --l) {
      fill += spec.layers[static_cast<size_t>(l)].gradient_bytes;
      if (fill >= spec.bucket_bytes) {
        buckets.push_back(fill);
        fill = 0;
      }
    }
    if (fill > 0) buckets.push_back(fill);
    stage_buckets.push_back(std::move(buckets));
  }
  return stage_buckets;
}

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
  stage_buckets_ = stage_gradient_buckets(spec_);
  for (int s = 0; s < p.pp; ++s) {
    programs_.push_back(one_f_one_b_program(spec_.layers, s, p.pp, p.microbatches, p.tp));
    int64_t total = 0;
    for (const int64_t b : stage_buckets_[static_cast<size_t>(s)]) total += b;
    stage_gradient_bytes_.push_back(total);
  }
  replica_.resize(static_cast<size_t>(replicas_));
  // Each replica's handlers where its GPUs are: the partition of its first GPU's NIC (a GPU
  // server's endpoints are one partition's: topologies/partition.hpp).
  const uint32_t building = ctx_.sim.building_partition();
  for (int r = 0; r < replicas_; ++r) {
    const auto first = static_cast<uint32_t>(rank_of(stage_of(r), r % p.dp, 0));
    const sim::EventHandler* nic =
        first < p.endpoints.nic.size() ? transport_.nic_handler(p.endpoints.nic[first]) : nullptr;
    ctx_.sim.set_building_partition(nic != nullptr ? nic->partition() : building);
    replica_agents_.push_back(std::make_unique<Agent>(ctx_.sim, *this, r, /*replica=*/true));
    if (p.tp > 1) {
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
  ctx_.sim.set_building_partition(building);
  data_.resize(static_cast<size_t>(p.pp * p.tp));
  for (int g = 0; g < p.pp * p.tp; ++g) {
    data_[g].agent = std::make_unique<Agent>(ctx_.sim, *this, g, /*replica=*/false);
  }
  if (p.dp > 1) {
    data_gated_ = true;
    for (int g = 0; g < p.pp * p.tp; ++g) {
      CollectiveSpec d = p.data_groups[static_cast<size_t>(g)];
      d.op = CollectiveOp::AllReduce;
      data_[g].runner = std::make_unique<CollectiveRunner>(ctx, transport, std::move(d), index,
                                                           seed ^ (0xda7aull << 40) ^ g);
      data_[g].runner->set_timeline_process(timeline_process_ + ": data group " +
                                            std::to_string(g / p.tp) + "." +
                                            std::to_string(g % p.tp));
      data_[g].runner->attach();
      for (const int64_t bytes : stage_buckets_[static_cast<size_t>(g / p.tp)]) {
        data_gated_ = data_gated_ && data_[g].runner->rank_paced(bytes);
      }
    }
  }
  transport_.add_listener(this);
  transport_.register_owner(this);  // its pipeline flows, told to other processes
}

void ParallelTraining::Agent::on_event(uint32_t kind, uint64_t) {
  if (replica_) {
    training_.on_replica_event(index_, kind);
  } else {
    training_.on_group_event(index_);
  }
}

void ParallelTraining::set_sharp(SharpAllReduce* sharp) {
  for (auto& t : tensor_) {
    t->set_sharp(sharp);
    // An NVLS all-reduce's group, built before the run (a replica asks for its calls from
    // its own partition's events).
    t->prepare_in_network(spec_.parallel.activation_bytes);
  }
  for (auto& d : data_) {
    if (d.runner) d.runner->set_sharp(sharp);
  }
}

void ParallelTraining::start() {
  // The step begins for every replica at once: between windows in a split run.
  ctx_.sim.at_boundary(spec_.comm.start, this, kStepBegins, 0);
}

// At a boundary event (or in a run of one list): every replica and group may be touched.
void ParallelTraining::begin_step() {
  step_start_ = ctx_.sim.now();
  if (TimelineRecorder* t = ctx_.timeline; t != nullptr) {
    // Every track the replicas' events will use, in this order (timeline_span).
    for (int stage = 0; stage < spec_.parallel.pp; ++stage) {
      (void)t->track(timeline_process_, "stage " + std::to_string(stage), 2 * stage);
      (void)t->track(timeline_process_, "stage " + std::to_string(stage) + " pipeline",
                     2 * stage + 1);
    }
    for (auto& tensor : tensor_) tensor->prepare_timeline();
  }
  for (auto& r : replica_) r = Replica{};
  const auto stages = static_cast<size_t>(spec_.parallel.pp);
  stage_left_ = std::make_unique<std::atomic<int>[]>(stages);
  stage_end_ps_ = std::make_unique<std::atomic<int64_t>[]>(stages);
  for (size_t s = 0; s < stages; ++s) {
    stage_left_[s].store(spec_.parallel.dp, std::memory_order_relaxed);
    stage_end_ps_[s].store(step_start_.ps, std::memory_order_relaxed);
  }
  stage_told_left_.assign(stages, spec_.parallel.dp);
  stage_told_end_.assign(stages, step_start_);
  groups_done_ = 0;
  for (int g = 0; g < static_cast<int>(data_.size()); ++g) {
    DataGroup& d = data_[static_cast<size_t>(g)];
    d.next_bucket = 0;
    d.end = step_start_;
    d.rows.clear();
    if (!data_gated_ || !d.runner) continue;
    // Every bucket asked for now; each GPU runs them once its backward is done (join).
    const std::vector<int64_t>& buckets =
        stage_buckets_[static_cast<size_t>(g / spec_.parallel.tp)];
    for (size_t b = 0; b < buckets.size(); ++b) {
      const bool last = b + 1 == buckets.size();
      auto done = [this, g, last] {
        DataGroup& dg = data_[static_cast<size_t>(g)];
        dg.rows.push_back(dg.runner->results().back());
        if (last) group_done(g, dg.rows.back().end);
      };
      // The first bucket waits for each GPU's join; the others follow it on each GPU.
      if (b == 0) {
        d.runner->run_gated(buckets[b], std::move(done), step_start_);
      } else {
        d.runner->run_one(buckets[b], std::move(done), step_start_, /*boundary=*/true);
      }
    }
  }
  for (int r = 0; r < replicas_; ++r) {
    if (finished_told_.empty()) {
      run(r);
      continue;
    }
    // Over processes a replica's first ops may post flows, which only its own partition's
    // events may do there (what a boundary event adds, every process would): its program
    // starts with an event of its agent, first among the events of this time in its partition
    // and not counted (one process runs it here). Another process's replica starts there.
    Agent& agent = *replica_agents_[static_cast<size_t>(r)];
    if (!ctx_.sim.is_local(agent.partition())) continue;
    ctx_.sim.at(sim::Scheduler::take_first_place_for(step_start_, agent), &agent, kProgramStarts);
  }
}

void ParallelTraining::run(int replica) {
  Replica& R = replica_[static_cast<size_t>(replica)];
  const std::vector<Op>& prog = programs_[static_cast<size_t>(stage_of(replica))];
  while (R.pc < prog.size()) {
    const Op& op = prog[R.pc];
    R.op_start = ctx_.sim.now();
    switch (op.type) {
      case Op::Type::Compute:
        ctx_.sim.after(op.time, replica_agents_[static_cast<size_t>(replica)].get(), kComputeDone);
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

void ParallelTraining::on_event(uint32_t kind, uint64_t) {
  if (kind == kStepBegins) begin_step();
}

void ParallelTraining::on_replica_event(int replica, uint32_t kind) {
  if (kind == kProgramStarts) {
    ctx_.sim.uncount_running_event();
    run(replica);
    return;
  }
  if (kind != kComputeDone) return;
  Replica& R = replica_[static_cast<size_t>(replica)];
  if (ctx_.timeline != nullptr) {
    timeline_span(replica, true, programs_[stage_of(replica)][R.pc].name, R.op_start);
  }
  ++R.pc;
  run(replica);
}

// Where the replica is: each of its GPUs joins its data group's buckets.
void ParallelTraining::replica_finished(int replica) {
  const ParallelGroups& p = spec_.parallel;
  Replica& R = replica_[static_cast<size_t>(replica)];
  R.backward_end = ctx_.sim.now();
  if (!finished_told_.empty()) {
    finished_told_[sim::Simulator::thread_partition()].push_back(
        {replica, R.tensor_time, R.p2p_time, R.p2p_wait, R.backward_end, R.messages_sent});
  }
  const int stage = stage_of(replica);
  if (data_gated_ && !stage_buckets_[static_cast<size_t>(stage)].empty()) {
    for (int t = 0; t < p.tp; ++t) {
      data_[static_cast<size_t>(stage * p.tp + t)].runner->join(
          static_cast<uint32_t>(replica % p.dp));
    }
    return;
  }
  // Over processes the stage's end is found as the processes tell each other of its replicas
  // (parallel_step_processes.cpp).
  if (!finished_told_.empty()) return;
  // The stage's last replica to finish (any partition's may be the last to count).
  sim::raise_to(stage_end_ps_[static_cast<size_t>(stage)], ctx_.sim.now().ps);
  if (stage_left_[static_cast<size_t>(stage)].fetch_sub(1, std::memory_order_acq_rel) > 1) {
    return;
  }
  if (data_gated_) {
    // No gradients to reduce: the groups are done with the stage's last replica.
    const sim::Time end(stage_end_ps_[static_cast<size_t>(stage)].load());
    for (int t = 0; t < p.tp; ++t) group_done(stage * p.tp + t, end);
    return;
  }
  // Without gated calls the stage's buckets start once its last replica is done (one
  // replica per stage, or a run of one list: split_blockers.cpp).
  for (int t = 0; t < p.tp; ++t) next_bucket(stage * p.tp + t);
}

void ParallelTraining::next_bucket(int group) {
  DataGroup& d = data_[static_cast<size_t>(group)];
  const std::vector<int64_t>& buckets =
      stage_buckets_[static_cast<size_t>(group / spec_.parallel.tp)];
  if (d.runner && d.next_bucket < buckets.size()) {
    const int64_t bytes = buckets[d.next_bucket++];
    d.runner->run_one(bytes, [this, group] {
      DataGroup& dg = data_[static_cast<size_t>(group)];
      dg.rows.push_back(dg.runner->results().back());
      next_bucket(group);
    });
    return;
  }
  group_done(group, ctx_.sim.now());
}

void ParallelTraining::group_done(int group, sim::Time end) {
  DataGroup& d = data_[static_cast<size_t>(group)];
  d.end = end;
  if (spec_.optimizer.ps == 0) {  // (a run of one list: split_blockers.cpp)
    on_group_event(group);
    return;
  }
  // Found by whichever partition ended the group's last bucket; the step's end acts on every
  // replica: a boundary event, stamped by the group's own handler.
  ctx_.sim.at_boundary_stamped(end + spec_.optimizer, d.agent.get(), kOptimizerDone);
}

void ParallelTraining::on_group_event(int) {
  if (++groups_done_ == spec_.parallel.pp * spec_.parallel.tp) step_done();
}

void ParallelTraining::step_done() {
  // The step's bucket rows in the order they ended (groups in order at equal ends).
  std::vector<std::pair<const CollectiveResult*, int>> rows;
  for (int g = 0; g < static_cast<int>(data_.size()); ++g) {
    for (const CollectiveResult& r : data_[static_cast<size_t>(g)].rows) rows.emplace_back(&r, g);
  }
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return a.first->end != b.first->end ? a.first->end < b.first->end : a.second < b.second;
  });
  for (const auto& r : rows) data_rows_.push_back(*r.first);
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
