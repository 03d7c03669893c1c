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

  // Places in the event order kept for events that may be needed later (scheduler.hpp).
  Scheduler& scheduler() { return scheduler_; }
  void reserve(Reservation& r, Time t) { scheduler_.reserve(r, t); }
  void at(const Reservation& r, EventHandler* target, uint32_t kind, uint64_t arg = 0) {
    scheduler_.push_reserved(r, target, kind, arg);
  }
  void release(Reservation& r) { scheduler_.release(r); }
  bool passed(const Reservation& r) const { return scheduler_.passed(r); }
  bool is_current(const Reservation& r) const { return scheduler_.is_current(r); }

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
      : EventHandler(sim),
        sim_(sim),
        owner_(owner),
        owner_kind_(owner_kind),
        owner_arg_(owner_arg) {}
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

// A re-armable, cancellable one-shot timer that fires exactly where an event pushed by the
// latest arm() would have fired — the same time and the same place among equal-time events —
// so it can replace "push an event on every arm and let the superseded ones do nothing" without
// changing any result. arm() reserves that place (scheduler.hpp) and pushes an event only when
// none of the timer's is pending earlier; a pending earlier event re-pushes at the reserved
// place when it comes due. So the event list holds one event per timer, not one per arm (a PFC
// pause refreshed every half pause time left a dead event per frame).
class OrderedTimer final : public EventHandler {
 public:
  OrderedTimer(Simulator& sim, EventHandler* owner, uint32_t owner_kind, uint64_t owner_arg = 0)
      : EventHandler(sim),
        sim_(sim),
        owner_(owner),
        owner_kind_(owner_kind),
        owner_arg_(owner_arg) {}

  void arm(Time deadline) {
    sim_.reserve(place_, deadline);
    // A pending event at the same time was pushed earlier, so it comes first: it re-pushes.
    if (!pending_ || pending_at_ > deadline) push();
  }
  void cancel() { sim_.release(place_); }
  bool armed() const { return place_.live(); }
  Time deadline() const { return place_.time(); }

  void on_event(uint32_t, uint64_t generation) override {
    if (generation != generation_) return;  // an earlier arm pushed one before it
    pending_ = false;
    if (!place_.live()) return;
    if (!sim_.is_current(place_)) {  // re-armed since this event was pushed: go to the place
      push();
      return;
    }
    sim_.release(place_);
    owner_->on_event(owner_kind_, owner_arg_);
  }

 private:
  void push() {
    pending_ = true;
    pending_at_ = place_.time();
    sim_.at(place_, this, 0, ++generation_);
  }
  Simulator& sim_;
  Reservation place_;
  EventHandler* owner_;
  uint32_t owner_kind_;
  uint64_t owner_arg_;
  Time pending_at_;
  uint64_t generation_ = 0;
  bool pending_ = false;
};

inline EventHandler::EventHandler(Simulator& s) : EventHandler(s.scheduler()) {}

}  // namespace sim
