#include "scenarios/run/roce_results.hpp"

#include <algorithm>
#include <string>
#include <tuple>

#include "scenarios/run/percentiles.hpp"

namespace scen {
namespace {

// The host receive path: only shown when modelled, so default runs are unchanged.
void add_nic_rx_results(const Scenario& s, const models::Network& net, const PacketTotals& packets,
                        Json& res) {
  if (s.nic.rx_drain_rate_bps > 0) {
    res["drops"]["nic_rx_overflow"] = packets.rx_overflow;
    int64_t peak = 0;
    uint64_t pauses = 0, resumes = 0, xoffs = 0;
    sim::Time asserted;
    for (const auto& nic : net.nics) {
      const models::NicStats& ns = nic->stats();
      peak = std::max(peak, ns.rx_buffer_peak_bytes);
      pauses += ns.pause_frames_sent;
      resumes += ns.resume_frames_sent;
      xoffs += ns.xoff_transitions;
      asserted += ns.pause_asserted_time;
    }
    res["nic_rx"] = {{"drain_rate_Gbps", milli_number(s.nic.rx_drain_rate_bps / 1'000'000)},
                     {"rx_buffer_peak_bytes", peak},
                     {"nic_rx_overflow_drops", packets.rx_overflow},
                     {"pause_frames", pauses},
                     {"resume_frames", resumes},
                     {"xoff_transitions", xoffs},
                     {"pause_asserted_ns", ns_number(asserted)}};
  }
}

// Marks at switch ports, CE-marked packets at receivers.
void add_ecn_results(const Scenario& s, const models::Network& net, const RunOutcome& out,
                     Json& res) {
  if (s.ecn.enabled || !net.ecn_markers.empty()) {
    uint64_t marks = 0, ce = 0;
    for (const auto& lr : out.links) marks += lr.ecn_marks;
    for (const auto& nic : net.nics) ce += nic->stats().ce_marked_received;
    res["ecn"] = {{"marks", marks}, {"ce_packets_received", ce}};
  }
}

// CNPs and the reaction points' rate changes.
void add_dcqcn_results(const Scenario& s, const models::Network& net, Json& res) {
  if (s.dcqcn.enabled) {
    uint64_t cnps_sent = 0, cnps_received = 0, flags = 0;
    for (const auto& nic : net.nics) {
      cnps_sent += nic->stats().cnps_sent;
      cnps_received += nic->stats().cnps_received;
      flags += nic->stats().congestion_flags_received;
    }
    const models::DcqcnStats& ds = net.dcqcn->stats();
    res["dcqcn"] = {{"preset", s.dcqcn.preset},
                    {"cnps_sent", cnps_sent},
                    {"cnps_received", cnps_received},
                    {"congestion_flagged_acks", flags},
                    {"rate_decreases", ds.rate_decreases},
                    {"rate_increases", ds.rate_increases},
                    {"limiters_released", ds.limiters_released},
                    {"min_rate_Gbps", milli_number(ds.min_rate_bps / 1'000'000)}};
  }
}

// HPCC, DCTCP or TIMELY: the controller's updates and the window it used.
void add_cc_results(const Scenario& s, const models::Network& net, Json& res) {
  if (!net.ack_cc) return;
  const models::CcParams& p = net.ack_cc->params();
  const models::CcStats& cs = net.ack_cc->stats();
  uint64_t flags = 0;
  for (const auto& nic : net.nics) flags += nic->stats().congestion_flags_received;
  res["cc"] = {{"algorithm", models::cc_algorithm_name(s.cc.algorithm)},
               {"preset", s.cc.preset},
               {"base_rtt_ns", milli_number(p.base_rtt.ps)},
               {"updates", cs.updates},
               {"fast_reactions", cs.fast_reactions},
               {"rate_decreases", cs.decreases},
               {"rate_increases", cs.increases},
               {"ecn_echoes", flags},
               {"min_rate_Gbps", milli_number(cs.min_rate_bps / 1'000'000)}};
}

// Pause and resume frames, paused time, the watchdog, and the MMU pools' peaks.
void add_pfc_results(const Scenario& s, const models::Network& net, const FabricTotals& fabric,
                     RunOutcome& out, Json& res) {
  if (s.pfc.enabled) {
    uint64_t pauses = 0, resumes = 0, xoffs = 0;
    for (size_t k = 0; k < net.pfc_ingress.size(); ++k) {
      if (net.pfc_ingress[k] == nullptr) continue;  // an NVSwitch (credits)
      for (size_t port = 0; port < net.switches[k]->port_count(); ++port) {
        const auto& ps = net.pfc_ingress[k]->port_stats(port);
        pauses += ps.pause_frames_sent;
        resumes += ps.resume_frames_sent;
        xoffs += ps.xoff_transitions;
      }
    }
    sim::Time paused;
    for (const auto& lr : out.links) paused += lr.paused;
    uint64_t nic_pauses = 0, watchdog = 0;
    for (const auto& nic : net.nics) nic_pauses += nic->stats().pause_frames_sent;
    for (const auto& g : net.pfc_gates) watchdog += g->stats().watchdog_triggers;
    uint64_t wd_drops = 0, wd_drop_bytes = 0;
    for (const models::EgressPort* port : net.link_sender) {
      wd_drops += port->discarded_packets();
      wd_drop_bytes += port->discarded_bytes();
    }
    res["pfc"] = {{"pause_frames", pauses},
                  {"nic_pause_frames", nic_pauses},
                  {"resume_frames", resumes},
                  {"xoff_transitions", xoffs},
                  {"paused_time_ns", ns_number(paused)},
                  {"headroom_exhaustions", fabric.exhaustions.size()},
                  {"headroom_exhaustion_events", fabric.exhaustions},
                  {"watchdog_triggers", watchdog},
                  {"watchdog_drops", wd_drops},
                  {"watchdog_drop_bytes", wd_drop_bytes}};
    if (!s.tagging_priorities.empty()) {
      uint64_t retags = 0;
      for (const auto& sw : net.switches) retags += sw->stats().valley_retags;
      res["pfc"]["valley_retags"] = retags;
    }
    if (!net.pause_storms.empty()) {
      uint64_t storm_frames = 0;
      for (const auto& storm : net.pause_storms) storm_frames += storm->frames_sent();
      res["pfc"]["storm_pause_frames"] = storm_frames;
    }
    // The MMU's pools: per switch the shared pool and the headroom pool with their peaks, and
    // every lossless (port, priority) that used headroom, with its allocation.
    int64_t shared_peak = 0, headroom_peak = 0;
    Json pools = Json::array(), headroom_peaks = Json::array();
    for (const auto& sw : net.switches) {
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
    // In the order of (time, node, port, priority): the log is appended as frames are sent,
    // and a split run's partitions append one after another (sim/simulator.hpp).
    out.pfc_events = net.pfc_log;
    std::stable_sort(out.pfc_events.begin(), out.pfc_events.end(),
                     [](const models::PfcEvent& a, const models::PfcEvent& b) {
                       return std::tie(a.time, a.node, a.port, a.priority) <
                              std::tie(b.time, b.node, b.port, b.priority);
                     });
  }
}

// Each deadlock found: when it formed and was detected, its cycle of (node, port, priority).
void add_deadlock_results(const Scenario& s, const models::Network& net, RunOutcome& out,
                          Json& res) {
  if (net.deadlock) {
    Json events = Json::array();
    for (const models::DeadlockEvent& e : net.deadlock->events()) {
      Json cycle = Json::array();
      for (const auto& m : e.cycle) {
        cycle.push_back(s.fabric.topo.nodes[m.node].name + ":" + std::to_string(m.port) + ":p" +
                        std::to_string(m.priority));
      }
      events.push_back({{"formed_ns", ns_number(e.formed)},
                        {"detected_ns", ns_number(e.detected)},
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
}

}  // namespace

void add_roce_results(const Scenario& s, const models::Network& net, const FabricTotals& fabric,
                      const PacketTotals& packets, RunOutcome& out, Json& res) {
  add_nic_rx_results(s, net, packets, res);
  add_ecn_results(s, net, out, res);
  add_dcqcn_results(s, net, res);
  add_cc_results(s, net, res);
  add_pfc_results(s, net, fabric, out, res);
  add_deadlock_results(s, net, out, res);
}

}  // namespace scen
