// The library API (include/rdmasim/simulation.hpp) over a ScenarioRun: messages posted through
// it are flows of the transport like any workload's (tag "api"), so they share the fabric,
// its congestion control and its results with the scenario's own traffic.
#include <deque>
#include <rdmasim/simulation.hpp>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "models/network.hpp"
#include "models/roce/deadlock_detector.hpp"
#include "models/transport.hpp"
#include "scenarios/loader/input_error.hpp"
#include "scenarios/loader/json_reader.hpp"
#include "scenarios/loader/qos_section.hpp"
#include "scenarios/loader/scenario.hpp"
#include "scenarios/outputs/write_outputs.hpp"
#include "scenarios/run/run_scenario.hpp"

namespace rdmasim {
namespace {

// Random stream of the UDP source ports (ECMP entropy) of messages posted through the API:
// its own, so that posting them leaves every other stream of the run as it was.
constexpr uint64_t kStreamApiSport = 0x41504953ULL;  // "APIS"

// Bad input of the loader or of a call, as the library's InputError.
template <class F>
auto translating_input_errors(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const scen::InputError& e) {
    throw InputError(e.what());
  }
}

Picoseconds ps(sim::Time t) {
  return t.ps;
}

}  // namespace

struct Simulation::Impl final : models::CompletionListener {
  enum EventKind : uint32_t { kCallback = 1, kHorizon = 2 };
  using Key = std::tuple<uint32_t, uint32_t, uint32_t>;  // src host, dst host, tag

  struct Posted {
    Message message;
    uint32_t src_host = 0, dst_host = 0;
    std::function<void(const Message&)> on_complete;
  };

  explicit Impl(scen::Scenario s) : scenario(std::move(s)) {
    const topo::Fabric& f = scenario.fabric;
    for (size_t h = 0; h < f.host_node.size(); ++h) {
      host_number.emplace(f.topo.nodes[f.host_node[h]].name, static_cast<uint32_t>(h));
    }
    gpu_of_host.assign(f.host_node.size(), -1);
    for (int g = 0; g < f.topo.gpus.gpus(); ++g) {
      gpu_of_host[static_cast<size_t>(f.host_index[f.topo.gpus.nvlink_node[g]])] = g;
    }
  }

  // Where a message between hosts `from` and `to` enters and leaves the network: a GPU's
  // messages to anything outside its server go through its NIC (the first NIC of its
  // channels, as an NCCL point-to-point send without PXN), GPUDirect RDMA over the NIC's PCIe
  // path; inside its server they cross NVLink, endpoint to endpoint.
  std::pair<uint32_t, uint32_t> network_ends(uint32_t from, uint32_t to) const {
    const topo::Fabric& f = scenario.fabric;
    const topo::GpuCluster& gpus = f.topo.gpus;
    const int gs = gpu_of_host[from], gd = gpu_of_host[to];
    const int server_s = gs >= 0 ? gpus.server_of(gs) : -1;
    const int server_d = gd >= 0 ? gpus.server_of(gd) : -1;
    if (gs >= 0 && gd >= 0 && server_s == server_d) return {from, to};
    const auto nic_of = [&](int gpu) {
      return static_cast<uint32_t>(f.host_index[gpus.nic_nodes[gpu].front()]);
    };
    return {gs >= 0 ? nic_of(gs) : from, gd >= 0 ? nic_of(gd) : to};
  }

  // The API's events (callbacks, the horizon of run_until): a handler of the run's simulator,
  // numbered after the network's (sim::EventHandler), so built with the run.
  struct Events final : sim::EventHandler {
    Events(sim::Simulator& sim, Impl& im) : EventHandler(sim), impl(im) {}
    void on_event(uint32_t kind, uint64_t arg) override { impl.on_event(kind, arg); }
    Impl& impl;
  };

  void start(const scen::RunOptions& options) {
    run = std::make_unique<scen::ScenarioRun>(scenario, options);
    events.emplace(run->simulator(), *this);
    run->network().transport->add_listener(this);
    sport_rng.emplace(run->simulator().rng(kStreamApiSport));
  }

  scen::ScenarioRun& active() {
    if (!run) throw std::logic_error("rdmasim::Simulation: the run has finished");
    return *run;
  }

  uint32_t host(const std::string& name, const char* what) const {
    const auto it = host_number.find(name);
    if (it == host_number.end()) {
      throw scen::InputError(what, name, "a host of the topology (Simulation::hosts())");
    }
    return it->second;
  }

  // Transport listener: a message posted through the API has been delivered or completed.
  void on_flow_delivered(uint32_t flow) override {
    const auto it = message_of_flow.find(flow);
    if (it == message_of_flow.end()) return;
    Posted& p = posted.at(it->second);
    p.message.delivered = ps(run->simulator().now());
    const Key key{p.src_host, p.dst_host, p.message.tag};
    auto waiting = receives.find(key);
    if (waiting != receives.end() && !waiting->second.empty()) {
      auto callback = std::move(waiting->second.front());
      waiting->second.pop_front();
      if (waiting->second.empty()) receives.erase(waiting);
      const Message m = p.message;
      callback(m);
    } else {
      unclaimed[key].push_back(p.message);
    }
  }
  void on_flow_complete(uint32_t flow) override {
    // run_until_done: the run stops as soon as everything posted has completed (the
    // scenario's own watcher asks for that once only, and only under stop.until
    // "workload-done").
    if (stop_when_done && done()) run->simulator().stop();
    const auto it = message_of_flow.find(flow);
    if (it == message_of_flow.end()) return;
    const uint64_t id = it->second;
    message_of_flow.erase(it);
    Posted p = std::move(posted.at(id));
    posted.erase(id);
    p.message.completed = ps(run->simulator().now());
    if (p.on_complete) p.on_complete(p.message);
  }

  // Scheduled callbacks and the horizon of run_until.
  void on_event(uint32_t kind, uint64_t arg) {
    if (kind != kCallback) return;
    const auto it = callbacks.find(arg);
    if (it == callbacks.end()) return;
    auto callback = std::move(it->second);
    callbacks.erase(it);
    callback();
    if (stop_when_done && done()) run->simulator().stop();
  }

  // Nothing posted is left to do: every message, collective and training step has completed
  // and no scheduled callback is pending (a receive still waiting counts for nothing: no
  // message may ever match it).
  bool done() const { return callbacks.empty() && run->workload_done(); }

  scen::Scenario scenario;  // before `run`, which refers to it
  std::unique_ptr<scen::ScenarioRun> run;
  std::optional<Events> events;  // after `run`, whose simulator numbers it
  std::optional<scen::RunOutcome> outcome;
  std::unordered_map<std::string, uint32_t> host_number;
  std::vector<int> gpu_of_host;  // [host number] the GPU whose NVLink endpoint it is, or -1
  std::optional<sim::Rng> sport_rng;
  uint64_t next_message = 1;
  std::unordered_map<uint32_t, uint64_t> message_of_flow;
  std::unordered_map<uint64_t, Posted> posted;
  std::map<Key, std::deque<Message>> unclaimed;  // delivered, no recv() yet
  std::map<Key, std::deque<std::function<void(const Message&)>>> receives;
  bool stop_when_done = false;  // inside run_until_done
  uint64_t next_callback = 1;
  std::unordered_map<uint64_t, std::function<void()>> callbacks;
};

namespace {

scen::LoadOptions loader_options(const LoadOptions& o) {
  scen::LoadOptions lo;
  lo.sets = o.sets;
  lo.has_seed = o.seed.has_value();
  lo.seed = o.seed.value_or(0);
  lo.fabric = o.fabric;
  lo.max_memory_bytes = o.max_memory_bytes;
  lo.allow_empty_workload = true;  // the traffic may all come from send()
  return lo;
}

scen::RunOptions run_options(const LoadOptions& o) {
  scen::RunOptions ro;
  ro.max_memory_bytes = o.max_memory_bytes;
  return ro;
}

Results results_of(const scen::Scenario& s, const scen::RunOutcome& out) {
  Results r;
  r.stop_reason = out.results.value("stop_reason", std::string());
  r.end_time = ps(out.end_time);
  r.events = out.events;
  r.packet_hops = out.packet_hops;
  r.wall_seconds = out.wall_seconds;
  for (const scen::FlowResult& f : out.flows) {
    FlowRecord rec;
    rec.id = f.id;
    rec.tag = f.tag;
    rec.src = f.src;
    rec.dst = f.dst;
    rec.bytes = f.bytes;
    rec.priority = f.priority;
    rec.completed = f.completed;
    rec.start = ps(f.start);
    rec.finish = ps(f.finish);
    rec.fct = ps(f.fct);
    rec.ideal_fct = ps(f.ideal_fct);
    rec.retransmitted_packets = f.retransmitted_packets;
    rec.timeouts = f.timeouts;
    r.flows.push_back(std::move(rec));
  }
  for (const auto& [name, value] : out.counters.items()) {
    if (value.is_number_unsigned()) {
      r.counters[name] = value.get<uint64_t>();
    } else if (value.is_number_integer() && value.get<int64_t>() >= 0) {
      r.counters[name] = static_cast<uint64_t>(value.get<int64_t>());
    }
  }
  r.results_json = out.results.dump(2);
  r.summary_json = scen::summary_json(s, out);
  for (const scen::RunWarning& w : out.warnings) r.warnings.push_back(w.code + ": " + w.message);
  return r;
}

}  // namespace

Simulation::Simulation(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Simulation::Simulation(Simulation&&) noexcept = default;
Simulation& Simulation::operator=(Simulation&&) noexcept = default;
Simulation::~Simulation() = default;

Simulation Simulation::from_file(const std::string& path, const LoadOptions& options) {
  return translating_input_errors([&] {
    auto impl = std::make_unique<Impl>(scen::load_scenario_file(path, loader_options(options)));
    impl->start(run_options(options));
    return Simulation(std::move(impl));
  });
}

Simulation Simulation::from_json(const std::string& json, const LoadOptions& options,
                                 const std::string& base_dir) {
  return translating_input_errors([&] {
    scen::Json root = scen::parse_json_text(json, "<json>");
    auto impl = std::make_unique<Impl>(
        scen::load_scenario_json(std::move(root), base_dir, loader_options(options)));
    impl->start(run_options(options));
    return Simulation(std::move(impl));
  });
}

std::string Simulation::name() const {
  return impl_->scenario.name;
}

std::vector<std::string> Simulation::gpus() const {
  std::vector<std::string> names;
  const topo::Fabric& f = impl_->scenario.fabric;
  for (int node : f.topo.gpus.nvlink_node) names.push_back(f.topo.nodes[node].name);
  return names;
}

std::vector<std::string> Simulation::hosts() const {
  std::vector<std::string> names;
  const topo::Fabric& f = impl_->scenario.fabric;
  for (int node : f.host_node) names.push_back(f.topo.nodes[node].name);
  return names;
}

Picoseconds Simulation::now() const {
  if (impl_->run) return ps(impl_->run->simulator().now());
  return impl_->outcome ? ps(impl_->outcome->end_time) : 0;
}

uint64_t Simulation::send(const std::string& src, const std::string& dst, int64_t bytes,
                          std::function<void(const Message&)> on_complete,
                          const MessageOptions& options) {
  return translating_input_errors([&]() -> uint64_t {
    Impl& im = *impl_;
    scen::ScenarioRun& run = im.active();
    const scen::Scenario& s = im.scenario;
    models::Network& net = run.network();
    const uint32_t from = im.host(src, "send.src"), to = im.host(dst, "send.dst");
    if (from == to) throw scen::InputError("send.dst", dst, "a host other than the sender");
    const auto [net_from, net_to] = im.network_ends(from, to);
    const size_t hosts = s.fabric.host_node.size();
    if (net.routes.distance[static_cast<size_t>(s.fabric.host_node[net_from]) * hosts + net_to] <
        0) {
      throw scen::InputError("send.dst", dst,
                             "a host the fabric connects to " + src + " (after link failures)");
    }
    // The message's class and striping read as a workload entry's, with its checks.
    scen::Json entry = scen::Json::object();
    entry["bytes"] = bytes;
    if (options.priority) entry["priority"] = *options.priority;
    entry["qps"] = options.qps;
    scen::JsonReader r(entry, "send");
    const int64_t size = r.integer("bytes", 1, int64_t{1} << 40);
    const scen::TrafficClass tc = scen::read_traffic_class(
        r, scen::TrafficClass{s.nic.data_priority, s.nic.data_dscp}, s.qos, s.nic);
    models::FlowSpec fs;
    fs.src_host = static_cast<int>(net_from);
    fs.dst_host = static_cast<int>(net_to);
    fs.bytes = size;
    fs.start = run.simulator().now();
    fs.priority = tc.priority;
    fs.dscp = tc.dscp;
    fs.qps = static_cast<int>(r.integer("qps", 1, 64));
    fs.tag = "api";
    fs.transport = options.transport == Transport::Tcp    ? models::FlowTransport::Tcp
                   : options.transport == Transport::Rdma ? models::FlowTransport::Rdma
                                                          : models::FlowTransport::Fabric;
    models::Transport& transport = *net.transport;
    // TCP asked for needs hosts with a kernel stack (a fabric whose default it is builds
    // them): never on InfiniBand, and only in a scenario whose hosts run TCP.
    if (fs.transport == models::FlowTransport::Tcp &&
        s.fabric_kind == scen::FabricKind::Infiniband) {
      throw scen::InputError("send.transport", "tcp", "rdma on an InfiniBand fabric");
    }
    if (fs.transport == models::FlowTransport::Tcp && (!net.tcp || !transport.is_tcp(fs))) {
      throw scen::InputError("send.transport", "tcp",
                             "rdma, or a scenario whose hosts run TCP (fabric.transport "
                             "\"tcp\", or a flow with \"transport\": \"tcp\")");
    }
    // RoCEv2's entropy is the UDP source port (49152+), as for the workload's flows.
    const auto sport = static_cast<uint16_t>(49152 + im.sport_rng->below(16384 - fs.qps));
    const uint32_t flow = transport.add_flow(fs, 0, sport);
    const uint64_t id = im.next_message++;
    Impl::Posted p;
    p.message.id = id;
    p.message.src = src;
    p.message.dst = dst;
    p.message.bytes = size;
    p.message.tag = options.tag;
    p.message.posted = ps(fs.start);
    p.src_host = from;
    p.dst_host = to;
    p.on_complete = std::move(on_complete);
    im.posted.emplace(id, std::move(p));
    im.message_of_flow.emplace(flow, id);
    transport.start_flow(flow);
    return id;
  });
}

void Simulation::recv(const std::string& src, const std::string& dst, uint32_t tag,
                      std::function<void(const Message&)> on_receive) {
  translating_input_errors([&] {
    Impl& im = *impl_;
    im.active();
    const Impl::Key key{im.host(src, "recv.src"), im.host(dst, "recv.dst"), tag};
    auto it = im.unclaimed.find(key);
    if (it != im.unclaimed.end()) {
      const Message m = it->second.front();
      it->second.pop_front();
      if (it->second.empty()) im.unclaimed.erase(it);
      if (on_receive) on_receive(m);
      return;
    }
    im.receives[key].push_back(std::move(on_receive));
  });
}

void Simulation::schedule(Picoseconds delay, std::function<void()> callback) {
  translating_input_errors([&] {
    if (delay < 0) {
      throw scen::InputError("schedule.delay", std::to_string(delay) + " ps",
                             "a delay of 0 or more");
    }
    Impl& im = *impl_;
    sim::Simulator& sim = im.active().simulator();
    if (delay > sim::Time::max().ps - sim.now().ps) {
      throw scen::InputError("schedule.delay", std::to_string(delay) + " ps",
                             "a delay that ends before the clock's largest time");
    }
    const uint64_t id = im.next_callback++;
    im.callbacks.emplace(id, std::move(callback));
    sim.after(sim::Time(delay), &*im.events, Impl::kCallback, id);
  });
}

void Simulation::run_until(Picoseconds time) {
  Impl& im = *impl_;
  scen::ScenarioRun& run = im.active();
  sim::Simulator& sim = run.simulator();
  if (time <= sim.now().ps) return;
  // An event at `time` itself: the clock reads `time` afterwards even when the network is
  // idle before it.
  sim.at(sim::Time(time), &*im.events, Impl::kHorizon);
  // The workload finishing asks the run to stop; stepping goes on to `time`.
  while (run.advance(sim::Time(time)) == sim::StopReason::Requested && sim.now().ps < time) {
  }
}

bool Simulation::run_until_done(Picoseconds limit) {
  Impl& im = *impl_;
  scen::ScenarioRun& run = im.active();
  im.stop_when_done = true;
  const models::DeadlockDetector* detector = run.network().deadlock.get();
  while (!im.done()) {
    const size_t deadlocks = detector ? detector->events().size() : 0;
    // Idle or at the limit; or stopped by a deadlock (stop.on_deadlock "stop"). The scenario's
    // own stop at its workload's end may come while callbacks are pending: go on.
    if (run.advance(sim::Time(limit)) != sim::StopReason::Requested) break;
    if (detector && detector->events().size() > deadlocks && run.scenario().stop_on_deadlock) {
      break;
    }
  }
  im.stop_when_done = false;
  return im.done();
}

std::map<std::string, uint64_t> Simulation::counters() const {
  if (!impl_->run)
    return impl_->outcome ? results_of(impl_->scenario, *impl_->outcome).counters
                          : std::map<std::string, uint64_t>{};
  const scen::ScenarioRun& run = *impl_->run;
  std::map<std::string, uint64_t> c(run.simulator().counters().begin(),
                                    run.simulator().counters().end());
  c["events"] = run.simulator().events_executed();
  c["packet_hops"] = run.network().packet_hops();
  c["packets_in_flight"] = run.network().packets_in_flight();
  c["flows_done"] = run.network().transport->flows_done();
  c["flows"] = run.network().transport->flow_count();
  return c;
}

Results Simulation::run() {
  Impl& im = *impl_;
  scen::ScenarioRun& run = im.active();
  // As `rdmasim run`: one advance to stop.time, ended early by the workload's completion
  // (also after earlier steps) or by a deadlock.
  im.stop_when_done = im.scenario.stop_when_done;
  run.advance(im.scenario.stop_time);
  im.stop_when_done = false;
  return finish();
}

Results Simulation::finish() {
  Impl& im = *impl_;
  im.active();
  im.outcome = im.run->finish();
  im.events.reset();
  im.run.reset();
  return results_of(im.scenario, *im.outcome);
}

void Simulation::write_outputs(const std::string& dir) const {
  if (!impl_->outcome) {
    throw std::logic_error("rdmasim::Simulation::write_outputs: run() or finish() first");
  }
  scen::write_outputs(impl_->scenario, *impl_->outcome, dir);
}

std::string version() {
  return RDMASIM_VERSION;
}

}  // namespace rdmasim
