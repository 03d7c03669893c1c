// The Simulator owns everything a run shares — clock, event list, random streams, counters —
// and is passed by reference; there are no globals, so two simulations can run in one process
// (parameter sweeps run many at once).
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <string>

#include "sim/rng.hpp"
#include "sim/scheduler.hpp"
#include "sim/time.hpp"

namespace sim {

// A named 64-bit counter with a stable address: models resolve it once at build time and
// increment it on the hot path without any lookup.
using Counter = uint64_t;

enum class StopReason { Idle, TimeLimit, Requested };

// Called every N events during run() (progress display); never changes the simulation.
class ProgressHook {
 public:
  virtual void on_progress() = 0;

 protected:
  ~ProgressHook() = default;
};
const char* to_string(StopReason r);

class Simulator {
 public:
  explicit Simulator(uint64_t seed) : seed_(seed) {}
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  Time now() const { return now_; }
  uint64_t seed() const { return seed_; }

  void at(Time t, EventHandler* target, uint32_t kind, uint64_t arg = 0) {
    scheduler_.push(t, target, kind, arg);
  }
  void after(Time delay, EventHandler* target, uint32_t kind, uint64_t arg = 0) {
    scheduler_.push(now_ + delay, target, kind, arg);
  }

  // Random stream for a component with a stable id (see rng.hpp).
  Rng rng(uint64_t stream_id) const { return Rng(seed_, stream_id); }

  Counter& counter(const std::string& name) { return counters_[name]; }
  const std::map<std::string, Counter>& counters() const { return counters_; }

  // Runs events until none is left, the next one is later than `limit`, or stop() is called.
  // The clock ends at the last event executed (or at `limit` when the limit stopped it).
  StopReason run(Time limit = Time::max());
  void stop() { stop_requested_ = true; }

  void set_progress(ProgressHook* hook, uint64_t every_events) {
    progress_ = hook;
    progress_every_ = every_events;
  }

  uint64_t events_executed() const { return events_executed_; }
  size_t pending_events() const { return scheduler_.size(); }

 private:
  uint64_t seed_;
  Time now_;
  Scheduler scheduler_;
  std::map<std::string, Counter> counters_;  // std::map: node addresses are stable
  uint64_t events_executed_ = 0;
  bool stop_requested_ = false;
  ProgressHook* progress_ = nullptr;
  uint64_t progress_every_ = 0;
};

// A re-armable, cancellable one-shot timer that keeps at most one event in the list:
// re-arming to a later time keeps the pending event and re-checks the deadline when it fires
// (a retransmission timer pushed back on every ACK costs no heap operation).
class Timer final : public EventHandler {
 public:
  // When it fires, the timer calls owner->on_event(owner_kind, owner_arg).
  Timer(Simulator& sim, EventHandler* owner, uint32_t owner_kind, uint64_t owner_arg = 0)
      : sim_(sim), owner_(owner), owner_kind_(owner_kind), owner_arg_(owner_arg) {}
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;

  void arm(Time deadline) {
    deadline_ = deadline;
    armed_ = true;
    if (!pending_ || pending_at_ > deadline) {
      pending_ = true;
      pending_at_ = deadline;
      sim_.at(deadline, this, 0, ++generation_);
    }
  }
  void arm_in(Time delay) { arm(sim_.now() + delay); }
  void cancel() { armed_ = false; }
  bool armed() const { return armed_; }
  Time deadline() const { return deadline_; }

  void on_event(uint32_t, uint64_t generation) override {
    if (generation != generation_) return;  // superseded by an earlier re-arm
    pending_ = false;
    if (!armed_) return;
    if (deadline_ > sim_.now()) {
      pending_ = true;
      pending_at_ = deadline_;
      sim_.at(deadline_, this, 0, ++generation_);
      return;
    }
    armed_ = false;
    owner_->on_event(owner_kind_, owner_arg_);
  }

 private:
  Simulator& sim_;
  EventHandler* owner_;
  uint32_t owner_kind_;
  uint64_t owner_arg_;
  Time deadline_;
  Time pending_at_;
  uint64_t generation_ = 0;
  bool armed_ = false;
  bool pending_ = false;
};

}  // namespace sim
