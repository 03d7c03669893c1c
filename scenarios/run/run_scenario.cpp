#include "scenarios/run/run_scenario.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <stdexcept>

#include "models/ideal_fct.hpp"
#include "scenarios/builder/build_network.hpp"
#include "scenarios/loader/input_error.hpp"
#include "scenarios/outputs/percentiles.hpp"
#include "scenarios/run/ib_cc_results.hpp"
#include "scenarios/run/infiniband_results.hpp"
#include "scenarios/run/link_event_schedule.hpp"
#include "scenarios/run/routing_results.hpp"
#include "scenarios/run/run_timeline.hpp"

namespace scen {
namespace {

// Stops the run once every flow has completed (stop condition "workload-done").
class DoneWatcher final : public models::CompletionListener {
 public:
  DoneWatcher(sim::Simulator& sim, const models::Transport& t, models::TimeseriesSampler* sampler)
      : sim_(sim), transport_(t), sampler_(sampler) {}
  void on_flow_complete(uint32_t) override { check(); }
  // Collectives post messages while running: the workload is done once they have finished too.
  void check() {
    for (const auto& c : collectives_) {
      if (!c->done()) return;
    }
    for (const auto& t : training_) {
      if (!t->done()) return;
    }
    if (transport_.flows_done() == transport_.flow_count() && !stopped_) {
      stopped_ = true;
      if (sampler_ != nullptr) sampler_->stop();
      if (stop_) sim_.stop();
    }
  }
  bool stop_ = true;
  std::vector<std::unique_ptr<models::CollectiveRunner>> collectives_;
  std::vector<std::unique_ptr<models::TrainingRunner>> training_;

 private:
  sim::Simulator& sim_;
  const models::Transport& transport_;
  models::TimeseriesSampler* sampler_;
  bool stopped_ = false;
};

class ProgressLine final : public sim::ProgressHook {
 public:
  ProgressLine(const sim::Simulator& sim, sim::Time limit) : sim_(sim), limit_(limit) {
    start_ = std::chrono::steady_clock::now();
  }
  void on_progress() override {
    const double wall = seconds();
    if (wall < 2.0) return;
    const double sim_us = sim_.now().us();
    std::string pct = "";
    std::string eta = "";
    if (limit_ != sim::Time::max() && limit_.ps > 0) {
      const double frac = sim_.now().seconds() / limit_.seconds();
      char b[64];
      std::snprintf(b, sizeof b, " %5.1f%%", 100.0 * frac);
      pct = b;
      if (frac > 0) {
        std::snprintf(b, sizeof b, " ETA %.0fs", wall * (1 - frac) / frac);
        eta = b;
      }
    }
    std::fprintf(stderr, "\r  simulated %.3f us%s  %.2f M events/s%s   ", sim_us, pct.c_str(),
                 static_cast<double>(sim_.events_executed()) / wall / 1e6, eta.c_str());
    shown_ = true;
  }
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  ~ProgressLine() {
    if (shown_) std::fprintf(stderr, "\n");
  }

 private:
  const sim::Simulator& sim_;
  sim::Time limit_;
  std::chrono::steady_clock::time_point start_;
  bool shown_ = false;
};

int64_t peak_rss_kb() {
  struct rusage ru {};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
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

RunOutcome run_scenario(const Scenario& s, const RunOptions& options) {
  const auto wall_start = std::chrono::steady_clock::now();
  sim::Simulator sim(s.seed);
  auto net = build_network(s, sim);
  const topo::Fabric& f = s.fabric;

  std::unique_ptr<models::TimeseriesSampler> sampler;
  RunOutcome out;
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
            net->dcqcn->trace(fl.first_qp + k, &net->rate_log);
          }
        }
      }
      trace_ib_cc(s, *net);
    }
    sampler->start();
  }
  std::shared_ptr<models::TimelineRecorder> timeline;
  std::vector<models::PauseInterval> pauses;  // tagged with the link direction
  if (options.timeline.enabled) {
    check_timeline_ports(options.timeline, f);
    timeline = std::make_shared<models::TimelineRecorder>(options.timeline);
    net->ctx.timeline = timeline.get();
    for (size_t d = 0; d < net->link_gate.size(); ++d) {
      if (net->link_gate[d] != nullptr) {
        net->link_gate[d]->record_pauses(&pauses, static_cast<uint32_t>(d));
      }
    }
  }
  DoneWatcher watcher(sim, *net->transport, sampler.get());
  watcher.stop_ = s.stop_when_done;
  for (size_t i = 0; i < s.collectives.size(); ++i) {
    watcher.collectives_.push_back(std::make_unique<models::CollectiveRunner>(
        net->ctx, *net->transport, s.collectives[i], static_cast<uint32_t>(i), s.seed));
    watcher.collectives_.back()->set_on_done([&watcher] { watcher.check(); });
    watcher.collectives_.back()->set_sharp(net->sharp.get());  // InfiniBand only
    watcher.collectives_.back()->start();  // listens before the watcher: posts come first
  }
  for (size_t i = 0; i < s.training.size(); ++i) {
    watcher.training_.push_back(std::make_unique<models::TrainingRunner>(
        net->ctx, *net->transport, s.training[i], static_cast<uint32_t>(s.collectives.size() + i),
        s.seed));
    watcher.training_.back()->set_on_done([&watcher] { watcher.check(); });
    watcher.training_.back()->set_sharp(net->sharp.get());
    watcher.training_.back()->start();
  }
  net->transport->add_listener(&watcher);
  net->transport->schedule_starts();
  if (net->deadlock) net->deadlock->start();
  for (auto& storm : net->pause_storms) storm->start();
  std::unique_ptr<LinkEventSchedule> link_events;  // link_event_schedule.hpp
  if (!s.link_events.empty()) {
    link_events = std::make_unique<LinkEventSchedule>(s, *net);
    link_events->start();
  }

  std::unique_ptr<ProgressLine> progress;
  if (options.progress) {
    progress = std::make_unique<ProgressLine>(sim, s.stop_time);
    sim.set_progress(progress.get(), 1 << 20);
  }
  out.reason = sim.run(s.stop_time);
  progress.reset();
  out.end_time = sim.now();
  out.events = sim.events_executed();
  out.packet_hops = net->ctx.packet_hops;

  // Per-flow results.
  const auto& tr = *net->transport;
  // Messages whose slots were reused (collectives) count as they would have.
  uint64_t retransmitted = tr.retired().retransmitted_packets, timeouts = tr.retired().timeouts,
           nacks = tr.retired().nacks_received, duplicates = tr.retired().duplicate_packets;
  for (uint32_t i = 0; i < tr.flow_count(); ++i) {
    const models::FlowState& fl = tr.flow(i);
    const bool collective = fl.spec.tag == "collective";  // reported in collectives.csv
    FlowResult r;
    r.id = i;
    r.tag = fl.spec.tag;
    r.src = f.topo.nodes[f.host_node[fl.spec.src_host]].name;
    r.dst = f.topo.nodes[f.host_node[fl.spec.dst_host]].name;
    r.bytes = fl.spec.bytes;
    r.priority = fl.spec.priority;
    r.qps = static_cast<int>(fl.qp_count);
    r.start = fl.spec.start;
    r.completed = fl.done;
    if (fl.done) {
      r.finish = fl.finish;
      r.fct = fl.finish - fl.spec.start;
    }
    uint64_t delivered = 0;
    for (uint32_t k = 0; k < fl.qp_count; ++k) {
      const models::QueuePair& qp = tr.qp(fl.first_qp + k);
      r.retransmitted_packets += qp.retransmitted_packets;
      r.timeouts += qp.timeouts;
      nacks += qp.nacks_received;
      duplicates += qp.duplicate_packets;
      delivered += qp.delivered_bytes;
    }
    // Conservation of bytes: a completed message was delivered exactly once, in order.
    if (fl.done && delivered != static_cast<uint64_t>(fl.spec.bytes)) {
      throw std::logic_error("flow " + std::to_string(i) + " completed with " +
                             std::to_string(delivered) + " of " + std::to_string(fl.spec.bytes) +
                             " bytes delivered");
    }
    retransmitted += r.retransmitted_packets;
    timeouts += r.timeouts;
    if (collective) continue;
    const models::QueuePair& q0 = tr.qp(fl.first_qp);
    const auto data = trace_path(s, *net, q0.src_host, q0.dst_host, q0.udp_sport, q0.route_id);
    const auto ack = trace_path(s, *net, q0.dst_host, q0.src_host, q0.udp_sport, 0);
    if (!data.empty() && !ack.empty()) r.ideal_fct = models::ideal_fct(data, ack, r.bytes, s.nic);
    out.flows.push_back(std::move(r));
  }

  // Per-link results; drops counted at the sending port.
  uint64_t tail_drops = 0, ttl_drops = 0, no_route = 0, lost = 0, lossless_drops = 0;
  uint64_t pause_consumed = 0;
  Json exhaustions = Json::array();
  for (const auto& sw : net->switches) {
    lossless_drops += sw->stats().lossless_drops;
    pause_consumed += sw->stats().pause_frames_received;
    for (const auto& e : sw->headroom_exhaustions()) {
      exhaustions.push_back({{"time_ns", format_ns(e.time)},
                             {"switch", sw->name()},
                             {"port", e.port},
                             {"priority", e.priority}});
    }
    tail_drops += sw->stats().tail_drops;
    ttl_drops += sw->stats().ttl_drops;
    no_route += sw->stats().no_route_drops;
  }
  for (size_t i = 0; i < net->links.size(); ++i) {
    const topo::Link& l = f.topo.links[i / 2];
    const int dir = static_cast<int>(i % 2);
    models::EgressPort& port = *net->link_sender[i];
    port.finish_accounting();
    LinkResult r;
    r.link = static_cast<int>(i / 2);
    r.direction = dir;
    r.from = f.topo.nodes[dir == 0 ? l.a : l.b].name;
    r.to = f.topo.nodes[dir == 0 ? l.b : l.a].name;
    r.from_port = dir == 0 ? l.a_port : l.b_port;
    r.to_port = dir == 0 ? l.b_port : l.a_port;
    r.rate_bps = l.rate_bps;
    r.wire_bytes = net->links[i]->stats().wire_bytes;
    r.packets = net->links[i]->stats().packets;
    r.lost_packets = net->links[i]->stats().lost_packets;
    lost += r.lost_packets;
    const models::EgressStats port_stats = port.stats();
    r.tail_drops = port_stats.tail_drops;
    for (auto q : port_stats.max_queue_bytes) r.max_queue_bytes = std::max(r.max_queue_bytes, q);
    r.class_packets = port_stats.class_packets;
    r.class_wire_bytes = port_stats.class_wire_bytes;
    r.class_max_queue_bytes = port_stats.max_queue_bytes;
    r.class_tail_drops = port_stats.class_tail_drops;
    const int to_node = dir == 0 ? l.b : l.a;
    if (f.host_index[to_node] < 0) {
      const models::SwitchBuffer& buf = net->switches[net->node_switch[to_node]]->buffer();
      for (int c = 0; c < buf.classes(); ++c) {
        r.class_peak_ingress_bytes[c] =
            buf.peak_ingress_bytes(static_cast<uint16_t>(r.to_port), static_cast<uint8_t>(c));
      }
    }
    r.busy = port_stats.busy_time;
    r.stalled = port_stats.stalled_time;
    r.up = net->links[i]->up();
    if (!net->link_marker.empty() && net->link_marker[i] != nullptr) {
      r.ecn_marks = net->link_marker[i]->marks();
      for (int c = 0; c < models::kPriorities; ++c) {
        r.class_ecn_marks[c] = net->link_marker[i]->marks(static_cast<uint8_t>(c));
      }
    }
    if (!net->link_gate.empty()) {
      models::PfcGate& gate = *net->link_gate[i];
      gate.finish_accounting();
      r.pause_frames_received = gate.stats().pause_frames_received;
      r.paused = gate.stats().paused_time;
      r.class_pause_frames_received = gate.stats().frames_by_priority;
      r.class_paused = gate.stats().paused_by_priority;
      const int from = dir == 0 ? l.a : l.b;
      if (f.host_index[from] < 0) {
        const auto& ps = net->pfc_ingress[net->node_switch[from]]->port_stats(r.from_port);
        r.pause_frames_sent = ps.pause_frames_sent + ps.resume_frames_sent;
      } else {  // NIC-sent PFC (receive-buffer pressure)
        const models::NicStats& ns = net->nics[f.host_index[from]]->stats();
        r.pause_frames_sent = ns.pause_frames_sent + ns.resume_frames_sent;
      }
    }
    out.links.push_back(std::move(r));
  }
  // PFC frames sent, per link direction and class, from the event log (switch and NIC frames).
  if (!net->pfc_log.empty()) {
    std::map<std::pair<int, int>, size_t> direction_of;  // (node, port) -> out.links index
    for (size_t i = 0; i < out.links.size(); ++i) {
      const topo::Link& l = f.topo.links[i / 2];
      const bool a_side = i % 2 == 0;
      direction_of[{a_side ? l.a : l.b, out.links[i].from_port}] = i;
    }
    for (const models::PfcEvent& e : net->pfc_log) {
      const auto it = direction_of.find({e.node, e.port});
      if (it == direction_of.end()) continue;
      LinkResult& r = out.links[it->second];
      if (e.kind == models::PfcEvent::Resume) {
        ++r.class_resume_frames_sent[e.priority];
      } else {
        ++r.class_pause_frames_sent[e.priority];
        if (e.kind == models::PfcEvent::Pause) ++r.class_xoff_transitions[e.priority];
      }
    }
  }

  // Conservation of packets: every packet ever created was consumed by a NIC, dropped, or is
  // still in the network.
  uint64_t consumed = 0, data_sent = 0, acks = 0, rx_overflow = 0;
  for (const auto& nic : net->nics) {
    nic->finish_accounting();
    rx_overflow += nic->stats().rx_overflow_drops;
    consumed += nic->stats().data_packets_received + nic->stats().acks_received +
                nic->stats().pause_frames_received + nic->stats().cnps_received;
    data_sent += nic->stats().data_packets_sent;
    acks += nic->stats().acks_sent + nic->stats().nacks_sent;
  }
  const uint64_t created = net->pool.allocated_total();
  consumed += pause_consumed + flow_control_consumed(*net);
  if (net->sharp) consumed += net->sharp->packets_consumed();  // SHARP nodes and results
  uint64_t watchdog_drops = 0;  // the PFC watchdog's drop action (EgressPort::discard)
  for (const models::EgressPort* port : net->link_sender)
    watchdog_drops += port->discarded_packets();
  const uint64_t dropped =
      tail_drops + ttl_drops + no_route + lost + lossless_drops + rx_overflow + watchdog_drops;
  const uint64_t in_flight = net->pool.live();
  if (created != consumed + dropped + in_flight) {
    throw std::logic_error("packet conservation broken: created " + std::to_string(created) +
                           " != consumed " + std::to_string(consumed) + " + dropped " +
                           std::to_string(dropped) + " + in flight " + std::to_string(in_flight));
  }

  if (sampler) {
    sampler->finish();
    out.samples = sampler->samples();
    out.flow_samples = sampler->flow_samples();
  }
  out.rate_changes = net->rate_log;

  // Headline results.
  std::vector<int64_t> fcts, slowdowns_milli;
  int64_t payload = 0;
  sim::Time first_start = sim::Time::max(), last_finish;
  size_t completed = 0;
  for (const auto& r : out.flows) {
    if (!r.completed) continue;
    ++completed;
    fcts.push_back(r.fct.ps);
    if (r.ideal_fct.ps > 0) slowdowns_milli.push_back(r.fct.ps * 1000 / r.ideal_fct.ps);
    payload += r.bytes;
    first_start = std::min(first_start, r.start);
    last_finish = std::max(last_finish, r.finish);
  }
  Json res;
  res["stop_reason"] = sim::to_string(out.reason);
  res["end_time_ns"] = format_ns(out.end_time);
  res["flows"] = out.flows.size();
  res["flows_completed"] = completed;
  res["fct_p50_ns"] = format_ns(sim::Time(nearest_rank(fcts, 50)));
  res["fct_p99_ns"] = format_ns(sim::Time(nearest_rank(fcts, 99)));
  res["fct_max_ns"] = format_ns(sim::Time(nearest_rank(fcts, 100)));
  res["slowdown_p50"] = format_milli(nearest_rank(slowdowns_milli, 50));
  res["slowdown_p99"] = format_milli(nearest_rank(slowdowns_milli, 99));
  res["payload_bytes_delivered"] = payload;
  if (completed > 0 && last_finish > first_start) {
    // Aggregate goodput: payload of completed flows over the span from first start to last
    // finish, in Gb/s with three decimals (integer arithmetic).
    const __int128 milli_gbps =
        static_cast<__int128>(payload) * 8 * 1000 * 1000 / (last_finish - first_start).ps;
    res["goodput_gbps"] = format_milli(static_cast<int64_t>(milli_gbps));
  }
  res["data_packets_sent"] = data_sent;
  res["retransmitted_packets"] = retransmitted;
  res["timeouts"] = timeouts;
  res["nacks"] = nacks;
  res["duplicate_packets"] = duplicates;
  res["drops"] = {{"tail", tail_drops},
                  {"ttl", ttl_drops},
                  {"no_route", no_route},
                  {"link_loss", lost},
                  {"lossless", lossless_drops}};
  if (s.nic.rx_drain_rate_bps > 0) {
    // The host receive path: only shown when modelled, so default runs are unchanged.
    res["drops"]["nic_rx_overflow"] = rx_overflow;
    int64_t peak = 0;
    uint64_t pauses = 0, resumes = 0, xoffs = 0;
    sim::Time asserted;
    for (const auto& nic : net->nics) {
      const models::NicStats& ns = nic->stats();
      peak = std::max(peak, ns.rx_buffer_peak_bytes);
      pauses += ns.pause_frames_sent;
      resumes += ns.resume_frames_sent;
      xoffs += ns.xoff_transitions;
      asserted += ns.pause_asserted_time;
    }
    res["nic_rx"] = {{"drain_rate_gbps", format_milli(s.nic.rx_drain_rate_bps / 1'000'000)},
                     {"rx_buffer_peak_bytes", peak},
                     {"nic_rx_overflow_drops", rx_overflow},
                     {"pause_frames", pauses},
                     {"resume_frames", resumes},
                     {"xoff_transitions", xoffs},
                     {"pause_asserted_ns", format_ns(asserted)}};
  }
  if (s.ecn.enabled || !net->ecn_markers.empty()) {
    uint64_t marks = 0, ce = 0;
    for (const auto& lr : out.links) marks += lr.ecn_marks;
    for (const auto& nic : net->nics) ce += nic->stats().ce_marked_received;
    res["ecn"] = {{"marks", marks}, {"ce_packets_received", ce}};
  }
  if (s.dcqcn.enabled) {
    uint64_t cnps_sent = 0, cnps_received = 0, flags = 0;
    for (const auto& nic : net->nics) {
      cnps_sent += nic->stats().cnps_sent;
      cnps_received += nic->stats().cnps_received;
      flags += nic->stats().congestion_flags_received;
    }
    const models::DcqcnStats& ds = net->dcqcn->stats();
    res["dcqcn"] = {{"preset", s.dcqcn.preset},
                    {"cnps_sent", cnps_sent},
                    {"cnps_received", cnps_received},
                    {"congestion_flagged_acks", flags},
                    {"rate_decreases", ds.rate_decreases},
                    {"rate_increases", ds.rate_increases},
                    {"limiters_released", ds.limiters_released},
                    {"min_rate_gbps", format_milli(ds.min_rate_bps / 1'000'000)}};
  }
  if (s.pfc.enabled) {
    uint64_t pauses = 0, resumes = 0, xoffs = 0;
    for (size_t k = 0; k < net->pfc_ingress.size(); ++k) {
      for (size_t port = 0; port < net->switches[k]->port_count(); ++port) {
        const auto& ps = net->pfc_ingress[k]->port_stats(port);
        pauses += ps.pause_frames_sent;
        resumes += ps.resume_frames_sent;
        xoffs += ps.xoff_transitions;
      }
    }
    sim::Time paused;
    for (const auto& lr : out.links) paused += lr.paused;
    uint64_t nic_pauses = 0, watchdog = 0;
    for (const auto& nic : net->nics) nic_pauses += nic->stats().pause_frames_sent;
    for (const auto& g : net->pfc_gates) watchdog += g->stats().watchdog_triggers;
    uint64_t wd_drops = 0, wd_drop_bytes = 0;
    for (const models::EgressPort* port : net->link_sender) {
      wd_drops += port->discarded_packets();
      wd_drop_bytes += port->discarded_bytes();
    }
    res["pfc"] = {{"pause_frames", pauses},
                  {"nic_pause_frames", nic_pauses},
                  {"resume_frames", resumes},
                  {"xoff_transitions", xoffs},
                  {"paused_time_ns", format_ns(paused)},
                  {"headroom_exhaustions", exhaustions.size()},
                  {"headroom_exhaustion_events", exhaustions},
                  {"watchdog_triggers", watchdog},
                  {"watchdog_drops", wd_drops},
                  {"watchdog_drop_bytes", wd_drop_bytes}};
    if (!s.tagging_priorities.empty()) {
      uint64_t retags = 0;
      for (const auto& sw : net->switches) retags += sw->stats().valley_retags;
      res["pfc"]["valley_retags"] = retags;
    }
    if (!net->pause_storms.empty()) {
      uint64_t storm_frames = 0;
      for (const auto& storm : net->pause_storms) storm_frames += storm->frames_sent();
      res["pfc"]["storm_pause_frames"] = storm_frames;
    }
    // The MMU's pools: per switch the shared pool and the headroom pool with their peaks, and
    // every lossless (port, priority) that used headroom, with its allocation.
    int64_t shared_peak = 0, headroom_peak = 0;
    Json pools = Json::array(), headroom_peaks = Json::array();
    for (const auto& sw : net->switches) {
      const models::SwitchBuffer& b = sw->buffer();
      shared_peak = std::max(shared_peak, b.peak_shared_used());
      headroom_peak = std::max(headroom_peak, b.peak_headroom_used());
      pools.push_back({{"switch", sw->name()},
                       {"shared_pool_bytes", b.shared_pool_bytes()},
                       {"shared_pool_peak_bytes", b.peak_shared_used()},
                       {"headroom_pool_bytes", b.headroom_pool_bytes()},
                       {"headroom_pool_peak_bytes", b.peak_headroom_used()}});
      for (size_t port = 0; port < b.ports(); ++port) {
        for (uint8_t prio = 0; prio < models::kPriorities; ++prio) {
          const auto pt = static_cast<uint16_t>(port);
          if (b.peak_headroom_bytes(pt, prio) == 0) continue;
          headroom_peaks.push_back({{"switch", sw->name()},
                                    {"port", port},
                                    {"priority", prio},
                                    {"headroom_bytes", b.headroom(pt, prio)},
                                    {"peak_bytes", b.peak_headroom_bytes(pt, prio)}});
        }
      }
    }
    res["pfc"]["shared_pool_peak_bytes"] = shared_peak;
    res["pfc"]["headroom_pool_peak_bytes"] = headroom_peak;
    res["pfc"]["pools"] = std::move(pools);
    res["pfc"]["headroom_peaks"] = std::move(headroom_peaks);
    out.pfc_events = net->pfc_log;
  }
  if (net->deadlock) {
    Json events = Json::array();
    for (const models::DeadlockEvent& e : net->deadlock->events()) {
      Json cycle = Json::array();
      for (const auto& m : e.cycle) {
        cycle.push_back(f.topo.nodes[m.node].name + ":" + std::to_string(m.port) + ":p" +
                        std::to_string(m.priority));
      }
      events.push_back({{"formed_ns", format_ns(e.formed)},
                        {"detected_ns", format_ns(e.detected)},
                        {"cycle", cycle},
                        {"flows", e.flows},
                        {"frozen_bytes", e.frozen_bytes}});
    }
    out.deadlocks = events;
    res["deadlocks"] = events.size();
    if (!events.empty() && s.stop_on_deadlock && out.reason == sim::StopReason::Requested) {
      res["stop_reason"] = "deadlock";
    }
    if (!events.empty()) res["deadlock_events"] = events;
  }
  for (const auto& n : f.topo.nodes) out.node_names.push_back(n.name);
  for (size_t h = 0; h < net->nics.size(); ++h) {
    out.nics.push_back(net->nics[h]->stats());
    out.host_names.push_back(f.topo.nodes[f.host_node[h]].name);
  }
  if (s.fabric_kind == FabricKind::Infiniband) add_infiniband_results(s, *net, out, res);
  add_routing_results(s, *net, res);
  res["packets_in_flight_at_end"] = in_flight;
  for (const auto& c : watcher.collectives_) {
    out.collectives.insert(out.collectives.end(), c->results().begin(), c->results().end());
  }
  for (const auto& t : watcher.training_) {
    for (const auto& r : t->results()) out.training_steps.push_back(r);
    out.training_all_reduces.insert(out.training_all_reduces.end(), t->all_reduces().begin(),
                                    t->all_reduces().end());
  }
  if (!out.training_steps.empty()) {
    // The last step: step time, exposed communication and MFU (3 decimals of a percent).
    const models::TrainingStepResult& t = out.training_steps.back();
    res["training"] = {{"steps", out.training_steps.size()},
                       {"step_time_us", format_milli(t.step.ps / 1000)},
                       {"compute_us", format_milli(t.compute.ps / 1000)},
                       {"communication_us", format_milli(t.communication.ps / 1000)},
                       {"exposed_communication_us", format_milli(t.exposed.ps / 1000)},
                       {"last_bucket_tail_us", format_milli(t.last_bucket_tail.ps / 1000)},
                       {"buckets", t.buckets},
                       {"mfu_percent", format_milli(static_cast<int64_t>(t.mfu * 100000))}};
  }
  if (!s.collectives.empty()) {
    size_t sizes = 0;
    for (const auto& c : s.collectives) sizes += models::sweep_sizes(c).size();
    res["collective_sizes"] = sizes;
    res["collective_sizes_completed"] = out.collectives.size();
    if (!out.collectives.empty()) {
      // The largest size run (the last row): what a sweep over sizes or fabrics plots.
      const models::CollectiveResult& last = out.collectives.back();
      res["collective"] = {
          {"size_bytes", last.size_bytes},
          {"time_us", format_milli(last.time.ps / 1000)},
          {"algbw_gbps", format_milli(static_cast<int64_t>(last.algbw_gbps() * 1000))},
          {"busbw_gbps", format_milli(static_cast<int64_t>(last.busbw_gbps() * 1000))}};
    }
  }
  out.results = std::move(res);

  Json counters;
  counters["packets_created"] = created;
  counters["packets_consumed"] = consumed;
  counters["control_packets_sent"] = acks;
  counters["packet_hops"] = out.packet_hops;
  counters["packet_pool_capacity"] = net->pool.capacity();
  counters["events"] = out.events;
  for (const auto& [name, value] : sim.counters()) counters[name] = value;
  int64_t peak_buffer = 0;
  for (const auto& sw : net->switches)
    peak_buffer = std::max(peak_buffer, sw->buffer().peak_used());
  counters["switch_buffer_peak_bytes"] = peak_buffer;
  out.counters = std::move(counters);

  if (timeline) {
    add_run_spans(*timeline, pauses, out);
    net->ctx.timeline = nullptr;
    out.timeline = std::move(timeline);
  }

  out.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  out.peak_rss_kb = peak_rss_kb();
  return out;
}

}  // namespace scen
