#include "models/roce/deadlock_detector.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include "models/transport.hpp"
#include "topologies/circuits.hpp"

namespace models {

DeadlockDetector::DeadlockDetector(Context& ctx, const DeadlockParams& params,
                                   const Transport& transport, std::vector<Port> ports,
                                   uint8_t lossless_priorities)
    : EventHandler(ctx.sim),
      ctx_(ctx),
      params_(params),
      transport_(transport),
      ports_(std::move(ports)),
      lossless_(lossless_priorities),
      last_sent_(ports_.size() * kPriorities, 0),
      stuck_since_(ports_.size() * kPriorities),
      stuck_(ports_.size() * kPriorities, 0) {}

void DeadlockDetector::on_event(uint32_t, uint64_t) {
  examine();
  // Keep looking while anything else is still to happen; a run with nothing left would
  // otherwise be kept alive by this check alone.
  if (ctx_.sim.pending_events() > 0) ctx_.sim.after_boundary(params_.interval, this, 0);
}

void DeadlockDetector::examine() {
  // With no packet anywhere no queue is held, and with none seen held at the last look this one
  // would change nothing (the sent counts it notes are read only for a queue already seen
  // held): skip the scan. An idle fabric — the HPCC peer's flows start after 2 s — is then not
  // scanned every interval.
  if (!any_stuck_ && ctx_.pool.live() == 0) return;
  ++scans_;
  const sim::Time now = ctx_.sim.now();
  any_stuck_ = false;
  // 1. Which (egress port, class) queues are held: paused, packets queued, nothing sent since
  // the last look — and since when they have been seen so.
  for (size_t i = 0; i < ports_.size(); ++i) {
    const Port& pt = ports_[i];
    for (int c = 0; c < kPriorities; ++c) {
      if (((lossless_ >> c) & 1u) == 0) continue;
      const size_t k = i * kPriorities + c;
      const uint64_t sent = pt.egress->class_packets_sent(c);
      const bool held = pt.gate->paused(static_cast<uint8_t>(c)) && pt.egress->queue_packets(c) > 0;
      if (!held) {
        stuck_[k] = 0;
      } else if (!stuck_[k] || sent != last_sent_[k]) {
        stuck_[k] = 1;
        stuck_since_[k] = now;
      }
      any_stuck_ = any_stuck_ || stuck_[k] != 0;
      last_sent_[k] = sent;
    }
  }

  // 2. The wait-for graph among ingress buffers, from the queues held for a whole window.
  std::map<std::tuple<int, int, int>, int> id;  // (node, port, priority) -> vertex
  std::vector<DeadlockMember> members;
  struct Edge {
    int to;
    size_t via;  // watched port index
  };
  std::vector<std::vector<Edge>> out;
  const auto vertex = [&](int node, int port, int prio) {
    auto [it, fresh] = id.try_emplace({node, port, prio}, static_cast<int>(members.size()));
    if (fresh) {
      members.push_back({node, port, prio});
      out.emplace_back();
    }
    return it->second;
  };
  for (size_t i = 0; i < ports_.size(); ++i) {
    const Port& pt = ports_[i];
    if (pt.peer_node < 0) continue;  // the next hop is a host: nothing of ours waits there
    for (int c = 0; c < kPriorities; ++c) {
      const size_t k = i * kPriorities + c;
      if (!stuck_[k] || now - stuck_since_[k] < params_.window) continue;
      const int next = vertex(pt.peer_node, pt.peer_port, c);
      std::set<int> waiting_ports;
      for (size_t q = 0; q < pt.egress->queue_packets(c); ++q) {
        waiting_ports.insert(pt.egress->queued(c, q).in_port);
      }
      for (int in : waiting_ports) {
        const int from = vertex(pt.node, in, c);
        out[from].push_back({next, i});
      }
    }
  }
  if (members.empty()) return;

  // 3. Cycles: through each member, the first circuit that starts there, the members ordered
  // by (node, port, priority), found by the project's one cycle search (topologies/circuits):
  // a depth-first search from each member over the larger ones. A frozen fabric's wait-for
  // graph is small; past kMaxCircuits circuits the later starts go unexamined.
  std::vector<int> order(members.size());
  for (size_t v = 0; v < order.size(); ++v) order[v] = static_cast<int>(v);
  const auto key = [&](int v) {
    return std::tie(members[v].node, members[v].port, members[v].priority);
  };
  std::sort(order.begin(), order.end(), [&](int a, int b) { return key(a) < key(b); });
  std::vector<int> rank(members.size());
  for (size_t r = 0; r < order.size(); ++r) rank[order[r]] = static_cast<int>(r);
  std::vector<std::pair<int, int>> edges;  // in rank numbering, each vertex's in its order
  for (int v : order) {
    for (const Edge& e : out[v]) edges.emplace_back(rank[v], rank[e.to]);
  }
  constexpr size_t kMaxCircuits = 10'000;
  const topo::Circuits found = topo::elementary_circuits(members.size(), edges, kMaxCircuits);
  int last_start = -1;
  for (const std::vector<int>& circuit : found.circuits) {
    if (circuit.front() == last_start) continue;  // the first circuit of each start only
    last_start = circuit.front();
    std::vector<int> path;
    std::vector<size_t> via_path;  // the watched port of each wait, path[j] -> path[j + 1]
    for (int r : circuit) path.push_back(order[r]);
    for (size_t j = 0; j < path.size(); ++j) {
      const int to = path[(j + 1) % path.size()];
      for (const Edge& e : out[path[j]]) {
        if (e.to == to) {
          via_path.push_back(e.via);
          break;
        }
      }
    }
    // Reported once: the same cycle stays frozen at every later look.
    std::vector<int> stable;
    for (int v : path) {
      stable.push_back(members[v].node);
      stable.push_back(members[v].port);
      stable.push_back(members[v].priority);
    }
    if (!reported_.insert(stable).second) continue;

    DeadlockEvent ev;
    ev.detected = now;
    std::set<uint32_t> flows;
    std::set<size_t> queues;
    for (size_t j = 0; j < path.size(); ++j) {
      ev.cycle.push_back(members[path[j]]);
      const size_t i = via_path[j];
      const int c = members[path[j]].priority;
      ev.formed = std::max(ev.formed, ports_[i].gate->paused_since(static_cast<uint8_t>(c)));
      if (!queues.insert(i * kPriorities + c).second) continue;
      ev.frozen_bytes += ports_[i].egress->queue_bytes(c);
      for (size_t q = 0; q < ports_[i].egress->queue_packets(c); ++q) {
        const Packet& p = ctx_.pool[ports_[i].egress->queued(c, q).handle];
        if (p.type == PacketType::Data) flows.insert(transport_.qp(p.qp).flow);
      }
    }
    ev.flows.assign(flows.begin(), flows.end());
    events_.push_back(std::move(ev));
    if (params_.stop_run) ctx_.sim.stop();
  }
}

}  // namespace models
