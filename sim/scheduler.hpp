// The event list. Total order: (time, insertion sequence) — two events at the same
// picosecond fire in the order they were scheduled (pinned by scheduler_test.cpp).
// Events are small values dispatched to a handler object; no std::function, no allocation
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
  EventHandler* target = nullptr;
  uint64_t arg = 0;
  uint32_t kind = 0;
};

// A 4-ary min-heap on (time, seq). Per-port FIFOs (a link's packets in flight, a port's
// queue) keep their own rings and hold at most one event here each, so the heap stays small
// and most scheduling is O(1) amortised in the owning component (DESIGN.md, htsim's pipe).
//
// The heap holds only 16-byte keys (time, 32-bit sequence, payload slot); what the event does
// (target, kind, arg) waits in a slot array that the heap never moves. Sifting is what the
// kernel spends its time on, and on a large fabric (thousands of ports and links, each with
// an event pending) it runs out of the L2 cache: 16-byte keys put four children in one cache
// line, where 40-byte events needed three. The sequence wraps after 2^32 insertions; the
// pending keys are then renumbered in their (time, seq) order, which keeps the total order.
class Scheduler {
 public:
  // `seq_limit`: sequence numbers run below it before renumbering (small only in tests).
  explicit Scheduler(uint32_t seq_limit = 0xffffffffu) : seq_limit_(seq_limit) {}

  void push(Time t, EventHandler* target, uint32_t kind, uint64_t arg) {
    uint32_t slot;
    if (!free_slots_.empty()) {
      slot = free_slots_.back();
      free_slots_.pop_back();
      payloads_[slot] = Payload{target, arg, kind};
    } else {
      slot = static_cast<uint32_t>(payloads_.size());
      payloads_.push_back(Payload{target, arg, kind});
    }
    if (next_seq_ == seq_limit_) renumber();
    heap_.push_back(Key{t.ps, next_seq_++, slot});
    ++scheduled_total_;
    sift_up(heap_.size() - 1);
  }
  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  Time top_time() const { return Time(heap_.front().time); }
  Event pop();
  uint64_t scheduled_total() const { return scheduled_total_; }

 private:
  struct Key {
    int64_t time;
    uint32_t seq;
    uint32_t slot;  // index into payloads_
  };
  struct Payload {
    EventHandler* target;
    uint64_t arg;
    uint32_t kind;
  };
  static bool before(const Key& a, const Key& b) {
    return a.time < b.time || (a.time == b.time && a.seq < b.seq);
  }
  void sift_up(size_t i);
  void sift_down(size_t i);
  void renumber();
  std::vector<Key> heap_;
  std::vector<Payload> payloads_;
  std::vector<uint32_t> free_slots_;
  uint32_t seq_limit_;
  uint32_t next_seq_ = 0;
  uint64_t scheduled_total_ = 0;
};

}  // namespace sim
