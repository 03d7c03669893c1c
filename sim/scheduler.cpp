#include "sim/scheduler.hpp"

#include <algorithm>

namespace sim {

void Scheduler::sift_up(size_t i, Key k) {
  while (i > 0) {
    const size_t parent = (i - 1) / 4;
    if (!(k < heap_[parent])) break;
    heap_[i] = heap_[parent];
    i = parent;
  }
  heap_[i] = k;
}

Event Scheduler::pop() {
  const Key top = heap_.front();
  const Key last = heap_.back();
  heap_.pop_back();
  const size_t n = heap_.size();
  if (n > 0) {
    // Floyd: move the hole at the root down along the smaller children to a leaf.
    Key* h = heap_.data();
    size_t hole = 0;
    for (;;) {
      const size_t first = 4 * hole + 1;
      size_t best;
      if (first + 4 <= n) {
        // A tournament of three comparisons; the compiler turns it into conditional moves.
        const size_t a = h[first + 1] < h[first] ? first + 1 : first;
        const size_t b = h[first + 3] < h[first + 2] ? first + 3 : first + 2;
        best = h[b] < h[a] ? b : a;
      } else if (first < n) {
        best = first;
        for (size_t c = first + 1; c < n; ++c) {
          if (h[c] < h[best]) best = c;
        }
      } else {
        break;
      }
      h[hole] = h[best];
      hole = best;
    }
    sift_up(hole, last);
  }
  const uint32_t slot = key_slot(top);
  const Payload& p = payloads_[slot];
  free_slots_.push_back(slot);
  return Event{Time(key_time(top)), p.target, p.arg, p.kind};
}

// Sequence numbers only order events of equal time, so any renumbering that keeps the
// (time, seq) order of the pending keys is invisible. A sorted array is a valid heap.
void Scheduler::renumber() {
  std::sort(heap_.begin(), heap_.end());
  next_seq_ = 0;
  for (Key& k : heap_) k = make_key(key_time(k), next_seq_++, key_slot(k));
}

}  // namespace sim
