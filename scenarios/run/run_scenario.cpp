#include "scenarios/run/run_scenario.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <stdexcept>
#include <thread>
#include <tuple>

#include "scenarios/builder/build_network.hpp"
#include "scenarios/builder/collective_hops.hpp"
#include "scenarios/loader/input_error.hpp"
#include "scenarios/run/flow_results.hpp"
#include "scenarios/run/gather_results.hpp"
#include "scenarios/run/headline_results.hpp"
#include "scenarios/run/ib_cc_results.hpp"
#include "scenarios/run/infiniband_results.hpp"
#include "scenarios/run/link_event_schedule.hpp"
#include "scenarios/run/link_results.hpp"
#include "scenarios/run/memory_guard.hpp"
#include "scenarios/run/nvlink_results.hpp"
#include "scenarios/run/packet_conservation.hpp"
#include "scenarios/run/progress_line.hpp"
#include "scenarios/run/roce_results.hpp"
#include "scenarios/run/routing_results.hpp"
#include "scenarios/run/run_timeline.hpp"
#include "scenarios/run/run_warnings.hpp"
#include "scenarios/run/split_blockers.hpp"
#include "scenarios/run/tcp_results.hpp"
#include "scenarios/run/workload_results.hpp"
#include "sim/atomic_max.hpp"
#include "sim/huge_pages.hpp"
#include "sim/logging.hpp"
#include "topologies/partition.hpp"

namespace scen {

// Stops the run once every flow has completed (stop condition "workload-done"). Not in the
// anonymous namespace: ScenarioRun::State holds one.
class DoneWatcher final : public models::CompletionListener, public sim::RankAgreement {
 public:
  DoneWatcher(sim::Simulator& sim, const models::Transport& t, models::TimeseriesSampler* sampler)
      : sim_(sim), transport_(t), sampler_(sampler) {}
  void on_flow_complete(uint32_t) override { check(); }
  void note_time() { note(sim_.now()); }
  void note(sim::Time at) { sim::raise_to(latest_ps_, at.ps); }
  // Collectives post messages while running: the workload is done once they have finished too.
  bool all_done() const {
    if (over_ranks_) return agreed_done_;
    for (const auto& c : collectives_) {
      if (!c->done()) return false;
    }
    for (const auto& t : training_) {
      if (!t->done()) return false;
    }
    for (const auto& c : chakra_) {
      if (!c->done()) return false;
    }
    return transport_.flows_done() == transport_.flow_count();
  }
  // Called at every completion: the last one ends the workload. The stop is asked for at the
  // latest completion's time, not at the running event's: in a split run the partitions' events
  // of one window run one partition after another (sim/simulator.hpp).
  // In a split run on threads, flows complete in several partitions at once: the one that
  // finds them all done reads every flow's finish (each set before its count: transport.hpp)
  // rather than trusting the times noted so far, which another partition may not have noted yet.
  void check() {
    note_time();
    if (over_ranks_) {
      // Each process counts its own flows: they agree between windows (agreed). A boundary
      // event, which every process runs, may end the workload (a training step's last
      // phase) on the count agreed before it.
      if (!agreed_done_ && !sim_.in_window() && runners_done() &&
          agreed_count_ == transport_.flows_posted()) {
        agreed_done_ = true;
        if (sampler_ != nullptr) sampler_->stop();
        if (stop_) {
          sim_.stop(sim::Time(std::max(agreed_latest_.ps, latest_ps_.load())));
        }
      }
      return;
    }
    if (all_done() && !stopped_.exchange(true, std::memory_order_acq_rel)) {
      if (sampler_ != nullptr) sampler_->stop();
      int64_t latest = latest_ps_.load(std::memory_order_relaxed);
      for (size_t f = 0; f < transport_.flow_count(); ++f) {
        latest = std::max(latest, transport_.flow(static_cast<uint32_t>(f)).finish.ps);
      }
      if (stop_) sim_.stop(sim::Time(latest));
    }
  }
  // A run over several processes: the flows each completed (where their senders are) summed,
  // the stop asked for at the latest completion of any (the simulator applies it as one asked
  // for within the window that completed it: it is at most a window behind).
  uint64_t local_count() const override { return transport_.flows_done(); }
  sim::Time local_latest() const override {
    return sim::Time(latest_ps_.load(std::memory_order_relaxed));
  }
  sim::Time agreed(uint64_t count, sim::Time latest) override {
    agreed_count_ = count;
    agreed_latest_ = latest;
    // A collective's end is found between windows in every process (its ranks' ends told).
    if (agreed_done_ || count != transport_.flows_posted() || !runners_done()) {
      return sim::Time::max();
    }
    agreed_done_ = true;
    if (sampler_ != nullptr) sampler_->stop();
    return stop_ ? latest : sim::Time::max();
  }
  bool runners_done() const {
    for (const auto& c : collectives_) {
      if (!c->done()) return false;
    }
    for (const auto& t : training_) {
      if (!t->done()) return false;
    }
    for (const auto& c : chakra_) {
      if (!c->done()) return false;
    }
    return true;
  }
  bool over_ranks_ = false;
  bool agreed_done_ = false;
  uint64_t agreed_count_ = 0;  // the flows done, and the latest completion, last agreed on
  sim::Time agreed_latest_;
  bool stop_ = true;
  std::vector<std::unique_ptr<models::CollectiveRunner>> collectives_;
  std::vector<std::unique_ptr<models::TrainingRunner>> training_;
  std::vector<std::unique_ptr<models::ChakraRunner>> chakra_;

 private:
  sim::Simulator& sim_;
  const models::Transport& transport_;
  models::TimeseriesSampler* sampler_;
  std::atomic<int64_t> latest_ps_{0};  // the latest completion's time noted
  std::atomic<bool> stopped_{false};
};

namespace {

// The share of a finite workload done, 0..1 (the progress line, progress_line.hpp): the mean
// over its parts — the flows' bytes delivered (the first `flows` of the transport: the
// workload's; collective messages come after), each collective's and training run's work.
double progress_work(const models::Transport& t, size_t flows, const DoneWatcher& w) {
  double sum = 0;
  int parts = 0;
  if (flows > 0) {
    double bytes = 0, delivered = 0;
    for (uint32_t f = 0; f < flows; ++f) {
      const models::FlowState& fs = t.flow(f);
      bytes += static_cast<double>(fs.spec.bytes);
      for (uint32_t k = 0; k < fs.qp_count; ++k) {
        delivered += static_cast<double>(t.qp(fs.first_qp + k).delivered_bytes);
      }
    }
    sum += bytes > 0 ? delivered / bytes : 1.0;
    ++parts;
  }
  for (const auto& c : w.collectives_) {
    sum += c->work_done();
    ++parts;
  }
  for (const auto& tr : w.training_) {
    sum += tr->work_done();
    ++parts;
  }
  for (const auto& c : w.chakra_) {
    sum += c->work_done();
    ++parts;
  }
  return parts > 0 ? sum / parts : 0.0;
}

int64_t peak_rss_kb() {
  struct rusage ru {};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

// Anonymous memory backed by transparent huge pages now (Linux's smaps_rollup; 0 without it,
// and 0 unread where none can be: sim/huge_pages.hpp).
int64_t huge_pages_kb() {
  if (!sim::huge_pages_possible()) return 0;
  std::ifstream in("/proc/self/smaps_rollup");
  const std::string key = "AnonHugePages:";
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(key, 0) == 0) return std::strtoll(line.c_str() + key.size(), nullptr, 10);
  }
  return 0;
}

// `--timeline-ports`: each "node:port" must name a port of the fabric.
void check_timeline_ports(const models::TimelineOptions& o, const topo::Fabric& f) {
  for (const std::string& name : o.ports) {
    const size_t colon = name.rfind(':');
    const int node = colon == std::string::npos ? -1 : f.node_by_name(name.substr(0, colon));
    bool ok = node >= 0 && colon + 1 < name.size();
    size_t port = 0;
    for (size_t i = colon + 1; ok && i < name.size(); ++i) {
      ok = name[i] >= '0' && name[i] <= '9' && port < 100000;
      port = port * 10 + static_cast<size_t>(name[i] - '0');
    }
    if (!ok || port >= f.ports[node].size()) {
      throw InputError("--timeline-ports", name,
                       "NODE:PORT with a node of the topology and one of its port numbers");
    }
  }
}

}  // namespace

// What a run holds between its steps.
struct ScenarioRun::State {
  State(const Scenario& scenario, const RunOptions& o)
      : s(scenario), options(o), memory(estimate_memory(scenario)), sim(scenario.seed) {}
  const Scenario& s;
  RunOptions options;
  std::chrono::steady_clock::time_point wall_start = std::chrono::steady_clock::now();
  MemoryEstimate memory;
  sim::Simulator sim;
  std::unique_ptr<models::Network> net;
  std::unique_ptr<models::TimeseriesSampler> sampler;
  RunOutcome out;
  std::shared_ptr<models::TimelineRecorder> timeline;
  models::PartitionLog<models::PauseInterval> pauses;  // tagged with the link direction
  std::unique_ptr<DoneWatcher> watcher;
  std::unique_ptr<LinkEventSchedule> link_events;  // link_event_schedule.hpp
  bool finished = false;
};

ScenarioRun::ScenarioRun(const Scenario& s, const RunOptions& options)
    : state_(std::make_unique<State>(s, options)) {
  State& st = *state_;
  check_memory_estimate(st.memory, options.max_memory_bytes);
  sim::Simulator& sim = st.sim;
  if (sim::log_enabled(sim::LogLevel::Info)) {
    sim::log_info("scenario " + s.name + " (seed " + std::to_string(s.seed) +
                  "): " + std::to_string(s.fabric.host_node.size()) + " hosts, " +
                  std::to_string(s.fabric.topo.nodes.size() - s.fabric.host_node.size()) +
                  " switches, " + std::to_string(s.fabric.topo.links.size()) + " links; " +
                  std::to_string(s.flows.size()) + " flows, " +
                  std::to_string(s.collectives.size()) + " collectives; memory estimate " +
                  std::to_string(st.memory.total() >> 20) + " MiB");
  }
  std::vector<int> node_partition;
  const std::string blockers = split_blockers(s);
  int threads = options.threads;
  if (threads == 0) {  // auto: the machine's cores, when the scenario can be split
    threads =
        blockers.empty() ? static_cast<int>(std::max(1u, std::thread::hardware_concurrency())) : 1;
  }
  // Eight partitions per thread unless asked otherwise: a thread done with its own takes the
  // next one left, which evens out the load as it moves between them (docs/benchmarks.md).
  sim::RankExchange* ranks =
      options.ranks != nullptr && options.ranks->ranks() > 1 ? options.ranks : nullptr;
  const int rank_count = ranks != nullptr ? static_cast<int>(ranks->ranks()) : 1;
  if (ranks != nullptr) {
    const std::string why = rank_blockers(s);
    if (!why.empty()) {
      throw InputError("mpirun -np", std::to_string(rank_count),
                       "1 for this scenario: a run over MPI ranks does not yet run " + why);
    }
  }
  const int partitions = options.partitions > 1            ? options.partitions
                         : threads > 1 || ranks != nullptr ? 8 * threads * rank_count
                                                           : 1;
  if (partitions > 1 && !blockers.empty()) {
    const bool asked = options.partitions > 1;
    throw InputError(asked ? "--partitions" : "--threads",
                     std::to_string(asked ? options.partitions : options.threads),
                     "1 for this scenario: a split run does not yet split " + blockers);
  }
  if (threads > partitions) {
    throw InputError(
        "--threads", std::to_string(threads),
        "at most the partitions' count (--partitions " + std::to_string(partitions) + ")");
  }
  if (partitions > 1) {
    const topo::Partitioning part = topo::partition_fabric(s.fabric, partitions);
    // The loader refuses links of no latency: the lookahead is at least 1 ps.
    sim.split(static_cast<uint32_t>(part.count), sim::Time(part.lookahead_ps));
    int runnable = part.count;  // the partitions this process runs
    if (ranks != nullptr) {
      if (part.count < rank_count) {
        throw InputError("mpirun -np", std::to_string(rank_count),
                         "at most " + std::to_string(part.count) +
                             " for this fabric: it splits into " + std::to_string(part.count) +
                             " partitions, and each rank runs at least one");
      }
      std::vector<uint32_t> rank_of = topo::ranks_of_partitions(part, rank_count);
      runnable = static_cast<int>(std::count(rank_of.begin(), rank_of.end(), ranks->rank()));
      sim.set_ranks(*ranks, std::move(rank_of));
    }
    // A small fabric may have fewer units than asked for: a thread per partition at most.
    sim.set_threads(static_cast<uint32_t>(std::min(threads, runnable)));
    if (part.count > 1) node_partition = part.partition;
  }
  st.net = build_network(s, sim, std::move(node_partition));
  auto& net = st.net;
  const topo::Fabric& f = s.fabric;
  RunOutcome& out = st.out;
  std::unique_ptr<models::TimeseriesSampler>& sampler = st.sampler;
  if (s.has_timeseries) {
    std::vector<const models::EgressPort*> ports;
    for (const auto& ref : s.timeseries.ports) {
      if (f.host_index[ref.node] >= 0) {
        ports.push_back(&net->nics[f.host_index[ref.node]]->port());
      } else {
        ports.push_back(&net->switches[net->node_switch[ref.node]]->port(ref.port));
      }
      out.sampled_ports.push_back(ref.label);
    }
    sampler = std::make_unique<models::TimeseriesSampler>(net->ctx, ports, s.timeseries.interval);
    if (!s.timeseries.flows.empty()) {
      sampler->add_flows(*net->transport, s.timeseries.flows);
      out.sampled_flows = s.timeseries.flows;
      if (net->dcqcn) {
        for (uint32_t id : s.timeseries.flows) {
          const models::FlowState& fl = net->transport->flow(id);
          for (uint32_t k = 0; k < fl.qp_count; ++k) {
            net->dcqcn->trace(fl.first_qp + k, &net->rate_logs);
          }
        }
      }
      trace_ib_cc(s, *net);
    }
    sampler->start();
  }
  if (options.timeline.enabled) {
    check_timeline_ports(options.timeline, f);
    st.timeline = std::make_shared<models::TimelineRecorder>(options.timeline);
    st.pauses.resize(sim.partitions());
    net->ctx.timeline = st.timeline.get();
    // Over processes, each records its own ranks' spans; what all record alike, the first.
    if (sim.ranks() != nullptr) st.timeline->share_over_processes(sim, sim.ranks()->rank() == 0);
    for (size_t d = 0; d < net->link_gate.size(); ++d) {
      if (net->link_gate[d] != nullptr) {
        net->link_gate[d]->record_pauses(&st.pauses, static_cast<uint32_t>(d));
      }
    }
  }
  st.watcher = std::make_unique<DoneWatcher>(sim, *net->transport, sampler.get());
  DoneWatcher& watcher = *st.watcher;
  watcher.stop_ = s.stop_when_done;
  for (size_t i = 0; i < s.collectives.size(); ++i) {
    models::CollectiveSpec spec = s.collectives[i];
    set_collective_hop_times(s, *net, spec);
    watcher.collectives_.push_back(std::make_unique<models::CollectiveRunner>(
        net->ctx, *net->transport, std::move(spec), static_cast<uint32_t>(i), s.seed));
    // Its end: in a split run, found by the partition that saw it over, maybe earlier.
    watcher.collectives_.back()->set_on_done([&watcher, c = watcher.collectives_.back().get()] {
      watcher.note(c->finished_at());
      watcher.check();
    });
    watcher.collectives_.back()->set_sharp(net->sharp.get());  // InfiniBand only
    watcher.collectives_.back()->start();  // listens before the watcher: posts come first
  }
  for (size_t i = 0; i < s.training.size(); ++i) {
    models::TrainingSpec training = s.training[i];
    set_collective_hop_times(s, *net, training.comm);
    for (auto& g : training.parallel.tensor_groups) set_collective_hop_times(s, *net, g);
    for (auto& g : training.parallel.data_groups) set_collective_hop_times(s, *net, g);
    watcher.training_.push_back(std::make_unique<models::TrainingRunner>(
        net->ctx, *net->transport, std::move(training),
        static_cast<uint32_t>(s.collectives.size() + i), s.seed));
    watcher.training_.back()->set_on_done([&watcher] { watcher.check(); });
    watcher.training_.back()->set_sharp(net->sharp.get());
    watcher.training_.back()->start();
  }
  for (size_t i = 0; i < s.chakra.size(); ++i) {
    models::ChakraSpec chakra = s.chakra[i];
    for (auto& g : chakra.groups) {
      if (g.ranks() >= 2) set_collective_hop_times(s, *net, g);
    }
    watcher.chakra_.push_back(std::make_unique<models::ChakraRunner>(
        net->ctx, *net->transport, std::move(chakra),
        static_cast<uint32_t>(s.collectives.size() + s.training.size() + i), s.seed));
    watcher.chakra_.back()->set_on_done([&watcher] { watcher.check(); });
    watcher.chakra_.back()->set_sharp(net->sharp.get());
    watcher.chakra_.back()->start();
  }
  net->transport->add_listener(&watcher);
  if (ranks != nullptr) {
    watcher.over_ranks_ = true;
    sim.add_rank_agreement(watcher);
    // What the processes tell each other between windows: the flows they added, when TCP
    // messages' applications have them, the in-network all-reduces' hosts' ends, then the
    // collectives' ranks' ends.
    net->transport->run_over_processes();
    sim.add_rank_share(*net->transport);
    if (net->tcp) {
      net->tcp->run_over_processes();
      sim.add_rank_share(*net->tcp);
    }
    // (In-network all-reduces' hosts' ends before the collectives': those may end a call.)
    if (net->sharp) {
      net->sharp->run_over_processes();
      sim.add_rank_share(*net->sharp);
    }
    for (const auto& c : watcher.collectives_) sim.add_rank_share(*c);
    for (const auto& t : watcher.training_) t->share_over_processes(sim);
    // A Chakra rank's end is noted where it is: the processes agree on the latest.
    for (const auto& c : watcher.chakra_) {
      c->share_over_processes(sim, [&watcher] { watcher.note_time(); });
    }
  }
  net->transport->schedule_starts();
  if (sim.partitions() > 1) net->reserve_qps();
  if (net->deadlock) net->deadlock->start();
  for (auto& storm : net->pause_storms) storm->start();
  if (!s.link_events.empty()) {
    st.link_events = std::make_unique<LinkEventSchedule>(s, *net);
    st.link_events->start();
  }
}

ScenarioRun::~ScenarioRun() = default;

const Scenario& ScenarioRun::scenario() const {
  return state_->s;
}
sim::Simulator& ScenarioRun::simulator() {
  return state_->sim;
}
const sim::Simulator& ScenarioRun::simulator() const {
  return state_->sim;
}
models::Network& ScenarioRun::network() {
  return *state_->net;
}
const models::Network& ScenarioRun::network() const {
  return *state_->net;
}

sim::StopReason ScenarioRun::advance(sim::Time limit) {
  State& st = *state_;
  if (st.finished) throw std::logic_error("ScenarioRun::advance after finish");
  const Scenario& s = st.s;
  sim::Simulator& sim = st.sim;
  std::unique_ptr<ProgressLine> progress;
  if (st.options.progress) {
    // By the work when the run ends with a workload that has any; else by stop.time.
    std::function<double()> work;
    const size_t workload_flows = s.flows.size();
    const DoneWatcher& watcher = *st.watcher;
    if (s.stop_when_done && (workload_flows > 0 || !watcher.collectives_.empty() ||
                             !watcher.training_.empty() || !watcher.chakra_.empty())) {
      work = [&st, workload_flows] {
        return progress_work(*st.net->transport, workload_flows, *st.watcher);
      };
    }
    progress = std::make_unique<ProgressLine>(sim, s.stop_time, std::move(work));
  }
  MemoryGuard memory_guard(sim, st.options.max_memory_bytes, st.memory, progress.get());
  sim.set_progress(&memory_guard, 1 << 20);
  st.out.reason = sim.run(limit);
  sim.set_progress(nullptr, 0);
  return st.out.reason;
}

bool ScenarioRun::workload_done() const {
  return state_->watcher->all_done();
}

RunOutcome ScenarioRun::finish() {
  State& st = *state_;
  if (st.finished) throw std::logic_error("ScenarioRun::finish called twice");
  st.finished = true;
  const Scenario& s = st.s;
  sim::Simulator& sim = st.sim;
  auto& net = st.net;
  const topo::Fabric& f = s.fabric;
  RunOutcome out = std::move(st.out);
  if (sim.ranks() != nullptr && !gather_results(s, sim, *net, st.sampler.get(), st.timeline.get(),
                                                st.timeline ? &st.pauses : nullptr)) {
    // Another process of the run holds every result now: this one tells only how it ended.
    out.results_elsewhere = true;
    out.end_time = sim.now();
    out.events = sim.events_executed();
    out.results["stop_reason"] = sim::to_string(out.reason);
    return out;
  }
  net->gather_logs();
  // A run stopped when its workload was done ends a grace of 1 us later (sim/simulator.hpp).
  out.end_time = sim.now();
  out.events = sim.events_executed();
  out.packet_hops = net->packet_hops();

  const TransportTotals transport_totals = collect_flow_results(s, *net, out);
  const FabricTotals fabric_totals = collect_link_results(s, *net, out);
  const PacketTotals packets = check_packet_conservation(*net, fabric_totals);

  if (st.sampler) {
    st.sampler->finish();
    out.samples = st.sampler->samples();
    out.flow_samples = st.sampler->flow_samples();
  }
  // By (time, QP): a split run's partitions log one after another.
  out.rate_changes = net->rate_log;
  std::stable_sort(out.rate_changes.begin(), out.rate_changes.end(),
                   [](const models::RateChange& a, const models::RateChange& b) {
                     return std::tie(a.time, a.qp) < std::tie(b.time, b.qp);
                   });

  Json res = headline_results(out, transport_totals, fabric_totals, packets);
  add_roce_results(s, *net, fabric_totals, packets, out, res);
  add_tcp_results(s, *net, res);
  for (const auto& n : f.topo.nodes) out.node_names.push_back(n.name);
  for (size_t h = 0; h < net->nics.size(); ++h) {
    out.nics.push_back(net->nics[h]->stats());
    out.host_names.push_back(f.topo.nodes[f.host_node[h]].name);
  }
  if (s.fabric_kind == FabricKind::Infiniband) add_infiniband_results(s, *net, out, res);
  add_nvlink_results(s, *net, out, res);
  add_routing_results(s, *net, res);
  res["packets_in_flight_at_end"] = packets.in_flight;
  add_workload_results(s, st.watcher->collectives_, st.watcher->training_, out, res);
  add_chakra_results(st.watcher->chakra_, out, res);
  out.results = std::move(res);
  add_run_warnings(s, out);

  Json counters;
  counters["packets_created"] = packets.created;
  counters["packets_consumed"] = packets.consumed;
  counters["control_packets_sent"] = packets.acks;
  counters["packet_hops"] = out.packet_hops;
  out.packet_pool_capacity = net->pool.capacity();
  counters["events"] = out.events;
  for (const auto& [name, value] : sim.counters()) counters[name] = value;
  int64_t peak_buffer = 0;
  for (const auto& sw : net->switches)
    peak_buffer = std::max(peak_buffer, sw->buffer().peak_used());
  counters["switch_buffer_peak_bytes"] = peak_buffer;
  out.counters = std::move(counters);

  if (st.timeline) {
    // In the order they ended (a split run's partitions log apart): by end, port, priority.
    std::vector<models::PauseInterval> pauses;
    models::Network::gather(st.pauses, pauses);
    std::stable_sort(pauses.begin(), pauses.end(),
                     [](const models::PauseInterval& a, const models::PauseInterval& b) {
                       return std::tie(a.end, a.tag, a.priority) <
                              std::tie(b.end, b.tag, b.priority);
                     });
    add_run_spans(*st.timeline, pauses, out);
    net->ctx.timeline = nullptr;
    out.timeline = std::move(st.timeline);
  }

  out.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - st.wall_start).count();
  out.peak_rss_kb = peak_rss_kb();
  out.huge_pages_kb = huge_pages_kb();
  if (sim::log_enabled(sim::LogLevel::Debug)) {
    for (const models::CollectiveResult& c : out.collectives) {
      sim::log_debug("collective " + std::to_string(c.collective) + ": " + to_string(c.op) + " " +
                     std::to_string(c.size_bytes) + " B by " + to_string(c.algorithm) + "/" +
                     to_string(c.protocol) + " in " + std::to_string(c.time.ps / 1000) + " ns");
    }
  }
  if (sim::log_enabled(sim::LogLevel::Info)) {
    sim::log_info("scenario " + s.name + ": simulated until " +
                  std::to_string(out.end_time.ps / 1000) + " ns (" +
                  out.results.value("stop_reason", std::string("?")) + "), " +
                  std::to_string(out.events) + " events in " +
                  std::to_string(static_cast<int64_t>(out.wall_seconds * 1000)) + " ms, " +
                  std::to_string(out.warnings.size()) + " warning(s)");
  }
  return out;
}

RunOutcome run_scenario(const Scenario& s, const RunOptions& options) {
  ScenarioRun run(s, options);
  run.advance(s.stop_time);
  return run.finish();
}

}  // namespace scen