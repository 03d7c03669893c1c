// The event list. Total order: (time, insertion sequence) — two events at the same
// picosecond fire in the order they were scheduled (pinned by scheduler_test.cpp).
// Events are 40-byte values dispatched to a handler object; no std::function, no allocation
// once the heap has grown to its working size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/time.hpp"

namespace sim {

class EventHandler {
 public:
  // `kind` and `arg` are the handler's own: what the event means is up to it.
  virtual void on_event(uint32_t kind, uint64_t arg) = 0;

 protected:
  ~EventHandler() = default;
};

struct Event {
  Time time;
  uint64_t seq = 0;
  EventHandler* target = nullptr;
  uint64_t arg = 0;
  uint32_t kind = 0;
};

// A 4-ary min-heap on (time, seq). Per-port FIFOs (a link's packets in flight, a port's
// queue) keep their own rings and hold at most one event here each, so the heap stays small
// and most scheduling is O(1) amortised in the owning component (DESIGN.md, htsim's pipe).
class Scheduler {
 public:
  void push(Time t, EventHandler* target, uint32_t kind, uint64_t arg) {
    heap_.push_back(Event{t, next_seq_++, target, arg, kind});
    sift_up(heap_.size() - 1);
  }
  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  const Event& top() const { return heap_.front(); }
  Event pop();
  uint64_t scheduled_total() const { return next_seq_; }

 private:
  static bool before(const Event& a, const Event& b) {
    return a.time < b.time || (a.time == b.time && a.seq < b.seq);
  }
  void sift_up(size_t i);
  void sift_down(size_t i);
  std::vector<Event> heap_;
  uint64_t next_seq_ = 0;
};

}  // namespace sim
