#include "scenarios/builder/build_network.hpp"

#include <algorithm>

#include "models/roce/pfc_headroom.hpp"
#include "scenarios/builder/build_cc.hpp"
#include "scenarios/builder/build_host_paths.hpp"
#include "scenarios/builder/build_ib_cc.hpp"
#include "scenarios/builder/build_infiniband.hpp"
#include "scenarios/builder/build_nvlink.hpp"
#include "scenarios/builder/build_nvls.hpp"
#include "scenarios/builder/credit_domain.hpp"
#include "scenarios/loader/params.hpp"
#include "scenarios/loader/qos_section.hpp"
#include "scenarios/loader/routing_section.hpp"
#include "scenarios/loader/watchdog_section.hpp"
#include "sim/rng.hpp"

namespace scen {
namespace {

enum : uint64_t {
  kStreamEcmp = 0x45434d50ULL,
  kStreamLinks = 0x4c494e4b00000000ULL,
  kStreamSport = 0x53504f52ULL,
  kStreamEcn = 0x45434e00000000ULL,
};

// Per-port / per-priority overrides (queue_limit, reserve, alpha) after switch-wide ones; an
// override changes only the keys it sets.
void apply_port_overrides(const Scenario& s, models::Switch& sw) {
  for (const auto& o : s.overrides) {
    if (o.port < 0 && o.priority < 0) continue;
    if (o.node >= 0 && o.node != sw.node()) continue;
    models::SwitchParams p = sw.params();
    o.per_port.apply(p);
    models::SwitchBuffer& b = sw.buffer();
    for (size_t port = 0; port < sw.port_count(); ++port) {
      if (o.port >= 0 && static_cast<size_t>(o.port) != port) continue;
      for (int prio = 0; prio < models::kPriorities; ++prio) {
        if (o.priority >= 0 && o.priority != prio) continue;
        const auto pt = static_cast<uint16_t>(port);
        const auto pr = static_cast<uint8_t>(prio);
        if (o.per_port.sets("queue_limit")) b.set_queue_limit(pt, pr, p.buffer.queue_limit_bytes);
        if (o.per_port.sets("reserve")) b.set_reserve(pt, pr, p.buffer.reserve_bytes);
        if (o.per_port.sets("alpha")) b.set_alpha(pt, pr, p.buffer.alpha);
      }
    }
  }
}

// The shared pool is what the reserves and the headroom leave of the buffer; none is a
// configuration error, refused before the run.
void check_pools(const models::Switch& sw) {
  const models::SwitchBuffer& b = sw.buffer();
  if (b.shared_pool_bytes() > 0) return;
  throw InputError("fabric.switch.buffer", sim::format_bytes(b.params().buffer_bytes),
                   "more than switch " + sw.name() + " sets aside for reserves (" +
                       sim::format_bytes(b.reserved_bytes() - b.headroom_pool_bytes()) +
                       ") and PFC headroom (" + sim::format_bytes(b.headroom_pool_bytes()) +
                       "), so that a shared pool remains");
}

int lossless_priority_count(const models::PfcParams& p) {
  return __builtin_popcount(p.lossless_priorities);
}

// Traffic classes at a switch: DSCP classification when trusted, and each port's class
// schedule (fabric.qos.scheduler, then the overrides' "scheduler" in order). All-strict ports
// keep the default schedule.
void apply_qos(const Scenario& s, models::Switch& sw) {
  if (s.qos.trust == models::Trust::Dscp) sw.trust_dscp(s.qos.dscp_to_priority);
  for (size_t port = 0; port < sw.port_count(); ++port) {
    models::ClassSchedule sched = s.qos.scheduler;
    sched.quantum_bytes = effective_quantum(s.qos, s.nic);
    for (const auto& o : s.overrides) {
      if (o.node >= 0 && o.node != sw.node()) continue;
      if (o.port >= 0 && static_cast<size_t>(o.port) != port) continue;
      for (int prio = 0; prio < models::kPriorities; ++prio) {
        if (o.scheduler[prio]) sched.weight[prio] = *o.scheduler[prio];
      }
    }
    if (sched.weighted_mask() != 0) sw.port(port).set_schedule(sched);
  }
}

int port_towards(const topo::Fabric& f, int node, int peer) {
  for (size_t p = 0; p < f.ports[node].size(); ++p) {
    if (f.ports[node][p].peer_node == peer) return static_cast<int>(p);
  }
  return -1;
}

// The headroom of one (ingress port, priority): the last override that sets it, else `formula`.
int64_t headroom_override(const Scenario& s, int node, int port, int prio, int64_t formula) {
  int64_t h = formula;
  for (const auto& o : s.overrides) {
    if (o.headroom_bytes == 0) continue;
    if ((o.node >= 0 && o.node != node) || (o.port >= 0 && o.port != port) ||
        (o.priority >= 0 && o.priority != prio)) {
      continue;
    }
    h = o.headroom_bytes;
  }
  return h;
}

// PFC: each switch watches its ingress counters; every sending port obeys pause frames.
void wire_pfc(const Scenario& s, models::Network& net) {
  const topo::Fabric& f = s.fabric;
  net.pfc_ingress.resize(net.switches.size());
  for (size_t k = 0; k < net.switches.size(); ++k) {
    models::Switch* sw = net.switches[k].get();
    if (net.nvlink_node[sw->node()]) continue;  // NVLink: credits (build_nvlink.hpp)
    net.build_at(sw->node());
    net.pfc_ingress[k] = std::make_unique<models::PfcIngress>(net.ctx, *sw, s.pfc, &net.pfc_logs);
    models::SwitchBuffer& b = sw->buffer();
    b.set_xoff_listener(net.pfc_ingress[k].get());
    b.set_lossless_thresholds(
        {s.pfc.xoff_bytes, s.pfc.xon_offset_bytes, s.pfc.headroom_pool_bytes});
    for (size_t port = 0; port < sw->port_count(); ++port) {
      const int link = f.ports[sw->node()][port].link;
      const int64_t headroom = pfc_headroom(s, sw->node(), link);
      for (uint8_t prio = 0; prio < models::kPriorities; ++prio) {
        if ((s.pfc.lossless_priorities >> prio) & 1u) {
          b.set_headroom(static_cast<uint16_t>(port), prio,
                         headroom_override(s, sw->node(), static_cast<int>(port), prio, headroom));
        }
      }
    }
  }
  net.link_gate.assign(net.links.size(), nullptr);
  for (size_t i = 0; i < net.links.size(); ++i) {
    const topo::Link& l = f.topo.links[i / 2];
    const int from = i % 2 == 0 ? l.a : l.b, from_port = i % 2 == 0 ? l.a_port : l.b_port;
    if (net.nvlink_node[from]) continue;
    models::EgressPort& sender = *net.link_sender[i];
    net.build_at(from);
    net.pfc_gates.push_back(
        std::make_unique<models::PfcGate>(net.ctx, sender, s.pfc.response_time));
    if (f.host_index[from] < 0) {
      const WatchdogSetting w = watchdog_for(s, from, from_port);
      net.pfc_gates.back()->set_watchdog(w.timeout, w.recovery, w.action);
    }
    models::PfcGate* gate = net.pfc_gates.back().get();
    sender.set_gate(gate);
    net.link_gate[i] = gate;
    if (f.host_index[from] >= 0) {
      net.nics[f.host_index[from]]->set_pfc_gate(gate);
    } else {
      net.switches[net.node_switch[from]]->set_pfc_gate(static_cast<size_t>(from_port), gate);
    }
  }
}

}  // namespace

int64_t pfc_headroom(const Scenario& s, int switch_node, int link) {
  if (s.pfc.headroom_bytes > 0) return s.pfc.headroom_bytes;
  const topo::Link& l = s.fabric.topo.links[link];
  const models::SwitchParams sp = switch_params_for(s, switch_node);
  // Store-and-forward accounts at the last bit: one more frame in flight, as a time.
  const int64_t frame = s.nic.mtu + s.nic.header_bytes + s.nic.framing_bytes;
  const sim::Time latency = sp.latency + (sp.forwarding == models::Forwarding::StoreAndForward
                                              ? sim::serialization_time(frame, l.rate_bps)
                                              : sim::Time(0));
  return models::pfc_headroom_bytes(l.rate_bps, sim::Time(l.latency_ps), s.pfc.response_time,
                                    latency, frame, lossless_priority_count(s.pfc));
}

int64_t nic_pfc_headroom(const Scenario& s, uint32_t host) {
  const topo::Fabric& f = s.fabric;
  const int node = f.host_node[host];
  const topo::Link& l = f.topo.links[f.ports[node][0].link];
  // The NIC accounts a packet at its last bit + rx_latency: the formula's receiver latency is
  // rx_latency plus one frame time, as for a store-and-forward switch.
  const int64_t frame = s.nic.mtu + s.nic.header_bytes + s.nic.framing_bytes;
  // Data in its DMA write latency (host_path.hpp) reaches the buffer after it, as if later.
  const sim::Time latency = s.nic.rx_latency + host_path_of(s, node).dma_write_latency +
                            sim::serialization_time(frame, l.rate_bps);
  return models::pfc_headroom_bytes(l.rate_bps, sim::Time(l.latency_ps), s.pfc.response_time,
                                    latency, frame, lossless_priority_count(s.pfc));
}

std::unique_ptr<models::Network> build_network(const Scenario& s, sim::Simulator& sim,
                                               std::vector<int> node_partition) {
  const topo::Fabric& f = s.fabric;
  auto net = std::make_unique<models::Network>(sim);
  net->node_partition = std::move(node_partition);
  net->pool.set_partitions(sim.partitions());
  net->build_at(-1);                       // the transport, and what serves the whole fabric
  net->routes = routes_for(s, s.link_up);  // the scenario's routing (routing_section.hpp)
  const size_t nodes = f.topo.nodes.size();
  const size_t hosts = f.host_node.size();
  net->node_switch.assign(nodes, -1);
  const uint64_t ecmp_seed = sim::derive_seed(s.seed, kStreamEcmp);

  net->transport = std::make_unique<models::Transport>(net->ctx, s.nic);
  net->nics.resize(hosts);
  net->nvlink_node = nvlink_domain(f);  // GPU servers' NVLink domains (build_nvlink.hpp)
  for (size_t n = 0; n < nodes; ++n) {
    std::vector<int64_t> rates;
    for (const auto& pr : f.ports[n]) rates.push_back(f.topo.links[pr.link].rate_bps);
    net->build_at(static_cast<int>(n));
    if (f.host_index[n] >= 0) {
      if (rates.size() != 1) {
        throw InputError("topology.nodes[" + std::to_string(n) + "]", f.topo.nodes[n].name,
                         "a host with exactly one link (one NIC port per host endpoint)");
      }
      net->nics[f.host_index[n]] = std::make_unique<models::Nic>(
          net->ctx, *net->transport, static_cast<uint32_t>(f.host_index[n]), rates[0]);
    } else {
      net->node_switch[n] = static_cast<int>(net->switches.size());
      const bool nvswitch = net->nvlink_node[n];
      models::SwitchParams sp =
          nvswitch ? nvswitch_params(s, rates.size()) : switch_params_for(s, static_cast<int>(n));
      if (!nvswitch && s.fabric_kind == FabricKind::Infiniband) {
        sp.buffer = credit_switch_buffer(rates.size(), s.ib.data_vls, s.ib.vl_buffer_bytes);
      }
      auto sw = std::make_unique<models::Switch>(net->ctx, static_cast<int>(n),
                                                 f.topo.nodes[n].name, sp, rates, ecmp_seed);
      sw->set_routing(&net->routes);
      sw->set_explicit_routes(&net->explicit_routes);
      if (!nvswitch) {  // the fabric's overrides and QoS are the fabric's switches'
        apply_port_overrides(s, *sw);
        apply_qos(s, *sw);
      }
      net->switches.push_back(std::move(sw));
    }
  }
  if (const auto retag = valley_retag_for(s)) {
    // Tagger: each switch port's direction in the up*/down* ranks, and the re-tag table.
    std::array<uint8_t, models::kPriorities> next{};
    for (int p = 0; p < models::kPriorities; ++p) {
      next[p] = static_cast<uint8_t>(retag->next[p] < 0 ? p : retag->next[p]);
    }
    for (auto& sw : net->switches) {
      std::vector<uint8_t> up(sw->port_count(), 0);
      for (size_t p = 0; p < up.size(); ++p) {
        const topo::PortRef& pr = f.ports[sw->node()][p];
        up[p] = pr.link >= 0 && topo::updown_is_up(retag->level, sw->node(), pr.peer_node);
      }
      sw->set_valley_retag(std::move(up), next);
    }
  }
  // Adaptive routing on any switch (fabric.switch.adaptive_routing): packets of one QP take
  // several paths, so every receiver accepts them out of order (models/nic.hpp).
  if (std::any_of(net->switches.begin(), net->switches.end(),
                  [](const auto& sw) { return sw->adaptive_routing(); })) {
    for (auto& nic : net->nics) nic->accept_out_of_order(true);
  }
  net->build_at(-1);
  apply_host_paths(s, *net);  // PCIe per NIC (GPU servers' own, none for NVLink endpoints)
  std::vector<models::Nic*> nic_ptrs;
  for (auto& nic : net->nics) nic_ptrs.push_back(nic.get());
  net->transport->set_nics(nic_ptrs);
  if (s.uses_tcp()) {
    // One CPU per plain host, one per GPU server (its NICs share it).
    std::vector<uint32_t> cpu_of_host(hosts, UINT32_MAX);
    uint32_t cpus = 0;
    for (const auto& nics : f.topo.gpus.server_nics) {
      for (int n : nics) cpu_of_host[f.host_index[n]] = cpus;
      ++cpus;
    }
    for (auto& c : cpu_of_host) {
      if (c == UINT32_MAX) c = cpus++;
    }
    net->tcp = std::make_unique<models::TcpStack>(
        net->ctx, *net->transport, s.tcp, s.nic.framing_bytes, std::move(cpu_of_host), cpus);
    std::vector<bool> kernel_hosts(hosts, true);
    for (int n : f.topo.gpus.nvlink_node) kernel_hosts[f.host_index[n]] = false;
    net->transport->set_tcp(s.tcp.mss, s.tcp_transport, std::move(kernel_hosts));
    for (auto& nic : net->nics) nic->set_tcp(net->tcp.get());
  }
  if (s.dcqcn.enabled) {
    net->dcqcn = std::make_unique<models::Dcqcn>(net->ctx, s.dcqcn, *net->transport);
    for (auto& nic : net->nics) nic->set_dcqcn(net->dcqcn.get(), s.dcqcn.classes);
  }

  auto port_of = [&](int node, int port) -> models::EgressPort& {
    if (f.host_index[node] >= 0) return net->nics[f.host_index[node]]->port();
    return net->switches[net->node_switch[node]]->port(port);
  };
  auto receiver_of = [&](int node) -> models::PacketReceiver* {
    if (f.host_index[node] >= 0) return net->nics[f.host_index[node]].get();
    return net->switches[net->node_switch[node]].get();
  };
  for (size_t i = 0; i < f.topo.links.size(); ++i) {
    const topo::Link& l = f.topo.links[i];
    for (int dir = 0; dir < 2; ++dir) {
      const int from = dir == 0 ? l.a : l.b, from_port = dir == 0 ? l.a_port : l.b_port;
      const int to = dir == 0 ? l.b : l.a, to_port = dir == 0 ? l.b_port : l.a_port;
      sim::Time rx_latency = s.nic.rx_latency;
      bool wait_last_bit = true;
      if (f.host_index[to] < 0) {
        const auto& sp = net->switches[net->node_switch[to]]->params();
        rx_latency = sp.latency;
        wait_last_bit = sp.forwarding == models::Forwarding::StoreAndForward;
      }
      net->build_at(to);  // a link delivers in its receiver's partition
      auto link = std::make_unique<models::Link>(
          net->ctx, sim::Time(l.latency_ps), l.loss_rate, kStreamLinks + 2 * i + dir,
          receiver_of(to), static_cast<uint16_t>(to_port), rx_latency, wait_last_bit);
      link->set_up(s.link_up[i]);
      link->set_sender_partition(net->partition_of(from));
      models::EgressPort& sender = port_of(from, from_port);
      sender.connect(link.get());
      net->link_sender.push_back(&sender);
      net->links.push_back(std::move(link));
    }
  }

  net->build_at(-1);
  if (s.pfc.enabled) wire_pfc(s, *net);
  if (s.fabric_kind == FabricKind::Infiniband) wire_infiniband(s, *net);
  net->build_at(-1);
  wire_nvlink(s, *net);  // build_nvlink.hpp: credits on NVLink whatever the fabric
  wire_ib_congestion_control(s, *net);
  wire_nvls(s, *net);  // build_nvls.hpp
  if (s.pfc.enabled && s.pfc.deadlock_detection) {
    // Every switch egress port with its PFC gate, and the node its link leads to.
    std::vector<models::DeadlockDetector::Port> watched;
    for (size_t i = 0; i < net->links.size(); ++i) {
      const topo::Link& l = f.topo.links[i / 2];
      const bool a_side = i % 2 == 0;
      const int from = a_side ? l.a : l.b, to = a_side ? l.b : l.a;
      if (f.host_index[from] >= 0 || net->link_gate[i] == nullptr) continue;
      models::DeadlockDetector::Port p;
      p.node = from;
      p.port = a_side ? l.a_port : l.b_port;
      p.peer_node = f.host_index[to] < 0 ? to : -1;
      p.peer_port = a_side ? l.b_port : l.a_port;
      p.egress = net->link_sender[i];
      p.gate = net->link_gate[i];
      p.partition = net->partition_of(from);
      watched.push_back(p);
    }
    models::DeadlockParams dp;
    dp.window = s.pfc.deadlock_window;
    dp.interval = s.pfc.deadlock_check_interval;
    dp.stop_run = s.stop_on_deadlock;
    net->deadlock = std::make_unique<models::DeadlockDetector>(
        net->ctx, dp, *net->transport, std::move(watched), s.pfc.lossless_priorities);
  }
  for (const models::PauseStormParams& storm : s.pause_storms) {
    net->build_at(f.host_node[storm.host]);
    net->pause_storms.push_back(std::make_unique<models::PauseStorm>(
        net->ctx, net->nics[storm.host]->port(), f.host_node[storm.host], storm, &net->pfc_logs));
  }
  if (s.pfc.enabled && s.nic.pfc_xoff_bytes > 0) {
    for (size_t h = 0; h < hosts; ++h) {
      if (net->nvlink_node[f.host_node[h]]) continue;  // GPU memory, credits
      net->build_at(f.host_node[h]);
      net->nics[h]->enable_rx_pfc(s.pfc.lossless_priorities, static_cast<uint32_t>(s.pfc.quanta),
                                  f.host_node[h], &net->pfc_logs);
    }
  }
  net->build_at(-1);
  for (const auto& sw : net->switches) check_pools(*sw);
  // ECN: one marker per switch port on which some priority marks, with each priority's curve
  // resolved from fabric.ecn and the overrides (a port none of whose classes mark has none).
  const bool ecn_overrides = std::any_of(s.overrides.begin(), s.overrides.end(),
                                         [](const SwitchOverride& o) { return o.has_ecn; });
  if (s.ecn.enabled || ecn_overrides) {
    net->link_marker.assign(net->links.size(), nullptr);
    for (size_t i = 0; i < net->links.size(); ++i) {
      const topo::Link& l = f.topo.links[i / 2];
      const int from = i % 2 == 0 ? l.a : l.b, from_port = i % 2 == 0 ? l.a_port : l.b_port;
      if (f.host_index[from] >= 0) continue;  // NICs do not mark
      if (net->nvlink_node[from]) continue;   // nor NVSwitches (build_nvlink.hpp)
      auto marker = std::make_unique<models::EcnMarker>(net->ctx, s.ecn, kStreamEcn + i);
      bool any = s.ecn.enabled;
      if (ecn_overrides) {
        const auto per_priority = ecn_params_for(s, from, from_port);
        any = false;
        for (uint8_t prio = 0; prio < models::kPriorities; ++prio) {
          marker->set_curve(prio, models::EcnCurve::from(per_priority[prio]));
          any = any || per_priority[prio].enabled;
        }
      }
      if (!any) continue;
      net->link_sender[i]->set_marker(marker.get());
      net->link_marker[i] = marker.get();
      net->ecn_markers.push_back(std::move(marker));
    }
  }

  // Flows: explicit routes resolved to ports; each QP gets its own UDP source port.
  sim::Rng sport_rng = sim.rng(kStreamSport);
  for (size_t i = 0; i < s.flows.size(); ++i) {
    const models::FlowSpec& fs = s.flows[i];
    const int src = f.host_node[fs.src_host], dst = f.host_node[fs.dst_host];
    if (net->routes.distance[static_cast<size_t>(src) * hosts + fs.dst_host] < 0) {
      throw InputError("workload",
                       "flow " + std::to_string(i) + " " + f.topo.nodes[src].name + " -> " +
                           f.topo.nodes[dst].name,
                       "hosts connected to each other (after link failures)");
    }
    uint32_t route_id = 0;
    if (!fs.route.empty()) {
      std::vector<uint16_t> ports;
      for (size_t k = 0; k < fs.route.size(); ++k) {
        const int next = k + 1 < fs.route.size() ? fs.route[k + 1] : dst;
        ports.push_back(static_cast<uint16_t>(port_towards(f, fs.route[k], next)));
      }
      net->explicit_routes.ports.push_back(std::move(ports));
      route_id = static_cast<uint32_t>(net->explicit_routes.ports.size());
    }
    // RoCEv2 uses UDP destination port 4791; the source port carries the entropy (49152+).
    const uint16_t sport = static_cast<uint16_t>(49152 + sport_rng.below(16384 - fs.qps));
    net->transport->add_flow(fs, route_id, sport);
  }
  apply_congestion_control(s, *net);  // build_cc.hpp: measures along the flows just added
  // The controllers' and TCP's per-QP state grows with the QPs as the transport adds them.
  net->reserve_qps();
  net->transport->set_qp_reserver([n = net.get()](size_t) { n->reserve_qps(); });
  return net;
}

std::vector<models::PathHop> trace_path(const Scenario& s, const models::Network& net,
                                        uint32_t src_host, uint32_t dst_host, uint16_t udp_sport,
                                        uint32_t route_id) {
  const topo::Fabric& f = s.fabric;
  std::vector<models::PathHop> hops;
  models::Packet probe;
  probe.src_host = src_host;
  probe.dst_host = dst_host;
  probe.udp_sport = udp_sport;
  probe.route_id = route_id;
  int node = f.host_node[src_host];
  int port = 0;
  for (int guard = 0; guard < 256; ++guard) {
    const topo::PortRef& pr = f.ports[node][port];
    const topo::Link& l = f.topo.links[pr.link];
    models::PathHop hop;
    hop.rate_bps = l.rate_bps;
    hop.propagation = sim::Time(l.latency_ps);
    const int next = pr.peer_node;
    if (f.host_index[next] >= 0) {
      hop.receiver_latency = s.nic.rx_latency;
      hop.receiver_waits_last_bit = true;
      hops.push_back(hop);
      return next == f.host_node[dst_host] ? hops : std::vector<models::PathHop>{};
    }
    const models::Switch& sw = *net.switches[net.node_switch[next]];
    hop.receiver_latency = sw.params().latency;
    hop.receiver_waits_last_bit = sw.params().forwarding == models::Forwarding::StoreAndForward;
    hops.push_back(hop);
    const int out = sw.route(probe);
    if (out < 0) return {};
    if (route_id != 0) ++probe.route_hop;
    node = next;
    port = out;
  }
  return {};
}

}  // namespace scen
