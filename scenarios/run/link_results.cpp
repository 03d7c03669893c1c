#include "scenarios/run/link_results.hpp"

#include <algorithm>
#include <map>
#include <utility>

#include "scenarios/run/percentiles.hpp"

namespace scen {

FabricTotals collect_link_results(const Scenario& s, models::Network& net, RunOutcome& out) {
  const topo::Fabric& f = s.fabric;
  FabricTotals t;
  for (const auto& sw : net.switches) {
    t.lossless_drops += sw->stats().lossless_drops;
    t.pause_consumed += sw->stats().pause_frames_received;
    for (const auto& e : sw->headroom_exhaustions()) {
      t.exhaustions.push_back({{"time_ns", ns_number(e.time)},
                               {"switch", sw->name()},
                               {"port", e.port},
                               {"priority", e.priority}});
    }
    t.tail_drops += sw->stats().tail_drops;
    t.ttl_drops += sw->stats().ttl_drops;
    t.no_route += sw->stats().no_route_drops;
  }
  for (size_t i = 0; i < net.links.size(); ++i) {
    const topo::Link& l = f.topo.links[i / 2];
    const int dir = static_cast<int>(i % 2);
    models::EgressPort& port = *net.link_sender[i];
    port.finish_accounting();
    LinkResult r;
    r.link = static_cast<int>(i / 2);
    r.direction = dir;
    r.from = f.topo.nodes[dir == 0 ? l.a : l.b].name;
    r.to = f.topo.nodes[dir == 0 ? l.b : l.a].name;
    r.from_port = dir == 0 ? l.a_port : l.b_port;
    r.to_port = dir == 0 ? l.b_port : l.a_port;
    r.rate_bps = l.rate_bps;
    r.wire_bytes = net.links[i]->stats().wire_bytes;
    r.packets = net.links[i]->stats().packets;
    r.lost_packets = net.links[i]->stats().lost_packets;
    t.lost += r.lost_packets;
    const models::EgressStats port_stats = port.stats();
    r.tail_drops = port_stats.tail_drops;
    for (auto q : port_stats.max_queue_bytes) r.max_queue_bytes = std::max(r.max_queue_bytes, q);
    r.class_packets = port_stats.class_packets;
    r.class_wire_bytes = port_stats.class_wire_bytes;
    r.class_max_queue_bytes = port_stats.max_queue_bytes;
    r.class_tail_drops = port_stats.class_tail_drops;
    const int to_node = dir == 0 ? l.b : l.a;
    if (f.host_index[to_node] < 0) {
      const models::SwitchBuffer& buf = net.switches[net.node_switch[to_node]]->buffer();
      for (int c = 0; c < buf.classes(); ++c) {
        r.class_peak_ingress_bytes[c] =
            buf.peak_ingress_bytes(static_cast<uint16_t>(r.to_port), static_cast<uint8_t>(c));
      }
    }
    r.busy = port_stats.busy_time;
    r.stalled = port_stats.stalled_time;
    r.up = net.links[i]->up();
    if (!net.link_marker.empty() && net.link_marker[i] != nullptr) {
      r.ecn_marks = net.link_marker[i]->marks();
      for (int c = 0; c < models::kPriorities; ++c) {
        r.class_ecn_marks[c] = net.link_marker[i]->marks(static_cast<uint8_t>(c));
      }
    }
    if (!net.link_gate.empty() && net.link_gate[i] != nullptr) {
      models::PfcGate& gate = *net.link_gate[i];
      gate.finish_accounting();
      r.pause_frames_received = gate.stats().pause_frames_received;
      r.paused = gate.stats().paused_time;
      r.class_pause_frames_received = gate.stats().frames_by_priority;
      r.class_paused = gate.stats().paused_by_priority;
      const int from = dir == 0 ? l.a : l.b;
      if (f.host_index[from] < 0) {
        const auto& ps = net.pfc_ingress[net.node_switch[from]]->port_stats(r.from_port);
        r.pause_frames_sent = ps.pause_frames_sent + ps.resume_frames_sent;
      } else {  // NIC-sent PFC (receive-buffer pressure)
        const models::NicStats& ns = net.nics[f.host_index[from]]->stats();
        r.pause_frames_sent = ns.pause_frames_sent + ns.resume_frames_sent;
      }
    }
    out.links.push_back(std::move(r));
  }
  // PFC frames sent, per link direction and class, from the event log (switch and NIC frames).
  if (!net.pfc_log.empty()) {
    std::map<std::pair<int, int>, size_t> direction_of;  // (node, port) -> out.links index
    for (size_t i = 0; i < out.links.size(); ++i) {
      const topo::Link& l = f.topo.links[i / 2];
      const bool a_side = i % 2 == 0;
      direction_of[{a_side ? l.a : l.b, out.links[i].from_port}] = i;
    }
    for (const models::PfcEvent& e : net.pfc_log) {
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
  return t;
}

}  // namespace scen
