// A fabric in miniature for runs split over processes (sim/rank_exchange.hpp): nodes in a ring,
// spread over partitions, pass tokens to their successor across a link of the lookahead's
// length. A token in flight lives in a pool and its event's arg is its handle, as a packet's
// is, so an event crossing processes must ship the token by value (pack_event, unpack_event)
// and the receiving process must take a handle of its own. Each node also runs local work
// (events a random delay apart, on its own random stream) and a boundary observer ticks every
// 250 ns, pushing an event into node 0: every process runs it, the one running node 0 keeps
// the event. tests/rank_run_test.cpp runs it in one process and over in-process ranks,
// tests/mpi/rank_ring_main.cpp over MPI ranks; every process's trace of its own nodes, put
// together, must be the single run's.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "sim/rank_exchange.hpp"
#include "sim/simulator.hpp"

namespace rank_ring {

// Tokens in flight, by handle: taken by the sending node, given back by the receiving one (in
// a split run on threads, by two partitions at once: a lock).
class TokenPool {
 public:
  uint32_t take(uint64_t value) {
    const std::lock_guard hold(mutex_);
    if (free_.empty()) {
      values_.push_back(value);
      return static_cast<uint32_t>(values_.size() - 1);
    }
    const uint32_t h = free_.back();
    free_.pop_back();
    values_[h] = value;
    return h;
  }
  uint64_t give_back(uint32_t h) {
    const std::lock_guard hold(mutex_);
    free_.push_back(h);
    return values_.at(h);
  }

 private:
  std::mutex mutex_;
  std::vector<uint64_t> values_;
  std::vector<uint32_t> free_;
};

struct Node final : sim::EventHandler {
  enum Kind : uint32_t { kToken = 0, kWork = 1, kNudge = 2 };
  Node(sim::Simulator& s, TokenPool& pool, uint32_t id, sim::Time hop)
      : EventHandler(s), sim(s), pool(pool), id(id), hop(hop), rng(s.rng(1000 + id)) {}

  void on_event(uint32_t kind, uint64_t arg) override {
    const int64_t now = sim.now().ps;
    if (kind == kToken) {
      const uint64_t value = pool.give_back(static_cast<uint32_t>(arg));
      log.push_back({now, kToken, value});
      ++tokens_seen;
      if (stop_after != 0 && tokens_seen == stop_after) sim.stop();
      if (value % 1000 < 997) {  // a token dies now and then; the others go on round
        const uint64_t next_value = value * 6364136223846793005ull + id + 1;
        sim.after(hop + sim::Time(static_cast<int64_t>(value % 7) * 100), next, kToken,
                  pool.take(next_value));
      }
      return;
    }
    log.push_back({now, kind, arg});
    if (kind == kWork && now < work_until) {
      sim.after(sim::Time(static_cast<int64_t>(rng.uniform() * 20'000)), this, kWork, arg + 1);
    }
  }
  // A token crossing processes: its value travels, the handle stays behind (given back here).
  void pack_event(uint32_t kind, uint64_t arg, sim::Bytes& out) override {
    if (kind != kToken) sim::EventHandler::pack_event(kind, arg, out);
    sim::put_bytes(out, pool.give_back(static_cast<uint32_t>(arg)));
  }
  uint64_t unpack_event(uint32_t kind, sim::ByteReader& in) override {
    if (kind != kToken) return sim::EventHandler::unpack_event(kind, in);
    return pool.take(in.get<uint64_t>());
  }

  struct Entry {
    int64_t time;
    uint32_t kind;
    uint64_t value;
  };
  sim::Simulator& sim;
  TokenPool& pool;
  uint32_t id;
  sim::Time hop;
  sim::Rng rng;
  Node* next = nullptr;
  int64_t work_until = 2'000'000;  // 2 us of local work
  uint64_t tokens_seen = 0;
  uint64_t stop_after = 0;  // 0: never stops the run
  std::vector<Entry> log;
};

// Every 250 ns until 1.5 us, between windows: nudges node 0 (a push for one partition).
struct Observer final : sim::EventHandler {
  Observer(sim::Simulator& s, Node& target) : EventHandler(s), sim(s), target(target) {}
  void on_event(uint32_t, uint64_t arg) override {
    ++looks;
    sim.after(sim::Time(100), &target, Node::kNudge, arg);
    if (sim.now() < sim::Time(1'500'000)) sim.after_boundary(sim::Time(250'000), this, 0, arg + 1);
  }
  sim::Simulator& sim;
  Node& target;
  uint64_t looks = 0;
};

// `nodes` nodes over `partitions` partitions (node k in partition k * partitions / nodes),
// a lookahead of 10 ns; four tokens start at nodes 0, 1, 2 and 3.
struct Ring {
  Ring(uint32_t nodes, uint32_t partitions, sim::RankExchange* ranks = nullptr,
       const std::vector<uint32_t>& rank_of = {}) {
    sim.split(partitions, sim::Time(10'000));
    if (ranks != nullptr) sim.set_ranks(*ranks, rank_of);
    for (uint32_t k = 0; k < nodes; ++k) {
      sim.set_building_partition(k * partitions / nodes);
      node.push_back(std::make_unique<Node>(sim, pool, k, sim::Time(10'000)));
    }
    for (uint32_t k = 0; k < nodes; ++k) node[k]->next = node[(k + 1) % nodes].get();
    sim.set_building_partition(0);
    observer = std::make_unique<Observer>(sim, *node[0]);
    for (uint32_t k = 0; k < nodes; ++k) sim.at(sim::Time(k * 137), node[k].get(), Node::kWork, 0);
    for (uint32_t k = 0; k < 4 && k < nodes; ++k) {
      sim.at(sim::Time(500 + k), node[k].get(), Node::kToken, pool.take(k + 1));
    }
    sim.at_boundary(sim::Time(250'000), observer.get(), 0, 0);
  }
  // Every node this process runs, one line per logged event, then the run's end.
  std::string trace(sim::StopReason reason) const {
    std::ostringstream out;
    for (const auto& n : node) {
      if (!sim.is_local(n->partition())) continue;
      for (const Node::Entry& e : n->log) {
        out << "node " << n->id << " t " << e.time << " kind " << e.kind << " value " << e.value
            << "\n";
      }
    }
    out << "end " << sim.now().ps << " events " << sim.events_executed() << " reason "
        << sim::to_string(reason) << "\n";
    return out.str();
  }
  sim::Simulator sim{7};
  TokenPool pool;
  std::vector<std::unique_ptr<Node>> node;
  std::unique_ptr<Observer> observer;
};

// A trace's node lines by node (each node's in its order), and its end line: what the traces of
// a run's processes are compared by (each holds its own nodes and the same end).
struct ParsedTrace {
  std::map<uint32_t, std::vector<std::string>> nodes;
  std::string end;
};
inline void parse_trace(const std::string& text, ParsedTrace& into) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("node ", 0) == 0) {
      into.nodes[static_cast<uint32_t>(std::stoul(line.substr(5)))].push_back(line);
    } else if (line.rfind("end ", 0) == 0) {
      into.end = line;
    }
  }
}

}  // namespace rank_ring
