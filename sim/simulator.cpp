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
  // Whichever way the run ends, pushes after it come from outside any event (origin 0).
  struct LeaveEvent {
    Scheduler& s;
    const Time& now;
    ~LeaveEvent() { s.leave_event(now); }
  } leave{scheduler_, now_};
  stop_requested_ = false;
  uint64_t countdown = progress_every_;
  while (!scheduler_.empty()) {
    if (scheduler_.top_time() > limit) {
      now_ = limit;
      return StopReason::TimeLimit;
    }
    const Event e = scheduler_.pop();
    // Prefetching as a pipeline: three events ahead, the handler's own lines; two ahead, what
    // they point to; one ahead, one level further. On a large fabric each is likely a cache
    // miss, and the order of the next events is known (docs/benchmarks.md).
    if (const Event e3 = scheduler_.upcoming(2); e3.target != nullptr) {
      __builtin_prefetch(e3.target);
      __builtin_prefetch(reinterpret_cast<const char*>(e3.target) + 64);
    }
    if (const Event e2 = scheduler_.upcoming(1); e2.target != nullptr) {
      e2.target->prefetch(e2.kind, e2.arg, 0);
    }
    if (const Event e1 = scheduler_.upcoming(0); e1.target != nullptr) {
      e1.target->prefetch(e1.kind, e1.arg, 1);
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
