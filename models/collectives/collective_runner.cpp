#include "models/collectives/collective_runner.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "models/collectives/nccl_chunking.hpp"
#include "models/timeline.hpp"
#include "models/workloads/gpu_endpoints.hpp"
#include "sim/event_arg.hpp"

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
    agents_.push_back(
        std::make_unique<RankAgent>(ctx_.sim, *this, static_cast<uint32_t>(agents_.size())));
  }
  for (const auto& a : agents_) local_ = local_ && a->partition() == partition();
  one_partition_ = local_;
  // Over processes a call's ranks start at boundary events, which every process runs.
  over_processes_ = ctx_.sim.ranks() != nullptr;
  if (over_processes_) local_ = false;
  rank_ends_.resize(ctx_.sim.partitions());
  in_network_notes_.resize(ctx_.sim.partitions());
  transport_.register_owner(this);
  cursors_.resize(spec_.rank_endpoints.size());
  channel_free_.assign(
      spec_.rank_endpoints.size() * static_cast<size_t>(std::max(1, spec_.channels)), sim::Time{});
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
  runner_.on_rank_event(rank_, kind, arg);
}

void CollectiveRunner::start() {
  attach();
  ctx_.sim.at_boundary(spec_.start, this, kBegin, 0);
}

void CollectiveRunner::run_one(int64_t size, std::function<void()> done, sim::Time start,
                               bool boundary) {
  if (rank_paced(size)) {
    release_row(new_row(size, start), -1, std::move(done), start, boundary);
    return;
  }
  sizes_ = {size};
  size_index_ = 0;
  iteration_ = 0;
  done_ = false;
  on_done_ = std::move(done);
  begin_iteration(/*boundary=*/false, start);
}

bool CollectiveRunner::run_in_own_partition() {
  if (!one_partition_) return false;
  local_ = true;
  over_processes_ = false;
  return true;
}

void CollectiveRunner::at_stamped(sim::Time t, uint32_t kind, uint64_t arg) {
  if (local_) {
    ctx_.sim.at(sim::Scheduler::take_first_place_for(t, *this), this, kind, arg);
  } else {
    ctx_.sim.at_boundary_stamped(t, this, kind, arg);
  }
}

void CollectiveRunner::run_gated(int64_t size, std::function<void()> done, sim::Time start,
                                 std::function<void(uint32_t)> rank_done) {
  if (!rank_paced(size)) {
    throw std::logic_error("a gated collective call needs a schedule algorithm");
  }
  release_row(new_row(size, start), -1, std::move(done), start, /*boundary=*/true,
              /*gated=*/true, std::move(rank_done));
}

void CollectiveRunner::join(uint32_t rank) {
  RankCursor& cursor = cursors_[rank];
  if (!cursor.gated) {
    throw std::logic_error("collective rank " + std::to_string(rank) +
                           " joins with no gated call waiting");
  }
  cursor.gated = false;
  start_and_launch(rank, cursor.next_call, ctx_.sim.now());
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

bool rank_paced(const CollectiveSpec& spec, int64_t size) {
  switch (resolve_algorithm(spec, size)) {
    case CollectiveAlgorithm::Sharp:
    case CollectiveAlgorithm::Nvls:
    case CollectiveAlgorithm::NvlsTree:
    case CollectiveAlgorithm::CollNetDirect:
    case CollectiveAlgorithm::CollNetChain:
      return false;
    default:
      return true;
  }
}

CollectiveResult CollectiveRunner::new_row(int64_t size, sim::Time start) const {
  CollectiveResult r;
  r.collective = index_;
  r.op = spec_.op;
  r.algorithm = resolve_algorithm(spec_, size);
  r.protocol = resolve_protocol(spec_, size);
  r.ranks = spec_.ranks();
  r.size_bytes = size;
  r.count = size / spec_.type_bytes;
  r.chunk_bytes = spec_.chunk_bytes;
  if (spec_.chunk_bytes == kNcclChunk) {
    NcclChunkingInput in;
    in.op = spec_.op;
    in.algorithm = r.algorithm;
    in.protocol = r.protocol;
    in.bytes = size;
    in.channels = std::max(1, spec_.channels);
    in.ranks = spec_.ranks();
    in.nodes = spec_.nodes();
    r.chunk_bytes = nccl_chunk_bytes(in);
  }
  r.start = start;
  r.rank_data_sent.assign(spec_.ranks(), 0);
  r.rank_data_received.assign(spec_.ranks(), 0);
  return r;
}

CallSettings CollectiveRunner::call_settings(const CollectiveResult& row) const {
  CallSettings s;
  s.protocol = row.protocol;
  if (spec_.nccl_costs) {
    s.nccl = nccl_latencies(spec_.tuning, spec_.op, row.algorithm, row.protocol, row.size_bytes);
  }
  const int64_t rate = row.protocol == CollectiveProtocol::LL      ? spec_.ll_rate_bps
                       : row.protocol == CollectiveProtocol::LL128 ? spec_.ll128_rate_bps
                                                                   : 0;
  double rate_bps = static_cast<double>(rate);
  if (rate < 0) {
    rate_bps = spec_.nccl_costs
                   ? 8e9 * nccl_protocol_rate_gbs(spec_.tuning, row.algorithm, row.protocol)
                   : 0.0;
  }
  s.channel_rate_bps = rate_bps / std::max(1, spec_.channels);
  if (row.algorithm == CollectiveAlgorithm::Ring && !spec_.ring_layouts.empty()) {
    s.layouts = &spec_.ring_layouts;
  } else if (row.algorithm == CollectiveAlgorithm::DoubleBinaryTree &&
             !spec_.tree_layouts.empty()) {
    s.layouts = &spec_.tree_layouts;
  }
  s.launch = call_launch_latency(spec_, row.size_bytes);
  return s;
}

void CollectiveRunner::begin_iteration(bool boundary, sim::Time start) {
  const int64_t size = sizes_[size_index_];
  if (rank_paced(size)) {
    release_row(new_row(size, start), static_cast<int64_t>(size_index_), {}, start, boundary);
    return;
  }
  // An in-network call: every rank at once.
  if (iteration_ == 0) {
    current_ = new_row(size, start);
    if (spec_.nccl_costs) {
      nccl_ = nccl_latencies(spec_.tuning, spec_.op, current_.algorithm, current_.protocol, size);
    }
  }
  const sim::Time launch = launch_latency();
  if (launch.ps > 0) {
    if (boundary) {
      ctx_.sim.after_boundary(launch, this, kLaunched, 0);
    } else {
      // Asked for by another runner's event (a training step's), or by the end of a call that
      // any partition may have found: stamped by this runner (Simulator::at_boundary_stamped).
      at_stamped(start + launch, kLaunched);
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

sim::Time CollectiveRunner::step_cost(const CallSettings& s, const CollectiveMessage& m) const {
  sim::Time t = step_latency(s.protocol);
  if (!same_server(m)) t += staging_time(m.wire_bytes);
  if (!spec_.nccl_costs) return t;
  // NCCL's step latency includes the hardware's; the simulation moves the message itself.
  // Not its ring plateau factor (NcclLatencies::factor): that stands for the chunked pipeline's
  // mid-size inefficiency, which the simulated pipeline has of itself.
  const bool nvlink = same_server(m);
  const sim::Time step = from_us(nvlink ? s.nccl.nvlink_step_us : s.nccl.net_step_us);
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
  return run_collnet(size);
}

void CollectiveRunner::begin_timeline() {
  if (ctx_.timeline == nullptr) return;
  if (!timeline_) {
    timeline_ = std::make_unique<CollectiveTimeline>(
        *ctx_.timeline,
        timeline_process_.empty()
            ? "collective " + std::to_string(index_) + ": " + to_string(spec_.op)
            : timeline_process_,
        spec_);
  }
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
    const size_t rows = rows_.size();
    if (!rank_paced(sizes_[size_index_])) {
      done += size * iteration_;
    } else if (rows > 0 && rows_[rows - 1]->sweep_index == static_cast<int64_t>(size_index_)) {
      // The sweep row under way: the share of its calls' messages complete.
      const CallRow& row = *rows_[rows - 1];
      if (row.result.messages > 0) {
        done += size * spec_.iterations *
                static_cast<double>(row.messages_done.load(std::memory_order_relaxed)) /
                static_cast<double>(row.result.messages);
      }
    }
  }
  return total > 0 ? std::min(1.0, done / total) : 1.0;
}

void CollectiveRunner::finish_iteration() {
  // Each partition's share of the iteration (a split run's partitions added at once). Over
  // processes the end is found at a boundary after it (sharp_processes.cpp): the hosts' latest.
  sim::Time end = over_processes_ ? iteration_start_ : ctx_.sim.now();
  for (uint32_t p = 0; p < tally_.size(); ++p) {
    const Tally& t = tally_[p];
    current_.nvlink_bytes += t.nvlink_bytes;
    current_.network_bytes += t.network_bytes;
    current_.wire_bytes += t.wire_bytes;
    current_.messages += t.messages;
    end = std::max(end, t.latest);
  }
  clear_tally();
  if (timeline_) timeline_->iteration(current_, iteration_start_, end);
  ++iteration_;
  if (iteration_ < spec_.iterations) {
    // The next iteration's kernel starts on every rank at the end of this one and posts after
    // its launch latency: a boundary event then (it posts for every rank), first among the
    // events of its time in a run of one list too, so a split run gives the same results. A
    // split run needs that latency to be at least a window (collective_split_blocker).
    const sim::Time launch = launch_latency();
    if (launch.ps > 0) {
      at_stamped(end + launch, kLaunched);
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
  current_ = CollectiveResult{};  // no in-network call under way
  iteration_ = 0;
  after_row(end, on_done_);
}

void CollectiveRunner::after_row(sim::Time end, const std::function<void()>& done) {
  if (++size_index_ < sizes_.size()) {
    // Between two sizes nccl-tests runs an untimed call of the next size and host barriers
    // (BenchTime: a sync call, Barrier; docs/references.md "Collectives"): not simulated, the
    // fabric idle for size_gap. The next size then starts on every rank at once.
    at_stamped(end + spec_.size_gap, kNextSize);
    return;
  }
  done_ = true;
  if (done) {
    const std::function<void()> fn = done;  // it may start another run (run_one)
    fn();
  }
}

void CollectiveRunner::on_event(uint32_t kind, uint64_t arg) {
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
  } else if (kind == kLaunchCall) {
    // The ranks that were idle when the call was asked for.
    ScheduleCall& c = call(static_cast<uint32_t>(arg));
    std::vector<uint32_t> ranks;
    for (uint32_t r = 0; r < c.ranks.size(); ++r) {
      if (c.ranks[r].launch_at_boundary) ranks.push_back(r);
    }
    launch_ranks_here(c.number, ranks);
  }
}

void CollectiveRunner::on_rank_event(uint32_t rank, uint32_t kind, uint64_t arg) {
  if (kind == kPost) {
    post(call(static_cast<uint32_t>(arg >> 32)), static_cast<uint32_t>(arg));
  } else if (kind == kRankLaunch) {
    launch_ranks(static_cast<uint32_t>(arg), {rank});
  } else if (kind == kRankLaunchAlone) {
    ctx_.sim.uncount_running_event();
    launch_ranks(static_cast<uint32_t>(arg), {rank});
  } else if (kind == kInNetworkStart) {
    ctx_.sim.uncount_running_event();
    start_in_network_host(sim::arg_high(arg), sim::arg_low(arg));
  } else if (kind == kCollNetFeed) {
    ctx_.sim.uncount_running_event();
    collnet_feed_server(static_cast<int>(arg));
  } else if (kind == kNvlsTreePost) {
    nvls_tree_post(static_cast<uint32_t>(arg));
  }
}

}  // namespace models
