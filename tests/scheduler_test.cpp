// The kernel: the event order is (time, insertion sequence); timers cancel and re-arm.
#include <algorithm>
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "sim/simulator.hpp"

using namespace sim::literals;

namespace {

struct Recorder final : sim::EventHandler {
  sim::Simulator& sim;
  std::vector<std::pair<int64_t, uint64_t>> fired;  // (time ps, arg)
  explicit Recorder(sim::Simulator& s) : sim(s) {}
  void on_event(uint32_t, uint64_t arg) override { fired.emplace_back(sim.now().ps, arg); }
};

}  // namespace

TEST_CASE("scheduler: equal-time events fire in insertion order", "[unit][sim]") {
  sim::Simulator sim(1);
  Recorder r(sim);
  // Interleave times so that heap order alone would not give insertion order.
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
    sim::Timer* c;
    sim::Timer* p;
    sim::Timer* q;
    void on_event(uint32_t, uint64_t) override {
      c->cancel();
      p->arm(p->deadline() + sim::Time(5'000'000));  // 2 us -> 7 us
      q->arm(sim::Time(4'000'000));                  // 9 us -> 4 us
    }
  } actions;
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

TEST_CASE("scheduler: the order survives sequence renumbering", "[unit][sim]") {
  // A limit of 8 forces a renumbering every few insertions while many events are pending.
  sim::Scheduler s(8);
  struct Null final : sim::EventHandler {
    void on_event(uint32_t, uint64_t) override {}
  } target;
  std::vector<std::pair<int64_t, uint64_t>> popped;
  uint64_t next_arg = 0;
  for (int round = 0; round < 50; ++round) {
    for (int k = 0; k < 7; ++k) {
      const int64_t t = 100 * round + (next_arg * 7919) % 5;  // many equal times
      s.push(sim::Time(t), &target, 0, next_arg++);
    }
    for (int k = 0; k < 3; ++k) {
      const sim::Event e = s.pop();
      popped.emplace_back(e.time.ps, e.arg);
    }
  }
  while (!s.empty()) {
    const sim::Event e = s.pop();
    popped.emplace_back(e.time.ps, e.arg);
  }
  REQUIRE(popped.size() == next_arg);
  // Args grow with insertion order, so equal times must pop with increasing args; the times
  // pushed in a round are never earlier than what is still pending from earlier rounds.
  for (size_t k = 1; k < popped.size(); ++k) {
    const auto& a = popped[k - 1];
    const auto& b = popped[k];
    REQUIRE(a.first <= b.first);
    if (a.first == b.first) REQUIRE(a.second < b.second);
  }
}

namespace {

// Records the arg of every event it runs, in order.
struct OrderLog final : sim::EventHandler {
  std::vector<uint64_t> order;
  void on_event(uint32_t, uint64_t arg) override { order.push_back(arg); }
};

}  // namespace

TEST_CASE("scheduler: an event pushed at a reservation fires where a push then would have",
          "[unit][sim]") {
  sim::Scheduler s;
  OrderLog log;
  sim::Reservation r(s);
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
  OrderLog log;
  sim::Reservation early(s), late(s);
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

TEST_CASE("scheduler: reservations keep their place through sequence renumbering", "[unit][sim]") {
  // A limit of 8 renumbers every few insertions; reserved events pushed late must still come
  // before every event pushed after their reservation at the same time.
  sim::Scheduler s(8);
  OrderLog log;
  std::vector<std::unique_ptr<sim::Reservation>> held;
  uint64_t next = 0;  // the order an event must take: args grow with reservation/push order
  std::vector<std::pair<sim::Reservation*, uint64_t>> to_push;
  for (int round = 0; round < 40; ++round) {
    const int64_t t = 100 * (round / 4);  // many equal times
    held.push_back(std::make_unique<sim::Reservation>(s));
    s.reserve(*held.back(), sim::Time(t + 50));
    to_push.emplace_back(held.back().get(), next++);
    for (int k = 0; k < 3; ++k) s.push(sim::Time(t + 50), &log, 0, next++);
    if (round % 3 == 2) {  // push the reservations held so far, late
      for (auto& [r, arg] : to_push) s.push_reserved(*r, &log, 0, arg);
      to_push.clear();
    }
  }
  for (auto& [r, arg] : to_push) s.push_reserved(*r, &log, 0, arg);
  while (!s.empty()) {
    const sim::Event e = s.pop();
    e.target->on_event(e.kind, e.arg);
  }
  REQUIRE(log.order.size() == next);
  // Equal times pop in reservation/push order; times never decrease.
  for (size_t k = 1; k < log.order.size(); ++k) REQUIRE(log.order[k - 1] < log.order[k]);
}

TEST_CASE("scheduler: an ordered timer fires where its latest arm would have pushed",
          "[unit][sim]") {
  sim::Simulator sim(1);
  OrderLog log;
  sim::OrderedTimer timer(sim, &log, 0, 100);
  struct Script final : sim::EventHandler {
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
  } script;
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
  OrderLog log;
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
  void on_event(uint32_t, uint64_t) override {}
};

// Pushes events `delays` ahead of the last popped time, interleaved with pops, and checks that
// they pop in (time, insertion) order — the order a plain sorted list gives.
void check_random_order(uint32_t seq_limit, const std::vector<int64_t>& delays, uint64_t seed) {
  sim::Scheduler s(seq_limit);
  NullHandler target;
  sim::Rng rng(seed, 1);
  std::vector<std::pair<int64_t, uint64_t>> reference;  // (time, arg = insertion number)
  std::vector<std::pair<int64_t, uint64_t>> popped;
  int64_t now = 0;
  uint64_t next = 0;
  for (int step = 0; step < 20000; ++step) {
    const int pushes = static_cast<int>(rng.uniform() * 4.0);
    for (int k = 0; k < pushes; ++k) {
      const int64_t d = delays[static_cast<size_t>(rng.uniform() * delays.size())];
      const int64_t t = now + static_cast<int64_t>(rng.uniform() * static_cast<double>(d));
      s.push(sim::Time(t), &target, static_cast<uint32_t>(next % 7), next);
      reference.emplace_back(t, next);
      ++next;
    }
    if (!s.empty() && rng.uniform() < 0.6) {
      // Asking for the top time may turn the wheel; pushes after it stay in order.
      REQUIRE(s.top_time().ps >= now);
      const sim::Event e = s.pop();
      REQUIRE(e.kind == e.arg % 7);
      now = e.time.ps;
      popped.emplace_back(e.time.ps, e.arg);
    }
  }
  while (!s.empty()) {
    const sim::Event e = s.pop();
    popped.emplace_back(e.time.ps, e.arg);
  }
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

// The event list is a time wheel of 2 ns windows with a sorted current window, a side heap for
// events pushed into it out of order, 4,096 buckets ahead and a heap beyond: every path, alone
// and mixed, keeps the exact order.
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
    check_random_order(0xffffffffu, delays, seed++);
    check_random_order(16, delays, seed++);  // with frequent renumbering
  }
}

TEST_CASE("scheduler: an event pushed before the window the top time turned to runs first",
          "[unit][sim]") {
  sim::Scheduler s;
  NullHandler target;
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
  HintLog h;
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
  NullHandler target;
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
