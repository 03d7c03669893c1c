#include "sim/simulator.hpp"

namespace sim {

const char* to_string(StopReason r) {
  switch (r) {
    case StopReason::Idle:
      return "idle";
    case StopReason::TimeLimit:
      return "time-limit";
    case StopReason::Requested:
      return "workload-done";
  }
  return "?";
}

StopReason Simulator::run(Time limit) {
  stop_requested_ = false;
  uint64_t countdown = progress_every_;
  while (!scheduler_.empty()) {
    if (scheduler_.top_time() > limit) {
      now_ = limit;
      return StopReason::TimeLimit;
    }
    const Event e = scheduler_.pop();
    // The handlers of the next events, fetched while this one runs: on a large fabric each is
    // likely a cache miss, and their order is known (docs/benchmarks.md).
    if (const EventHandler* next = scheduler_.upcoming(0); next != nullptr) {
      __builtin_prefetch(next);
      __builtin_prefetch(reinterpret_cast<const char*>(next) + 64);
    }
    now_ = e.time;
    ++events_executed_;
    e.target->on_event(e.kind, e.arg);
    if (stop_requested_) return StopReason::Requested;
    if (progress_ != nullptr && --countdown == 0) {
      countdown = progress_every_;
      progress_->on_progress();
    }
  }
  return StopReason::Idle;
}

}  // namespace sim
