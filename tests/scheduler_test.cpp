// The kernel: the event order is (time, origin, origin's count); timers cancel and re-arm.
#include <algorithm>
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "sim/simulator.hpp"

using namespace sim::literals;

namespace {

struct Recorder final : sim::EventHandler {
  using EventHandler::EventHandler;
  sim::Simulator& sim;
  std::vector<std::pair<int64_t, uint64_t>> fired;  // (time ps, arg)
  explicit Recorder(sim::Simulator& s) : EventHandler(s), sim(s) {}
  void on_event(uint32_t, uint64_t arg) override { fired.emplace_back(sim.now().ps, arg); }
};

}  // namespace

TEST_CASE("scheduler: equal-time events of one origin fire in the order it pushed them",
          "[unit][sim]") {
  sim::Simulator sim(1);
  Recorder r(sim);
  // Interleave times so that heap order alone would not give push order.
  for (uint64_t i = 0; i < 1000; ++i)
    sim.at(sim::Time(static_cast<int64_t>((i * 7919) % 13)), &r, 0, i);
  sim.run();
  REQUIRE(r.fired.size() == 1000);
  for (size_t k = 1; k < r.fired.size(); ++k) {
    const auto& a = r.fired[k - 1];
    const auto& b = r.fired[k];
    REQUIRE(a.first <= b.first);
    if (a.first == b.first) REQUIRE(a.second < b.second);
  }
}

TEST_CASE("scheduler: time limit stops before later events and keeps them", "[unit][sim]") {
  sim::Simulator sim(1);
  Recorder r(sim);
  sim.at(5_us, &r, 0, 1);
  sim.at(15_us, &r, 0, 2);
  CHECK(sim.run(10_us) == sim::StopReason::TimeLimit);
  CHECK(sim.now() == 10_us);
  CHECK(r.fired.size() == 1);
  CHECK(sim.run() == sim::StopReason::Idle);
  CHECK(r.fired.size() == 2);
}

TEST_CASE("scheduler: cancelled timers never fire, re-armed timers fire once at the deadline",
          "[unit][sim]") {
  sim::Simulator sim(1);
  Recorder owner(sim);
  sim::Timer cancelled(sim, &owner, 0, 1);
  sim::Timer pushed_back(sim, &owner, 0, 2);
  sim::Timer pulled_in(sim, &owner, 0, 3);
  cancelled.arm(3_us);
  pushed_back.arm(2_us);
  pulled_in.arm(9_us);
  Recorder helper(sim);
  struct Actions final : sim::EventHandler {
    using EventHandler::EventHandler;
    sim::Timer* c;
    sim::Timer* p;
    sim::Timer* q;
    void on_event(uint32_t, uint64_t) override {
      c->cancel();
      p->arm(p->deadline() + sim::Time(5'000'000));  // 2 us -> 7 us
      q->arm(sim::Time(4'000'000));                  // 9 us -> 4 us
    }
  } actions{sim};
  actions.c = &cancelled;
  actions.p = &pushed_back;
  actions.q = &pulled_in;
  sim.at(1_us, &actions, 0);
  sim.run();
  REQUIRE(owner.fired.size() == 2);
  CHECK(owner.fired[0] == std::make_pair(int64_t{4'000'000}, uint64_t{3}));
  CHECK(owner.fired[1] == std::make_pair(int64_t{7'000'000}, uint64_t{2}));
  CHECK_FALSE(cancelled.armed());
}

TEST_CASE("scheduler: random streams are reproducible and independent per component",
          "[unit][sim]") {
  sim::Simulator a(42), b(42), c(43);
  auto ra = a.rng(7), rb = b.rng(7), rc = c.rng(7), rd = a.rng(8);
  bool differs_seed = false, differs_stream = false;
  for (int i = 0; i < 100; ++i) {
    const uint64_t x = ra.next(), y = rb.next(), z = rc.next(), w = rd.next();
    REQUIRE(x == y);
    differs_seed |= x != z;
    differs_stream |= x != w;
  }
  CHECK(differs_seed);
  CHECK(differs_stream);
}

namespace {

// Records the arg of every event it runs, in order.
struct OrderLog final : sim::EventHandler {
  using EventHandler::EventHandler;
  std::vector<uint64_t> order;
  void on_event(uint32_t, uint64_t arg) override { order.push_back(arg); }
};

}  // namespace

TEST_CASE("scheduler: an event pushed at a reservation fires where a push then would have",
          "[unit][sim]") {
  sim::Scheduler s;
  OrderLog log{s};
  sim::Reservation r;
  s.push(sim::Time(50), &log, 0, 1);  // before the reservation: first among equals
  s.reserve(r, sim::Time(50));
  s.push(sim::Time(50), &log, 0, 3);  // after it
  s.push(sim::Time(40), &log, 0, 0);
  s.push_reserved(r, &log, 0, 2);  // pushed last, placed second at 50
  while (!s.empty()) {
    const sim::Event e = s.pop();
    e.target->on_event(e.kind, e.arg);
  }
  CHECK(log.order == std::vector<uint64_t>{0, 1, 2, 3});
}

TEST_CASE("scheduler: a reservation is passed once an event after its place runs", "[unit][sim]") {
  sim::Scheduler s;
  OrderLog log{s};
  sim::Reservation early, late;
  s.push(sim::Time(10), &log, 0, 1);
  s.reserve(early, sim::Time(10));  // after the event at 10
  s.reserve(late, sim::Time(20));
  CHECK_FALSE(s.passed(early));  // nothing has run yet
  s.pop();
  CHECK_FALSE(s.passed(early));  // the event at 10 came before it
  s.push(sim::Time(10), &log, 0, 2);
  s.pop();
  CHECK(s.passed(early));  // pushed after the reservation, so it ran after its place
  CHECK_FALSE(s.passed(late));
}

TEST_CASE("scheduler: an ordered timer fires where its latest arm would have pushed",
          "[unit][sim]") {
  sim::Simulator sim(1);
  OrderLog log{sim};
  sim::OrderedTimer timer(sim, &log, 0, 100);
  struct Script final : sim::EventHandler {
    using EventHandler::EventHandler;
    sim::Simulator* sim;
    sim::OrderedTimer* timer;
    OrderLog* log;
    void on_event(uint32_t step, uint64_t) override {
      if (step == 0) {
        timer->arm(10_us);
        sim->at(12_us, log, 0, 1);
      } else {
        timer->arm(12_us);  // later: the event pending at 10 us moves to this arm's place
        sim->at(12_us, log, 0, 2);
      }
    }
  } script{sim};
  script.sim = &sim;
  script.timer = &timer;
  script.log = &log;
  sim.at(sim::Time(0), &script, 0);
  sim.at(1_us, &script, 1);
  sim.run();
  // A re-armed sim::Timer would fire after event 2 (it re-pushes when its old event comes due).
  CHECK(log.order == std::vector<uint64_t>{1, 100, 2});
  CHECK(sim.now() == 12_us);
}

TEST_CASE("scheduler: an ordered timer keeps one event pending however often it is re-armed",
          "[unit][sim]") {
  sim::Simulator sim(1);
  OrderLog log{sim};
  sim::OrderedTimer timer(sim, &log, 0, 7);
  for (int k = 1; k <= 100; ++k) timer.arm(sim::Time(1000 * k));  // each later than the last
  CHECK(sim.pending_events() == 1);
  timer.arm(sim::Time(500));  // pulled in: one more event, the old one is dropped when due
  CHECK(sim.pending_events() == 2);
  sim.run();
  CHECK(log.order == std::vector<uint64_t>{7});
  CHECK(sim.now() == sim::Time(1000));  // the superseded event still ran (and did nothing)
  timer.arm(sim::Time(5000));
  timer.cancel();
  sim.run();
  CHECK(log.order.size() == 1);
  CHECK_FALSE(timer.armed());
}

namespace {

struct NullHandler final : sim::EventHandler {
  using EventHandler::EventHandler;
  void on_event(uint32_t, uint64_t) override {}
};

// Pushes events `delays` ahead of the last popped time, interleaved with pops, and checks that
// they pop in (time, insertion) order — the order a plain sorted list gives. A step pushes up
// to `max_pushes` events; a delay of -1 pushes at the next window's start plus the push's
// number within its step (a step's pushes in order: the runs a dense window is made of).
void check_random_order(const std::vector<int64_t>& delays, uint64_t seed, int max_pushes = 4,
                        int steps = 20000) {
  sim::Scheduler s;
  NullHandler target{s};
  sim::Rng rng(seed, 1);
  std::vector<std::pair<int64_t, uint64_t>> reference;  // (time, arg = insertion number)
  std::vector<std::pair<int64_t, uint64_t>> popped;
  int64_t now = 0;
  uint64_t next = 0;
  for (int step = 0; step < steps; ++step) {
    const int pushes = static_cast<int>(rng.uniform() * max_pushes);
    for (int k = 0; k < pushes; ++k) {
      const int64_t d = delays[static_cast<size_t>(rng.uniform() * delays.size())];
      const int64_t t = d < 0 ? (now / 2048 + 1) * 2048 + k
                              : now + static_cast<int64_t>(rng.uniform() * static_cast<double>(d));
      s.push(sim::Time(t), &target, static_cast<uint32_t>(next % 7), next);
      reference.emplace_back(t, next);
      ++next;
    }
    if (!s.empty() && rng.uniform() < 0.6) {
      // Asking for the top time may turn the wheel; pushes after it stay in order.
      REQUIRE(s.top_time().ps >= now);
      sim::Event e;
      if (rng.uniform() < 0.5) {
        e = s.pop();
      } else {
        // The run loop's pop: refused at its limits, with nothing taken; taken within them.
        const sim::Time top = s.top_time();
        REQUIRE_FALSE(s.pop_before(top, sim::Time::max(), e));
        REQUIRE_FALSE(s.pop_before(sim::Time::max(), sim::Time(top.ps - 1), e));
        REQUIRE(s.pop_before(sim::Time(top.ps + 1), top, e));
        REQUIRE(e.time.ps == top.ps);
      }
      REQUIRE(e.kind == e.arg % 7);
      now = e.time.ps;
      popped.emplace_back(e.time.ps, e.arg);
    }
  }
  for (sim::Event e; s.pop_before(sim::Time::max(), sim::Time::max(), e);) {
    popped.emplace_back(e.time.ps, e.arg);
  }
  REQUIRE(s.empty());
  REQUIRE(popped.size() == reference.size());
  // Each pop is the least pending (time, insertion) pair at that moment: replay with a set.
  std::sort(reference.begin(), reference.end());
  std::vector<std::pair<int64_t, uint64_t>> sorted_popped = popped;
  std::sort(sorted_popped.begin(), sorted_popped.end());
  REQUIRE(sorted_popped == reference);
  for (size_t k = 1; k < popped.size(); ++k) {
    REQUIRE(popped[k - 1].first <= popped[k].first);
    if (popped[k - 1].first == popped[k].first) REQUIRE(popped[k - 1].second < popped[k].second);
  }
}

}  // namespace

// The event list is a time wheel of 2 ns windows with a sorted current window, a sorted side
// array and a side heap for events pushed into it out of order (pushes at the current
// picosecond, in order among themselves, go to the array; the others of the current window
// mostly to the heap), 4,096 buckets ahead and a heap beyond: every path, alone and mixed,
// keeps the exact order, popped by pop() and by the run loop's pop_before.
TEST_CASE("scheduler: the time wheel keeps the exact order at every distance", "[unit][sim]") {
  const std::vector<std::vector<int64_t>> mixes = {
      {1},            // the same picosecond and the current window
      {2048, 4096},   // the current window and the next ones
      {1'000'000},    // inside the ring (8.4 us ahead)
      {100'000'000},  // mostly beyond the ring
      {1, 3000, 1'000'000, 50'000'000, 10'000'000'000},  // everything at once
  };
  uint64_t seed = 1;
  for (const auto& delays : mixes) {
    check_random_order(delays, seed++);
  }
}

// A window's entries are sorted when it becomes the current one: fewer than 8 in place, up to
// 31 counted into sub-windows first, more merged from their ordered runs (or sorted, when they
// are many): each way keeps the exact order.
TEST_CASE("scheduler: windows of every size pop in the exact order", "[unit][sim]") {
  uint64_t seed = 100;
  for (const int max_pushes : {12, 40, 200}) {
    INFO(max_pushes << " pushes a step at most");
    const int steps = 40000 / max_pushes;                   // dense windows, not more of them
    check_random_order({2048}, seed++, max_pushes, steps);  // random within the next windows
    check_random_order({-1}, seed++, max_pushes, steps);    // ordered runs
    check_random_order({-1, -1, -1, 4096}, seed++, max_pushes, steps);  // runs and strays
    check_random_order({1, -1, 1'000'000}, seed++, max_pushes, steps);
  }
}

TEST_CASE("scheduler: an event pushed before the window the top time turned to runs first",
          "[unit][sim]") {
  sim::Scheduler s;
  NullHandler target{s};
  s.push(sim::Time(1'000'000'000), &target, 0, 1);  // 1 ms: beyond the ring
  REQUIRE(s.top_time().ps == 1'000'000'000);        // the wheel jumps to that window
  s.push(sim::Time(5), &target, 0, 2);              // earlier than the current window
  s.push(sim::Time(1'000'000'000), &target, 0, 3);  // same time, pushed later
  REQUIRE(s.top_time().ps == 5);
  REQUIRE(s.pop().arg == 2);
  REQUIRE(s.pop().arg == 1);
  REQUIRE(s.pop().arg == 3);
  REQUIRE(s.empty());
}

namespace {

// Logs its prefetch hints and its events, in the order the run loop makes them.
struct HintLog final : sim::EventHandler {
  using EventHandler::EventHandler;
  std::vector<std::string> log;
  void on_event(uint32_t, uint64_t arg) override { log.push_back("run " + std::to_string(arg)); }
  void prefetch(uint32_t, uint64_t arg, int depth) const override {
    const_cast<HintLog*>(this)->log.push_back("hint" + std::to_string(depth) + " " +
                                              std::to_string(arg));
  }
};

}  // namespace

// The run loop asks each handler for its prefetch two events ahead (depth 0) and one event
// ahead (depth 1), for the events that will run next, in their order.
TEST_CASE("scheduler: the run loop prefetches for the next events, deeper as they come",
          "[unit][sim]") {
  sim::Simulator sim(1);
  HintLog h{sim};
  for (uint64_t i = 0; i < 5; ++i) sim.at(sim::Time(100 + static_cast<int64_t>(i)), &h, 0, i);
  sim.run();
  const std::vector<std::string> expected = {// popping 0: 2 is two ahead, 1 one ahead
                                             "hint0 2", "hint1 1", "run 0",  //
                                             "hint0 3", "hint1 2", "run 1",  //
                                             "hint0 4", "hint1 3", "run 2",  //
                                             "hint1 4", "run 3",             // nothing two ahead
                                             "run 4"};
  REQUIRE(h.log == expected);
  // upcoming() names the events after the next one to pop, in order, or none.
  sim::Scheduler s;
  s.push(sim::Time(10), &h, 3, 30);
  s.push(sim::Time(11), &h, 4, 40);
  REQUIRE(s.top_time().ps == 10);
  REQUIRE(s.upcoming(0).arg == 30);
  REQUIRE(s.upcoming(1).arg == 40);
  REQUIRE(s.upcoming(1).kind == 4);
  REQUIRE(s.upcoming(2).target == nullptr);
}

// A dense window's array is not kept by the bucket it passes to: without that, each dense
// window left its capacity in another bucket until all 4,096 held one.
TEST_CASE("scheduler: spent dense windows do not pile up room in the buckets", "[unit][sim]") {
  sim::Scheduler s;
  NullHandler target{s};
  int64_t t = 0;
  for (int round = 0; round < 40; ++round) {
    t += 7 * 2048 + 1;  // a new window, a different bucket each round
    for (uint64_t i = 0; i < 10000; ++i) s.push(sim::Time(t), &target, 0, i);
    s.push(sim::Time(t + 2048), &target, 0, 0);  // the next window, so the ring turns to it
    while (!s.empty()) (void)s.pop();
  }
  // At most one dense array (16,384 entries: the vector's doubling) and 64 entries per bucket.
  CHECK(s.retained_entries() <= 4096 * 64 + 2 * 16384);
}

namespace {

// Pushes, when it runs, one event for each of its targets at the current time plus its delay.
struct Pusher final : sim::EventHandler {
  using EventHandler::EventHandler;
  sim::Simulator* sim = nullptr;
  std::vector<std::pair<sim::EventHandler*, int64_t>> targets;  // (target, delay ps)
  void on_event(uint32_t, uint64_t arg) override {
    for (auto& [t, d] : targets) sim->after(sim::Time(d), t, 0, arg);
  }
};

}  // namespace

TEST_CASE(
    "scheduler: equal-time events fire in the order they were pushed in simulated time, "
    "then of their origins' numbers",
    "[unit][sim]") {
  sim::Simulator sim(1);
  Pusher first{sim}, second{sim}, third{sim};  // numbered 1, 2, 3: construction order
  OrderLog log{sim};
  REQUIRE(first.origin() == 1);
  REQUIRE(second.origin() == 2);
  REQUIRE(log.origin() == 4);
  first.sim = second.sim = third.sim = &sim;
  first.targets = {{&log, 100}, {&log, 100}};
  second.targets = {{&log, 100}};
  third.targets = {{&log, 150}};
  // At 0 `second` runs first and pushes first, but `first`'s events at 100 ps come before its
  // own: an origin's number decides between origins pushing at the same time, its count
  // between its own events. `third` pushes at 50 ps for 150 ps, `first` at 100 ps for 200 ps:
  // `third`'s came first in simulated time, so it fires first although numbered after.
  sim.at(sim::Time(0), &second, 0, 20);
  sim.at(sim::Time(0), &first, 0, 10);
  sim.at(sim::Time(50), &third, 0, 30);
  sim.at(sim::Time(100), &first, 0, 11);
  sim.run();
  CHECK(log.order == std::vector<uint64_t>{10, 10, 20, 30, 11, 11});
}

namespace {

// A handler of a run that may be split: it lives in one of the event lists ("partitions") and
// sends its events to its peers through `send`, which a split run routes through a mailbox when
// the peer lives in another list.
struct Node;
struct SplitRun {
  std::vector<std::unique_ptr<sim::Scheduler>> lists;
  std::vector<int> home;  // [node] its list
  struct Mail {
    sim::Place place;
    Node* target;
    uint64_t arg;
  };
  std::vector<std::vector<Mail>> mailbox;  // [list] events from other lists, for the next window
  int running = 0;                         // the list whose event runs
  int64_t now = 0;
  void send(Node* to, int64_t at, uint64_t arg);
};

struct Node final : sim::EventHandler {
  Node(sim::Scheduler& numbering, SplitRun& r, int i) : EventHandler(numbering), run(r), id(i) {}
  SplitRun& run;
  int id;
  std::vector<Node*> local, remote;  // peers in its own part of the graph, across the cut
  sim::Rng rng{7, 0};
  std::vector<std::pair<int64_t, uint64_t>> seen;  // (time, arg) of every event it ran
  void on_event(uint32_t, uint64_t arg) override {
    seen.emplace_back(run.now, arg);
    if (arg > 300) return;
    // Many ties: local peers at 0 or 8 ps, remote ones 100 ps later (the lookahead).
    for (Node* p : local) run.send(p, run.now + 8 * static_cast<int64_t>(rng.below(2)), arg * 2);
    for (Node* p : remote) run.send(p, run.now + 100, arg * 2 + 1);
  }
};

void SplitRun::send(Node* to, int64_t at, uint64_t arg) {
  const int dest = home[static_cast<size_t>(to->id)];
  sim::Scheduler& from = *lists[static_cast<size_t>(running)];
  if (dest == running) {
    from.push(sim::Time(at), to, 0, arg);
  } else {
    mailbox[static_cast<size_t>(dest)].push_back({from.take_place(sim::Time(at)), to, arg});
  }
}

// Runs nodes 0..7 (a ring of local peers in each half, each node also sending across) in
// `parts` event lists, window by window of the 100 ps lookahead, and returns what each saw.
std::vector<std::vector<std::pair<int64_t, uint64_t>>> run_split(int parts) {
  sim::Scheduler numbering;  // numbers the nodes the same way however the run is split
  SplitRun run;
  for (int p = 0; p < parts; ++p) run.lists.push_back(std::make_unique<sim::Scheduler>());
  run.mailbox.resize(static_cast<size_t>(parts));
  std::vector<std::unique_ptr<Node>> nodes;
  for (int i = 0; i < 8; ++i) {
    nodes.push_back(std::make_unique<Node>(numbering, run, i));
    run.home.push_back(parts == 1 ? 0 : i / 4);
  }
  for (int i = 0; i < 8; ++i) {
    const int half = i / 4 * 4;
    nodes[i]->local = {nodes[half + (i + 1) % 4].get(), nodes[half + (i + 3) % 4].get()};
    nodes[i]->remote = {nodes[(i + 4) % 8].get()};
  }
  for (int i = 0; i < 8; ++i) {
    run.running = run.home[static_cast<size_t>(i)];
    run.lists[static_cast<size_t>(run.running)]->push(sim::Time(0), nodes[i].get(), 0, 1);
  }
  for (int64_t window = 0; window < 100'000; window += 100) {
    for (int p = 0; p < parts; ++p) {  // the mail of the last window: all of it at or after it
      for (const SplitRun::Mail& m : run.mailbox[static_cast<size_t>(p)]) {
        run.lists[static_cast<size_t>(p)]->push_at(m.place, m.target, 0, m.arg);
      }
      run.mailbox[static_cast<size_t>(p)].clear();
    }
    for (int p = 0; p < parts; ++p) {
      sim::Scheduler& s = *run.lists[static_cast<size_t>(p)];
      run.running = p;
      while (!s.empty() && s.top_time().ps < window + 100) {
        const sim::Event e = s.pop();
        run.now = e.time.ps;
        e.target->on_event(e.kind, e.arg);
      }
    }
  }
  std::vector<std::vector<std::pair<int64_t, uint64_t>>> seen;
  for (auto& n : nodes) seen.push_back(n->seen);
  return seen;
}

}  // namespace

// What makes a run splittable over threads with the same results: each event list runs its own
// handlers' events in the order one list would, because an event's place depends only on its
// time and its origin's history — not on when another list's event reached this one. (Under the
// former (time, insertion) order an event from across the cut took its place when the mailbox
// was emptied, after the local events pushed meanwhile for the same time, and this fails.)
TEST_CASE(
    "scheduler: a run split over event lists runs every handler's events in one list's "
    "order",
    "[unit][sim]") {
  const auto one = run_split(1);
  const auto two = run_split(2);
  size_t events = 0, ties = 0;
  for (const auto& n : one) {
    events += n.size();
    for (size_t k = 1; k < n.size(); ++k) ties += n[k - 1].first == n[k].first;
  }
  REQUIRE(events > 10'000);
  REQUIRE(ties > 1'000);  // equal times abound, so the order among them is tested
  CHECK(two == one);
}

TEST_CASE("scheduler: a stamped boundary event takes its target's count, not the asker's",
          "[unit][sim]") {
  // Whichever handler's event finds a collective's call over (in a split run, any partition's
  // last completion) asks for the next size's start: its place must not depend on who asked.
  // Handlers numbered target 1, other 2, asker 3: two boundary events due together, one asked
  // for by `other` (stamped 2), one by the asker for the target (stamped 1: first).
  struct Asker final : sim::EventHandler {
    Asker(sim::Simulator& s, sim::EventHandler& t, bool stamped)
        : EventHandler(s), sim(s), target(t), stamped(stamped) {}
    void on_event(uint32_t, uint64_t) override {
      if (stamped) {
        sim.at_boundary_stamped(sim::Time(15), &target, 0, 1);
      } else {
        sim.at_boundary(sim::Time(15), &target, 0, 2);
      }
    }
    sim::Simulator& sim;
    sim::EventHandler& target;
    bool stamped;
  };
  for (const bool asker_first : {true, false}) {
    sim::Simulator sim(1);
    OrderLog target(sim.numbering());
    Asker other(sim, target, false), asker(sim, target, true);
    CHECK(target.origin() < other.origin());
    CHECK(other.origin() < asker.origin());
    sim.at(sim::Time(10), asker_first ? &asker : &other, 0, 0);
    sim.at(sim::Time(10), asker_first ? &other : &asker, 0, 0);
    sim.run();
    CHECK(target.order == std::vector<uint64_t>{1, 2});
  }
}
