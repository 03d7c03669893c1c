#include "models/collectives/collective_runner.hpp"

#include <algorithm>
#include <cmath>

#include "models/collectives/nccl_chunking.hpp"
#include "models/timeline.hpp"
#include "models/workloads/gpu_endpoints.hpp"

namespace models {

double CollectiveResult::algbw_gbps() const {
  if (time.ps <= 0) return 0.0;
  return static_cast<double>(size_bytes) / (static_cast<double>(time.ps) * 1e-12) / 1e9;
}

double CollectiveResult::busbw_gbps() const {
  return algbw_gbps() * bus_factor(op, ranks);
}

CollectiveRunner::CollectiveRunner(Context& ctx, Transport& transport, CollectiveSpec spec,
                                   uint32_t index, uint64_t seed)
    : EventHandler(ctx.sim),
      ctx_(ctx),
      transport_(transport),
      spec_(std::move(spec)),
      index_(index),
      seed_(seed),
      sizes_(sweep_sizes(spec_)) {
  // Each rank's agent in the partition of its first endpoint (a GPU server's endpoints are
  // one partition's: topologies/partition.hpp).
  const uint32_t building = ctx_.sim.building_partition();
  for (const auto& ends : spec_.rank_endpoints) {
    const sim::EventHandler* nic = ends.empty() ? nullptr : transport_.nic_handler(ends.front());
    ctx_.sim.set_building_partition(nic != nullptr ? nic->partition() : building);
    agents_.push_back(std::make_unique<RankAgent>(ctx_.sim, *this));
  }
  ctx_.sim.set_building_partition(building);
  tally_.resize(ctx_.sim.partitions());
  transport_.prepare_recycling();  // its messages' slots are reused (add_message_flow)
  released_.resize(ctx_.sim.partitions());
}

void CollectiveRunner::clear_tally() {
  for (uint32_t p = 0; p < tally_.size(); ++p) tally_[p] = Tally{};
}

void CollectiveRunner::note_latest() {
  Tally& t = tally_.local();
  t.latest = std::max(t.latest, ctx_.sim.now());
}

void RankAgent::on_event(uint32_t kind, uint64_t arg) {
  runner_.on_rank_event(kind, arg);
}

void CollectiveRunner::start() {
  attach();
  ctx_.sim.at_boundary(spec_.start, this, kBegin, 0);
}

void CollectiveRunner::run_one(int64_t size, std::function<void()> done, sim::Time start) {
  sizes_ = {size};
  size_index_ = 0;
  iteration_ = 0;
  done_ = false;
  on_done_ = std::move(done);
  begin_iteration(/*boundary=*/false, start);
}

uint16_t CollectiveRunner::connection_sport(uint32_t src, uint32_t dst, uint32_t channel) const {
  // One source port per QP (span leaves room for the QPs' consecutive ports).
  return connection_source_port(seed_ ^ (static_cast<uint64_t>(index_) << 48) ^
                                    (static_cast<uint64_t>(src) << 32) ^
                                    (static_cast<uint64_t>(dst) << 12) ^ channel,
                                16384 - static_cast<uint64_t>(spec_.qps));
}

sim::Time CollectiveRunner::step_latency(CollectiveProtocol p) const {
  switch (p) {
    case CollectiveProtocol::LL:
      return spec_.step_latency_ll;
    case CollectiveProtocol::LL128:
      return spec_.step_latency_ll128;
    default:
      return spec_.step_latency_simple;
  }
}

void CollectiveRunner::begin_iteration(bool boundary, sim::Time start) {
  const int64_t size = sizes_[size_index_];
  if (iteration_ == 0) {
    current_ = CollectiveResult{};
    current_.collective = index_;
    current_.op = spec_.op;
    current_.algorithm = resolve_algorithm(spec_, size);
    current_.protocol = resolve_protocol(spec_, size);
    current_.ranks = spec_.ranks();
    current_.size_bytes = size;
    current_.count = size / spec_.type_bytes;
    current_.chunk_bytes = spec_.chunk_bytes;
    if (spec_.chunk_bytes == kNcclChunk) {
      NcclChunkingInput in;
      in.op = spec_.op;
      in.algorithm = current_.algorithm;
      in.protocol = current_.protocol;
      in.bytes = size;
      in.channels = std::max(1, spec_.channels);
      in.ranks = spec_.ranks();
      in.nodes = spec_.nodes();
      current_.chunk_bytes = nccl_chunk_bytes(in);
    }
    current_.start = start;
    current_.rank_data_sent.assign(spec_.ranks(), 0);
    current_.rank_data_received.assign(spec_.ranks(), 0);
    if (spec_.nccl_costs) {
      nccl_ = nccl_latencies(spec_.tuning, spec_.op, current_.algorithm, current_.protocol, size);
    }
    int64_t rate = current_.protocol == CollectiveProtocol::LL      ? spec_.ll_rate_bps
                   : current_.protocol == CollectiveProtocol::LL128 ? spec_.ll128_rate_bps
                                                                    : 0;
    double rate_bps = static_cast<double>(rate);
    if (rate < 0) {
      rate_bps = spec_.nccl_costs ? 8e9 * nccl_protocol_rate_gbs(spec_.tuning, current_.algorithm,
                                                                 current_.protocol)
                                  : 0.0;
    }
    channel_rate_bps_ = rate_bps / std::max(1, spec_.channels);
    channel_free_.assign(channel_rate_bps_ > 0
                             ? static_cast<size_t>(spec_.ranks()) * std::max(1, spec_.channels)
                             : 0,
                         sim::Time{});
  }
  const sim::Time launch = launch_latency();
  if (launch.ps > 0) {
    if (boundary) {
      ctx_.sim.after_boundary(launch, this, kLaunched, 0);
    } else {
      // Asked for by another runner's event (a training step's), or by the end of a call that
      // any partition may have found: stamped by this runner (Simulator::at_boundary_stamped).
      ctx_.sim.at_boundary_stamped(start + launch, this, kLaunched, 0);
    }
    return;
  }
  launch_iteration();
}

namespace {
sim::Time from_us(double us) {
  return sim::Time(std::llround(us * 1e6));
}
}  // namespace

sim::Time CollectiveRunner::launch_latency() const {
  if (spec_.launch_latency.ps >= 0) return spec_.launch_latency;
  if (!spec_.nccl_costs) return sim::Time{};
  return from_us(spec_.launch_scale * nccl_.base_us);
}

sim::Time call_launch_latency(const CollectiveSpec& spec, int64_t size) {
  if (spec.launch_latency.ps >= 0) return spec.launch_latency;
  if (!spec.nccl_costs) return sim::Time{};
  const NcclLatencies l = nccl_latencies(spec.tuning, spec.op, resolve_algorithm(spec, size),
                                         resolve_protocol(spec, size), size);
  return from_us(spec.launch_scale * l.base_us);
}

bool CollectiveRunner::same_server(const CollectiveMessage& m) const {
  return !spec_.rank_server.empty() && spec_.rank_server[m.src_rank] >= 0 &&
         spec_.rank_server[m.src_rank] == spec_.rank_server[m.dst_rank];
}

sim::Time CollectiveRunner::staging_time(int64_t bytes) const {
  if (spec_.staging_rate_bps <= 0) return sim::Time{};
  // Staged through host memory: written there before the send, read back after arrival.
  return sim::Time(2 * sim::serialization_time(bytes, spec_.staging_rate_bps).ps);
}

sim::Time CollectiveRunner::step_cost(const CollectiveMessage& m) const {
  sim::Time t = step_latency(protocol_);
  if (!same_server(m)) t += staging_time(m.wire_bytes);
  if (!spec_.nccl_costs) return t;
  // NCCL's step latency includes the hardware's; the simulation moves the message itself.
  // Not its ring plateau factor (nccl_.factor): that stands for the chunked pipeline's
  // mid-size inefficiency, which the simulated pipeline has of itself.
  const bool nvlink = same_server(m);
  const sim::Time step = from_us(nvlink ? nccl_.nvlink_step_us : nccl_.net_step_us);
  const sim::Time hardware = nvlink ? spec_.nvlink_hop : spec_.network_hop;
  if (step.ps > hardware.ps) {
    t += sim::Time(std::llround(spec_.step_scale * static_cast<double>((step - hardware).ps)));
  }
  return t;
}

void CollectiveRunner::launch_iteration() {
  const int64_t size = sizes_[size_index_];
  if (current_.algorithm == CollectiveAlgorithm::Sharp) return run_sharp(size);
  if (current_.algorithm == CollectiveAlgorithm::Nvls) return run_nvls(size);
  if (current_.algorithm == CollectiveAlgorithm::NvlsTree) return run_nvls_tree(size);
  if (current_.algorithm == CollectiveAlgorithm::CollNetDirect ||
      current_.algorithm == CollectiveAlgorithm::CollNetChain) {
    return run_collnet(size);
  }
  ScheduleRequest req;
  req.op = spec_.op;
  req.algorithm = current_.algorithm;
  req.protocol = current_.protocol;
  req.ranks = spec_.ranks();
  req.size_bytes = size;
  req.type_bytes = spec_.type_bytes;
  req.channels = std::max(1, spec_.channels);
  req.chunk_bytes = current_.chunk_bytes;
  req.slots = spec_.slots;
  req.root = spec_.root;
  req.rank_server = spec_.rank_server;
  layouts_ = nullptr;
  if (current_.algorithm == CollectiveAlgorithm::Ring && !spec_.ring_layouts.empty()) {
    layouts_ = &spec_.ring_layouts;
  } else if (current_.algorithm == CollectiveAlgorithm::DoubleBinaryTree &&
             !spec_.tree_layouts.empty()) {
    layouts_ = &spec_.tree_layouts;
  }
  if (layouts_ != nullptr) {
    for (const ChannelLayout& l : *layouts_) req.channel_orders.push_back(l.ring);
  }
  protocol_ = current_.protocol;
  schedule_ = build_schedule(req);
  remaining_.store(schedule_.messages.size(), std::memory_order_relaxed);
  clear_tally();
  iteration_start_ = ctx_.sim.now();
  // Joins are no messages. Every other message reaches its receiver before the iteration ends
  // (its completion waits for that): its bytes are counted from the schedule, not as each
  // delivery runs, so that a split run's partition that ends the iteration need not wait for
  // a delivery another partition runs at the same moment (over TCP an application's wake-up
  // can come as late as the sender's last acknowledgement).
  for (const CollectiveMessage& m : schedule_.messages) {
    if (m.src_rank == m.dst_rank) continue;
    ++current_.messages;
    current_.rank_data_received[m.dst_rank] += m.data_bytes;
  }
  begin_timeline(schedule_.messages.size());
  if (schedule_.messages.empty()) {
    finish_iteration();
    return;
  }
  // Joins ready at the start complete after the first posts (none completes synchronously).
  std::vector<uint32_t> joins;
  for (uint32_t m = 0; m < schedule_.messages.size(); ++m) {
    const CollectiveMessage& msg = schedule_.messages[m];
    if (msg.waiting != 0) continue;
    if (msg.src_rank == msg.dst_rank) {
      joins.push_back(m);
    } else {
      ready(m);
    }
  }
  if (joins.empty()) return;
  for (uint32_t j : joins) released_.local().emplace_back(j, Release::All);
  drain(count_complete(joins.size()));
}

void CollectiveRunner::begin_timeline(size_t messages) {
  if (ctx_.timeline == nullptr) return;
  if (!timeline_) {
    timeline_ = std::make_unique<CollectiveTimeline>(
        *ctx_.timeline,
        timeline_process_.empty()
            ? "collective " + std::to_string(index_) + ": " + to_string(spec_.op)
            : timeline_process_,
        spec_);
  }
  timeline_->begin(messages, iteration_start_);
}

double CollectiveRunner::work_done() const {
  if (done_) return 1.0;
  double total = 0, done = 0;
  for (size_t i = 0; i < sizes_.size(); ++i) {
    const double bytes = static_cast<double>(sizes_[i]) * spec_.iterations;
    total += bytes;
    if (i < size_index_) done += bytes;
  }
  if (size_index_ < sizes_.size()) {
    const auto size = static_cast<double>(sizes_[size_index_]);
    done += size * iteration_;
    const size_t remaining = remaining_.load(std::memory_order_relaxed);
    if (remaining > 0 && !schedule_.messages.empty()) {
      done += size * (1.0 - static_cast<double>(remaining) /
                                static_cast<double>(schedule_.messages.size()));
    }
  }
  return total > 0 ? std::min(1.0, done / total) : 1.0;
}

void CollectiveRunner::finish_iteration() {
  // Each partition's share of the iteration (a split run's partitions added at once).
  sim::Time end = ctx_.sim.now();
  for (uint32_t p = 0; p < tally_.size(); ++p) {
    const Tally& t = tally_[p];
    current_.nvlink_bytes += t.nvlink_bytes;
    current_.network_bytes += t.network_bytes;
    current_.wire_bytes += t.wire_bytes;
    current_.messages += t.messages;
    end = std::max(end, t.latest);
  }
  clear_tally();
  if (timeline_) timeline_->finish(current_, end);
  ++iteration_;
  if (iteration_ < spec_.iterations) {
    // The next iteration's kernel starts on every rank at the end of this one and posts after
    // its launch latency: a boundary event then (it posts for every rank), first among the
    // events of its time in a run of one list too, so a split run gives the same results. A
    // split run needs that latency to be at least a window (collective_split_blocker).
    const sim::Time launch = launch_latency();
    if (launch.ps > 0) {
      ctx_.sim.at_boundary_stamped(end + launch, this, kLaunched, 0);
    } else {
      launch_iteration();
    }
    return;
  }
  current_.end = end;
  current_.time = sim::Time((current_.end - current_.start).ps / spec_.iterations);
  for (auto& b : current_.rank_data_sent) b /= spec_.iterations;
  for (auto& b : current_.rank_data_received) b /= spec_.iterations;
  results_.push_back(std::move(current_));
  iteration_ = 0;
  if (++size_index_ < sizes_.size()) {
    // Between two sizes nccl-tests runs an untimed call of the next size and host barriers
    // (BenchTime: a sync call, Barrier; docs/references.md "Collectives"): not simulated, the
    // fabric idle for size_gap. The next size then starts on every rank at once.
    ctx_.sim.at_boundary_stamped(end + spec_.size_gap, this, kNextSize, 0);
    return;
  }
  done_ = true;
  if (on_done_) {
    const std::function<void()> fn = on_done_;  // it may start another run (run_one)
    fn();
  }
}

void CollectiveRunner::on_event(uint32_t kind, uint64_t /*arg*/) {
  if (kind == kBegin) {
    if (sizes_.empty()) {
      done_ = true;
      if (on_done_) on_done_();
      return;
    }
    begin_iteration(/*boundary=*/true, ctx_.sim.now());
  } else if (kind == kNextSize) {
    begin_iteration(/*boundary=*/true, ctx_.sim.now());
  } else if (kind == kLaunched) {
    launch_iteration();
  }
}

void CollectiveRunner::on_rank_event(uint32_t kind, uint64_t arg) {
  if (kind == kPost) {
    post(static_cast<uint32_t>(arg));
  } else if (kind == kNvlsTreePost) {
    nvls_tree_post(static_cast<uint32_t>(arg));
  }
}

}  // namespace models
