#include "sim/simulator.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

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

// An event for another partition's handler, at the place it took where it was pushed.
struct Message {
  Place place;
  EventHandler* target;
  uint64_t arg;
  uint32_t kind;
};

struct Simulator::Split {
  std::vector<std::unique_ptr<Scheduler>> lists;  // partitions 1 .. N-1 (0: scheduler_)
  Scheduler boundary;                             // at_boundary's events
  std::vector<std::vector<Message>> inbox;        // [partition] events for it, this window
  Time window;                                    // a window's length: lookahead, grace
  Time window_end = Time::max();                  // of the window running (exclusive)
  uint32_t running = 0;                           // the running event's partition
  bool in_event = false;
};

Simulator::Simulator(uint64_t seed) : seed_(seed) {}
Simulator::~Simulator() = default;

void Simulator::split(uint32_t partitions, Time lookahead) {
  if (partitions < 1) throw std::invalid_argument("a run needs at least one partition");
  if (scheduler_.scheduled_total() != 0 || split_ != nullptr) {
    throw std::logic_error("Simulator::split after events were pushed or twice");
  }
  if (partitions == 1) return;
  if (lookahead <= Time(0)) {
    throw std::invalid_argument(
        "a split run needs a lookahead above 0: partitions meet across a link of no latency");
  }
  split_ = std::make_unique<Split>();
  for (uint32_t p = 1; p < partitions; ++p) split_->lists.push_back(std::make_unique<Scheduler>());
  split_->inbox.resize(partitions);
  split_->window = std::min(lookahead, kStopGrace);
}

uint32_t Simulator::partitions() const {
  return split_ == nullptr ? 1 : static_cast<uint32_t>(split_->inbox.size());
}

void Simulator::set_building_partition(uint32_t p) {
  if (p >= partitions()) throw std::out_of_range("partition " + std::to_string(p));
  building_partition_ = p;
}

Scheduler& Simulator::list(uint32_t p) {
  return p == 0 ? scheduler_ : *split_->lists[p - 1];
}

size_t Simulator::pending_events() const {
  size_t n = scheduler_.size();
  if (split_ != nullptr) {
    n += split_->boundary.size();
    for (const auto& l : split_->lists) n += l->size();
    for (const auto& in : split_->inbox) n += in.size();
  }
  return n;
}

void Simulator::push_split(Time t, EventHandler* target, uint32_t kind, uint64_t arg) {
  push_split_at(running_list_->take_place(t), target, kind, arg);
}

// Into the target's list when it is the running partition's (or no event runs: set-up, between
// runs), else into its mailbox: it must then be due after the window, or a partition that has
// already run past its time would miss it.
void Simulator::push_split_at(const Place& p, EventHandler* target, uint32_t kind, uint64_t arg) {
  Split& sp = *split_;
  const uint32_t to = target->partition();
  if (!sp.in_event || to == sp.running) {
    list(to).push_at(p, target, kind, arg);
    return;
  }
  const Time due(static_cast<int64_t>(p.due ^ (uint64_t{1} << 63)));
  if (due < sp.window_end) {
    throw std::logic_error("an event for handler " + std::to_string(target->origin()) +
                           " of partition " + std::to_string(to) + " due at " +
                           std::to_string(due.ps) + " ps, pushed from partition " +
                           std::to_string(sp.running) + " inside the window ending at " +
                           std::to_string(sp.window_end.ps) +
                           " ps: partitions may meet only across links at least a lookahead long");
  }
  sp.inbox[to].push_back(Message{p, target, arg, kind});
}

void Simulator::at_boundary(Time t, EventHandler* target, uint32_t kind, uint64_t arg) {
  const Place p = running_list_->take_first_place(t);
  if (split_ == nullptr) {
    scheduler_.push_at(p, target, kind, arg);
    return;
  }
  if (split_->in_event && t < split_->window_end) {
    throw std::logic_error("a boundary event for handler " + std::to_string(target->origin()) +
                           " due at " + std::to_string(t.ps) +
                           " ps, pushed inside the window ending at " +
                           std::to_string(split_->window_end.ps) + " ps");
  }
  split_->boundary.push_at(p, target, kind, arg);
}

void Simulator::stop(Time at) {
  at = std::max(at, now_);
  if (at < stopped_at_) stopped_at_ = at;
  stop_requested_ = true;
  const Time end = stopped_at_ + kStopGrace;
  if (end < bound_) bound_ = end;
}

// One event: the clock at its time, the count, the handler, every so often the progress hook.
[[gnu::always_inline]] inline void Simulator::execute(const Event& e) {
  now_ = e.time;
  ++events_executed_;
  e.target->on_event(e.kind, e.arg);
  if (progress_ != nullptr && --countdown_ == 0) {
    countdown_ = progress_every_;
    progress_->on_progress();
  }
}

// The run loop of one list: its events due before `end` and not after `bound_` (which a stop
// may lower while it runs).
void Simulator::run_list(Scheduler& l, Time end) {
  while (!l.empty()) {
    const Time next = l.top_time();
    if (next >= end || next > bound_) return;
    const Event e = l.pop();
    // Prefetching as a pipeline: three events ahead, the handler's own lines; two ahead, what
    // they point to; one ahead, one level further. On a large fabric each is likely a cache
    // miss, and the order of the next events is known (docs/benchmarks.md).
    if (const Event e3 = l.upcoming(2); e3.target != nullptr) {
      __builtin_prefetch(e3.target);
      __builtin_prefetch(reinterpret_cast<const char*>(e3.target) + 64);
    }
    if (const Event e2 = l.upcoming(1); e2.target != nullptr) {
      e2.target->prefetch(e2.kind, e2.arg, 0);
    }
    if (const Event e1 = l.upcoming(0); e1.target != nullptr) {
      e1.target->prefetch(e1.kind, e1.arg, 1);
    }
    execute(e);
  }
}

// The boundary events due at `t`, between two windows: no partition's event runs meanwhile, and
// what they push for partitions goes straight into their lists (every partition is at `t`).
void Simulator::run_boundary(Scheduler& l, Time t) {
  running_list_ = &l;
  building_partition_ = 0;
  while (!l.empty() && l.top_time() == t) {
    execute(l.pop());
  }
  running_list_ = &scheduler_;
}

StopReason Simulator::run(Time limit) {
  // Whichever way the run ends, pushes after it come from outside any event (origin 0).
  struct LeaveEvent {
    Simulator& s;
    ~LeaveEvent() {
      s.running_list_ = &s.scheduler_;
      if (s.split_ != nullptr) s.split_->in_event = false;
      s.scheduler_.leave_event(s.now_);
    }
  } leave{*this};
  stop_requested_ = false;
  stopped_at_ = Time::max();
  bound_ = limit;
  countdown_ = progress_every_;
  if (split_ != nullptr) return run_split(limit);
  run_list(scheduler_, Time::max());
  if (stop_requested_) {
    now_ = bound_;  // the end of the stop's grace (or the limit, when it came first)
    return StopReason::Requested;
  }
  if (scheduler_.empty()) return StopReason::Idle;
  now_ = limit;
  return StopReason::TimeLimit;
}

// Windows: from the earliest pending event, each partition runs its events due within the
// window (one after another here; each reads and writes only its own handlers), then the
// mailboxes are emptied into the lists. The window is no longer than the lookahead, so an
// event crossing into another partition is due after the window, and no longer than the stop
// grace, so a stop asked for in one partition is still ahead of every other one.
StopReason Simulator::run_split(Time limit) {
  Split& sp = *split_;
  const auto partitions = static_cast<uint32_t>(sp.inbox.size());
  Time latest = now_;  // the clock ends at the latest event executed, as in one list
  for (;;) {
    for (uint32_t p = 0; p < partitions; ++p) {
      for (const Message& m : sp.inbox[p]) list(p).push_at(m.place, m.target, m.kind, m.arg);
      sp.inbox[p].clear();
    }
    Time first = Time::max();
    bool any = false;
    for (uint32_t p = 0; p < partitions; ++p) {
      if (!list(p).empty()) {
        first = any ? std::min(first, list(p).top_time()) : list(p).top_time();
        any = true;
      }
    }
    const bool boundary = !sp.boundary.empty();
    const Time next_boundary = boundary ? sp.boundary.top_time() : Time::max();
    if (boundary && (!any || next_boundary <= first)) {
      if (next_boundary > bound_) break;
      run_boundary(sp.boundary, next_boundary);
      latest = std::max(latest, now_);
      continue;
    }
    if (!any || first > bound_) break;
    sp.window_end = std::min(first + sp.window, next_boundary);
    sp.in_event = true;
    for (uint32_t p = 0; p < partitions; ++p) {
      sp.running = p;
      running_list_ = &list(p);
      building_partition_ = p;  // a handler built by an event (a timer) is its partition's
      run_list(list(p), sp.window_end);
      latest = std::max(latest, now_);
    }
    sp.in_event = false;
    running_list_ = &scheduler_;
    building_partition_ = 0;
  }
  sp.window_end = Time::max();
  now_ = latest;
  if (stop_requested_) {
    now_ = bound_;
    return StopReason::Requested;
  }
  if (pending_events() == 0) return StopReason::Idle;
  now_ = limit;
  return StopReason::TimeLimit;
}

}  // namespace sim
