#include "models/sharp/sharp_allreduce.hpp"

#include <algorithm>
#include <stdexcept>

#include "models/nic.hpp"
#include "models/switch.hpp"
#include "sim/event_arg.hpp"

namespace models {

SharpAllReduce::SharpAllReduce(Context& ctx, const topo::Fabric& fabric,
                               std::vector<Switch*> switch_of_node, std::vector<Nic*> nics,
                               const SharpParams& params, const std::array<uint8_t, 16>& sl_to_vl,
                               int64_t mtu, int64_t overhead)
    : EventHandler(ctx.sim),
      ctx_(ctx),
      fabric_(fabric),
      switch_of_node_(std::move(switch_of_node)),
      nics_(std::move(nics)),
      params_(params),
      sl_to_vl_(sl_to_vl),
      mtu_(mtu),
      overhead_(overhead),
      engine_of_node_(switch_of_node_.size(), nullptr) {
  for (Nic* nic : nics_) nic->set_sharp(this);
  results_received_.resize(ctx.sim.partitions());
}

uint32_t SharpAllReduce::group(const std::vector<uint32_t>& hosts, uint8_t sl,
                               const SharpParams& params, bool dedicated) {
  // A group of these hosts that is not running an all-reduce now (`done` is set while one runs):
  // two collectives over the same hosts at once get a tree each.
  for (size_t g = 0; g < groups_.size(); ++g) {
    const Group& e = *groups_[g];
    if (e.hosts == hosts && e.sl == sl && !e.done && e.dedicated == dedicated) {
      return static_cast<uint32_t>(g);
    }
  }
  const auto id = static_cast<uint32_t>(groups_.size());
  auto g = std::make_unique<Group>();
  g->hosts = hosts;
  g->params = params;
  g->dedicated = dedicated;
  g->sl = sl;
  g->vl = sl_to_vl_[sl];
  std::vector<int> nodes;
  for (uint32_t h : hosts) nodes.push_back(fabric_.host_node[h]);
  g->tree = topo::build_aggregation_tree(fabric_, nodes);
  g->chunks = std::make_unique<SharpChunks>();
  g->index_of_host.assign(nics_.size(), -1);
  for (size_t i = 0; i < hosts.size(); ++i) g->index_of_host[hosts[i]] = static_cast<int>(i);
  for (const topo::AggregationSwitch& s : g->tree.switches) {
    AggregationEngine*& e = engine_of_node_[static_cast<size_t>(s.node)];
    if (e == nullptr) {
      Switch& sw = *switch_of_node_[static_cast<size_t>(s.node)];
      // Its events run where the switch's are (built when a call first needs it: a boundary
      // event in a split run).
      const uint32_t building = ctx_.sim.building_partition();
      ctx_.sim.set_building_partition(sw.port(0).partition());
      engines_.push_back(std::make_unique<AggregationEngine>(ctx_, sw));
      ctx_.sim.set_building_partition(building);
      e = engines_.back().get();
      sw.set_aggregation(e);
    }
    e->add_tree(id, s.child_ports, s.parent_port, g->vl, g->sl, g->chunks.get(), params);
  }
  groups_.push_back(std::move(g));
  return id;
}

void SharpAllReduce::start(uint32_t group, int64_t bytes, std::function<void()> done,
                           const std::vector<sim::Time>& host_delay, int64_t chunk_bytes,
                           bool over_processes) {
  Group& g = *groups_[group];
  if (over_processes && hosts_done_told_.empty()) {
    throw std::logic_error("SHARP: an all-reduce over processes before run_over_processes");
  }
  g.over_processes = over_processes;
  if (g.done) throw std::logic_error("SHARP: group " + std::to_string(group) + " is still running");
  *g.chunks =
      SharpChunks{bytes, chunk_bytes > 0 ? chunk_bytes : g.params.chunk_bytes, mtu_, overhead_};
  g.state.assign(g.hosts.size(), HostState{});
  for (size_t h = 0; h < g.heads.size(); ++h) {
    // The first chunk each host heads (a host may head several positions: the first counts).
    HostState& st = g.state[g.heads[h]];
    if (st.head_next < 0) st.head_next = static_cast<int64_t>(h);
  }
  g.counters.assign(g.hosts.size(), SharpHostCounters{});
  g.hosts_done.store(0, std::memory_order_relaxed);
  g.done = done ? std::move(done) : [] {};
  if (g.chunks->chunks() == 0) {
    if (g.over_processes) {
      groups_ended_.push_back(group);  // (at a boundary event, in every process)
    } else {
      ctx_.sim.after(sim::Time(0), this, kDone, group);
    }
    return;
  }
  for (const topo::AggregationSwitch& s : g.tree.switches) {
    engine_of_node_[static_cast<size_t>(s.node)]->start(group);
  }
  if (g.over_processes) {
    // Each host starts where it is, by an event of its own partition (start_host): what a
    // boundary event sends from another process's host would never leave.
    if (!host_delay.empty()) throw std::logic_error("SHARP: host delays over processes");
    return;
  }
  for (size_t i = 0; i < g.hosts.size(); ++i) {
    const sim::Time delay = i < host_delay.size() ? host_delay[i] : sim::Time(0);
    if (delay.ps > 0) {
      ctx_.sim.after(delay, this, kHostStart, sim::pack_arg(group, static_cast<uint32_t>(i)));
    } else {
      send_ready_chunks(g, group, i);
    }
  }
}

void SharpAllReduce::set_heads(uint32_t group, const std::vector<size_t>& heads,
                               std::function<void(size_t, int64_t)> on_head_chunk) {
  Group& g = *groups_[group];
  std::vector<size_t> sorted = heads;
  std::sort(sorted.begin(), sorted.end());
  if (g.tree.switches.size() != 1 || heads.empty() ||
      std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
    throw std::logic_error("NVLS-tree: heads need a one-level tree and distinct hosts");
  }
  // The root's port towards each head: the peer of the head's link (its port 0).
  const topo::AggregationSwitch& root = g.tree.switches.front();
  std::vector<int> ports;
  for (size_t head : heads) {
    const int node = fabric_.host_node[g.hosts.at(head)];
    ports.push_back(fabric_.ports[static_cast<size_t>(node)][0].peer_port);
    if (fabric_.ports[static_cast<size_t>(node)][0].peer_node != root.node) {
      throw std::logic_error("NVLS-tree: a head is not below the group's NVSwitch");
    }
  }
  engine_of_node_[static_cast<size_t>(root.node)]->set_heads(group, std::move(ports));
  g.heads = heads;
  g.on_head_chunk = std::move(on_head_chunk);
}

void SharpAllReduce::multicast(uint32_t group, int64_t chunk) {
  Group& g = *groups_[group];
  send_packets(g, group, g.heads[static_cast<size_t>(chunk) % g.heads.size()], chunk,
               kFlagSharpMulticast);
}

void SharpAllReduce::set_gate(uint32_t group,
                              std::function<void(size_t, int64_t)> on_result_chunk) {
  Group& g = *groups_[group];
  g.gated = true;
  g.on_result_chunk = std::move(on_result_chunk);
}

void SharpAllReduce::release(uint32_t group, size_t host, int64_t chunk) {
  Group& g = *groups_[group];
  HostState& st = g.state.at(host);
  if (!g.gated || chunk != st.released) {
    throw std::logic_error("SHARP: chunk " + std::to_string(chunk) + " of host " +
                           std::to_string(g.hosts[host]) + " released out of order");
  }
  ++st.released;
  send_ready_chunks(g, group, host);
}

void SharpAllReduce::send_ready_chunks(Group& g, uint32_t group, size_t i) {
  HostState& st = g.state[i];
  const int64_t window = std::max<int64_t>(1, g.params.max_outstanding_chunks);
  while (st.next_send < g.chunks->chunks() && st.next_send < st.completed + window &&
         (!g.gated || st.next_send < st.released)) {
    send_chunk(g, group, i);
  }
}

void SharpAllReduce::send_chunk(Group& g, uint32_t group, size_t i) {
  send_packets(g, group, i, g.state[i].next_send++, 0);
}

void SharpAllReduce::send_packets(Group& g, uint32_t group, size_t i, int64_t j, uint8_t flags) {
  const SharpChunks& c = *g.chunks;
  Nic& nic = *nics_[g.hosts[i]];
  for (uint32_t n = 0; n < c.packets(j); ++n) {
    const PacketHandle h = ctx_.pool.alloc();
    Packet& p = ctx_.pool[h];
    p.type = PacketType::Sharp;
    p.set_sharp(group, static_cast<uint32_t>(j));
    p.src_host = g.hosts[i];
    p.payload_bytes = c.payload(j, n);
    p.wire_bytes = c.wire(j, n);
    p.priority = g.vl;
    p.sl = g.sl;
    p.flags = flags;
    p.sent_at = ctx_.sim.now();
    g.counters[i].data_sent += p.payload_bytes;
    g.counters[i].wire_sent += p.wire_bytes;
    nic.port().enqueue(h, p);
  }
}

void SharpAllReduce::on_result(uint32_t host, const Packet& p) {
  Group& g = *groups_[p.sharp_tree()];
  const int i = g.index_of_host[host];
  if (i < 0 || (p.flags & kFlagSharpResult) == 0) {
    throw std::logic_error("SHARP: host " + std::to_string(host) +
                           " received a packet of a group it is not in");
  }
  ++results_received_.local();
  if ((p.flags & kFlagSharpToHead) != 0) {
    on_head_packet(g, static_cast<size_t>(i), p);
    return;
  }
  HostState& st = g.state[static_cast<size_t>(i)];
  SharpHostCounters& k = g.counters[static_cast<size_t>(i)];
  if (k.data_received == 0) k.first_result = ctx_.sim.now();
  k.data_received += p.payload_bytes;
  k.wire_received += p.wire_bytes;
  const SharpChunks& c = *g.chunks;
  if (++st.result_packets < c.packets(st.completed)) return;
  st.result_packets = 0;
  ++st.completed;
  send_ready_chunks(g, p.sharp_tree(), static_cast<size_t>(i));
  if (g.on_result_chunk) g.on_result_chunk(static_cast<size_t>(i), st.completed - 1);
  if (st.completed < c.chunks()) return;
  k.done = ctx_.sim.now();
  if (g.over_processes) {
    hosts_done_told_[sim::Simulator::thread_partition()].push_back(
        {p.sharp_tree(), static_cast<uint32_t>(i), k});
    return;
  }
  if (g.hosts_done.fetch_add(1, std::memory_order_acq_rel) + 1 == g.hosts.size()) {
    end_all_reduce(g);
  }
}

void SharpAllReduce::end_all_reduce(Group& g) {
  const std::function<void()> done = std::move(g.done);  // it may start the next all-reduce
  g.done = nullptr;
  done();
}

// The NVSwitch-reduced chunk a head takes across the servers: its chunks come in order (the
// root reduces in chunk order and sends each whole on the head's one link).
void SharpAllReduce::on_head_packet(Group& g, size_t i, const Packet& p) {
  HostState& st = g.state[i];
  SharpHostCounters& k = g.counters[i];
  k.data_received += p.payload_bytes;
  k.wire_received += p.wire_bytes;
  if (st.head_next < 0 || static_cast<int64_t>(p.sharp_chunk()) != st.head_next) {
    throw std::logic_error("NVLS-tree: host " + std::to_string(g.hosts[i]) + " got chunk " +
                           std::to_string(p.sharp_chunk()) + " to head, expected " +
                           std::to_string(st.head_next));
  }
  if (++st.head_packets < g.chunks->packets(st.head_next)) return;
  st.head_packets = 0;
  const int64_t j = st.head_next;
  st.head_next += static_cast<int64_t>(g.heads.size());
  g.on_head_chunk(i, j);
}

uint64_t SharpAllReduce::packets_consumed() const {
  uint64_t n = 0;
  for (uint32_t p = 0; p < results_received_.size(); ++p) n += results_received_[p];
  for (const auto& e : engines_) n += e->stats().packets_received;
  return n;
}

void SharpAllReduce::on_event(uint32_t kind, uint64_t arg) {
  if (kind == kHostStart) {
    Group& g = *groups_[sim::arg_high(arg)];
    send_ready_chunks(g, sim::arg_high(arg), sim::arg_low(arg));
    return;
  }
  end_all_reduce(*groups_[arg]);
}

}  // namespace models
