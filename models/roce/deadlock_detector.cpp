#include "models/roce/deadlock_detector.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

#include "models/transport.hpp"
#include "sim/rank_exchange.hpp"
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
      looks_(ports_.size() * kPriorities),
      last_sent_(ports_.size() * kPriorities, 0),
      stuck_since_(ports_.size() * kPriorities),
      stuck_(ports_.size() * kPriorities, 0) {}

void DeadlockDetector::on_event(uint32_t, uint64_t) {
  examine();
  // Keep looking while anything else is still to happen; a run with nothing left would
  // otherwise be kept alive by this check alone. (Over processes: anything in any of them.)
  std::array<uint64_t, 1> pending{ctx_.sim.pending_events()};
  if (sim::RankExchange* ranks = ctx_.sim.ranks()) ranks->sum_all(pending);
  if (pending[0] > 0) ctx_.sim.after_boundary(params_.interval, this, 0);
}

void DeadlockDetector::look_at(size_t port, int c, QueueLook& q) const {
  const Port& pt = ports_[port];
  const size_t k = port * kPriorities + static_cast<size_t>(c);
  q.sent = pt.egress->class_packets_sent(c);
  q.held = pt.gate->paused(static_cast<uint8_t>(c)) && pt.egress->queue_packets(c) > 0;
  q.in_ports.clear();
  q.flows.clear();
  // What is queued matters only for a queue that this look finds held for a whole window (the
  // graph's edges), as every process can tell from what all saw before.
  const sim::Time now = ctx_.sim.now();
  const sim::Time since = stuck_[k] && q.sent == last_sent_[k] ? stuck_since_[k] : now;
  const bool frozen = q.held && now - since >= params_.window;
  if (!frozen) return;
  q.bytes = pt.egress->queue_bytes(c);
  q.paused_since = pt.gate->paused_since(static_cast<uint8_t>(c));
  std::set<int> in_ports;
  std::set<uint32_t> flows;
  for (size_t i = 0; i < pt.egress->queue_packets(c); ++i) {
    const QueuedPacket& queued = pt.egress->queued(c, i);
    in_ports.insert(queued.in_port);
    const Packet& p = ctx_.pool[queued.handle];
    if (p.type == PacketType::Data) flows.insert(transport_.qp(p.qp).flow);
  }
  q.in_ports.assign(in_ports.begin(), in_ports.end());
  q.flows.assign(flows.begin(), flows.end());
}

void DeadlockDetector::look() {
  for (size_t i = 0; i < ports_.size(); ++i) {
    if (!ctx_.sim.is_local(ports_[i].partition)) continue;
    for (int c = 0; c < kPriorities; ++c) {
      if (((lossless_ >> c) & 1u) != 0) look_at(i, c, looks_[i * kPriorities + c]);
    }
  }
  if (sim::RankExchange* ranks = ctx_.sim.ranks()) swap_looks(*ranks);
}

// Every process sends the others what it saw of its own switches' queues, by watched port.
void DeadlockDetector::swap_looks(sim::RankExchange& ranks) {
  sim::Bytes mine;
  for (size_t i = 0; i < ports_.size(); ++i) {
    if (!ctx_.sim.is_local(ports_[i].partition)) continue;
    for (int c = 0; c < kPriorities; ++c) {
      if (((lossless_ >> c) & 1u) == 0) continue;
      const QueueLook& q = looks_[i * kPriorities + c];
      sim::put_bytes(mine, static_cast<uint64_t>(i * kPriorities + c));
      sim::put_bytes(mine, q.sent);
      sim::put_bytes(mine, static_cast<uint8_t>(q.held));
      sim::put_bytes(mine, static_cast<uint8_t>(!q.in_ports.empty()));
      if (q.in_ports.empty()) continue;
      sim::put_bytes(mine, q.bytes);
      sim::put_bytes(mine, q.paused_since);
      sim::put_bytes(mine, static_cast<uint64_t>(q.in_ports.size()));
      for (int in : q.in_ports) sim::put_bytes(mine, in);
      sim::put_bytes(mine, static_cast<uint64_t>(q.flows.size()));
      for (uint32_t flow : q.flows) sim::put_bytes(mine, flow);
    }
  }
  std::vector<sim::Bytes> out(ranks.ranks());
  for (uint32_t r = 0; r < ranks.ranks(); ++r) {
    if (r != ranks.rank()) out[r] = mine;
  }
  const std::vector<sim::Bytes> in = ranks.exchange(std::move(out));
  for (const sim::Bytes& theirs : in) {
    sim::ByteReader reader(theirs);
    while (!reader.empty()) {
      const auto k = reader.get<uint64_t>();
      if (k >= looks_.size()) throw std::logic_error("a look at an unknown queue, from a process");
      QueueLook& q = looks_[k];
      q.sent = reader.get<uint64_t>();
      q.held = reader.get<uint8_t>() != 0;
      q.in_ports.clear();
      q.flows.clear();
      if (reader.get<uint8_t>() == 0) continue;
      q.bytes = reader.get<uint64_t>();
      q.paused_since = reader.get<sim::Time>();
      q.in_ports.resize(reader.get<uint64_t>());
      for (int& port : q.in_ports) port = reader.get<int>();
      q.flows.resize(reader.get<uint64_t>());
      for (uint32_t& flow : q.flows) flow = reader.get<uint32_t>();
    }
  }
}

void DeadlockDetector::examine() {
  // With no packet anywhere no queue is held, and with none seen held at the last look this one
  // would change nothing (the sent counts it notes are read only for a queue already seen
  // held): skip the scan. An idle fabric — the HPCC peer's flows start after 2 s — is then not
  // scanned every interval. (Over processes: no packet in any; every process decides alike.)
  if (!any_stuck_) {
    std::array<uint64_t, 1> live{ctx_.pool.live()};
    if (sim::RankExchange* ranks = ctx_.sim.ranks()) ranks->sum_all(live);
    if (live[0] == 0) return;
  }
  ++scans_;
  const sim::Time now = ctx_.sim.now();
  any_stuck_ = false;
  look();
  // 1. Which (egress port, class) queues are held: paused, packets queued, nothing sent since
  // the last look — and since when they have been seen so.
  for (size_t i = 0; i < ports_.size(); ++i) {
    for (int c = 0; c < kPriorities; ++c) {
      if (((lossless_ >> c) & 1u) == 0) continue;
      const size_t k = i * kPriorities + c;
      const QueueLook& q = looks_[k];
      if (!q.held) {
        stuck_[k] = 0;
      } else if (!stuck_[k] || q.sent != last_sent_[k]) {
        stuck_[k] = 1;
        stuck_since_[k] = now;
      }
      any_stuck_ = any_stuck_ || stuck_[k] != 0;
      last_sent_[k] = q.sent;
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
      for (int in : looks_[k].in_ports) {
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
      const QueueLook& q = looks_[i * kPriorities + c];
      ev.formed = std::max(ev.formed, q.paused_since);
      if (!queues.insert(i * kPriorities + c).second) continue;
      ev.frozen_bytes += q.bytes;
      flows.insert(q.flows.begin(), q.flows.end());
    }
    ev.flows.assign(flows.begin(), flows.end());
    events_.push_back(std::move(ev));
    if (params_.stop_run) ctx_.sim.stop();
  }
}

}  // namespace models
