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
  current_ = top;
  const uint32_t slot = key_slot(top);
  const Payload& p = payloads_[slot];
  free_slots_.push_back(slot);
  return Event{Time(key_time(top)), p.target, p.arg, p.kind};
}

// Sequence numbers only order events of equal time, so any renumbering that keeps the
// (time, seq) order is invisible — of the pending keys, and also of the live reservations and
// of the event being executed, which are compared with them later. A sorted array is a valid
// heap.
void Scheduler::renumber() {
  // Everything that holds a place: heap keys (tag 0), live reservations (tag 1 + index into
  // reservations_), the current event (tag ~0).
  struct Place {
    Key key;
    uint64_t tag;
  };
  std::vector<Place> places;
  places.reserve(heap_.size() + reservations_.size() + 1);
  for (const Key k : heap_) places.push_back({k, 0});
  for (size_t i = 0; i < reservations_.size(); ++i) {
    const Reservation& r = *reservations_[i];
    if (r.live_) places.push_back({make_key(r.time_.ps, r.seq_, 0), i + 1});
  }
  if (current_ != 0) places.push_back({current_, ~uint64_t{0}});
  std::sort(places.begin(), places.end(),
            [](const Place& a, const Place& b) { return (a.key >> 32) < (b.key >> 32); });
  heap_.clear();
  next_seq_ = 0;
  Key previous = 0;
  for (const Place& p : places) {
    // A reserved event in the heap and its live reservation are one place: one number.
    if (next_seq_ == 0 || (p.key >> 32) != previous) ++next_seq_;
    previous = p.key >> 32;
    const uint32_t seq = next_seq_ - 1;
    if (p.tag == 0) {
      heap_.push_back(make_key(key_time(p.key), seq, key_slot(p.key)));
    } else if (p.tag == ~uint64_t{0}) {
      current_ = make_key(key_time(p.key), seq, key_slot(p.key));
    } else {
      reservations_[p.tag - 1]->seq_ = seq;
    }
  }
}

}  // namespace sim
