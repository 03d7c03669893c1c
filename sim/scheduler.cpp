#include "sim/scheduler.hpp"

#include <algorithm>

namespace sim {

void Scheduler::sift_up(size_t i) {
  const Key e = heap_[i];
  while (i > 0) {
    const size_t parent = (i - 1) / 4;
    if (!before(e, heap_[parent])) break;
    heap_[i] = heap_[parent];
    i = parent;
  }
  heap_[i] = e;
}

void Scheduler::sift_down(size_t i) {
  const size_t n = heap_.size();
  const Key e = heap_[i];
  for (;;) {
    const size_t first = 4 * i + 1;
    if (first >= n) break;
    size_t best = first;
    const size_t last = first + 4 < n ? first + 4 : n;
    for (size_t c = first + 1; c < last; ++c) {
      if (before(heap_[c], heap_[best])) best = c;
    }
    if (!before(heap_[best], e)) break;
    heap_[i] = heap_[best];
    i = best;
  }
  heap_[i] = e;
}

Event Scheduler::pop() {
  const Key top = heap_.front();
  heap_.front() = heap_.back();
  heap_.pop_back();
  if (!heap_.empty()) sift_down(0);
  const Payload& p = payloads_[top.slot];
  free_slots_.push_back(top.slot);
  return Event{Time(top.time), p.target, p.arg, p.kind};
}

// Sequence numbers only order events of equal time, so any renumbering that keeps the
// (time, seq) order of the pending keys is invisible. A sorted array is a valid heap.
void Scheduler::renumber() {
  std::sort(heap_.begin(), heap_.end(), before);
  next_seq_ = 0;
  for (Key& k : heap_) k.seq = next_seq_++;
}

}  // namespace sim
