#include "sim/scheduler.hpp"

#include <algorithm>
#include <stdexcept>

namespace sim {

Scheduler::Scheduler() : buckets_(kBuckets), words_(kWords, 0) {}

// Into the current window: appended to the sorted array when it is the latest there (most are),
// else into the side heap.
void Scheduler::insert_now(const Place& p, EventHandler* target, uint32_t kind, uint64_t arg) {
  if (head_ == now_.size()) {  // all of the sorted part has run: it starts again
    now_.clear();
    head_ = 0;
    now_.emplace_back(p, target, kind, arg);
  } else if (now_.back().place < p) {
    now_.emplace_back(p, target, kind, arg);
  } else {
    late_.emplace_back(p, target, kind, arg);
    std::push_heap(late_.begin(), late_.end(), Later{});
  }
}

Scheduler::Entry Scheduler::pop_late() {
  std::pop_heap(late_.begin(), late_.end(), Later{});
  const Entry e = late_.back();
  late_.pop_back();
  return e;
}

void Scheduler::push_far(const Place& p, EventHandler* target, uint32_t kind, uint64_t arg) {
  far_.emplace_back(p, target, kind, arg);
  std::push_heap(far_.begin(), far_.end(), Later{});
}

// The first non-empty bucket after `from`, going round; some bucket is not empty. Bucket `from`
// itself is empty: the windows it could hold are the current one and one a full turn ahead.
size_t Scheduler::next_nonempty_bucket(size_t from) const {
  const size_t word = from / 64;
  const uint64_t above = (from % 64 == 63) ? 0 : words_[word] & (~uint64_t{0} << (from % 64 + 1));
  if (above != 0) return word * 64 + static_cast<size_t>(__builtin_ctzll(above));
  const uint64_t later_words = (word == 63) ? 0 : summary_ & (~uint64_t{0} << (word + 1));
  const auto next = static_cast<size_t>(__builtin_ctzll(later_words != 0 ? later_words : summary_));
  return next * 64 + static_cast<size_t>(__builtin_ctzll(words_[next]));
}

// The current window has run out (and events remain): the next window with events becomes the
// current one — the next non-empty bucket of the ring, or, when the ring is empty, the earliest
// far event's window — its bucket is sorted into `now_`, and the far events that the turned
// ring now reaches move into it.
void Scheduler::advance() {
  now_.clear();
  head_ = 0;
  if (summary_ != 0) {
    const size_t from = static_cast<size_t>(current_window_ & (kBuckets - 1));
    const size_t found = next_nonempty_bucket(from);
    current_window_ += (found - from) & (kBuckets - 1);
    // The bucket's entries become the current window; the bucket keeps the spent window's
    // array only when it is small: else a dense window's capacity would pass from bucket to
    // bucket until every one of the 4,096 held it (a 1,024-GPU run's peak memory grew fourfold).
    std::vector<Entry>& bucket = buckets_[found];
    now_.swap(bucket);
    if (bucket.capacity() > kKeptCapacity) std::vector<Entry>().swap(bucket);
    words_[found / 64] &= ~(uint64_t{1} << (found % 64));
    if (words_[found / 64] == 0) summary_ &= ~(uint64_t{1} << (found / 64));
  } else {
    current_window_ = window(far_.front().place);
  }
  while (!far_.empty() && window(far_.front().place) - current_window_ < kBuckets) {
    std::pop_heap(far_.begin(), far_.end(), Later{});
    const Entry e = far_.back();
    far_.pop_back();
    const uint64_t w = window(e.place);
    if (w == current_window_) {
      now_.push_back(e);
    } else {
      buckets_[w & (kBuckets - 1)].push_back(e);
      mark(w & (kBuckets - 1));
    }
  }
  std::sort(now_.begin(), now_.end(),
            [](const Entry& a, const Entry& b) { return a.place < b.place; });
}

size_t Scheduler::retained_entries() const {
  size_t n = now_.capacity() + late_.capacity() + far_.capacity();
  for (const std::vector<Entry>& b : buckets_) n += b.capacity();
  return n;
}

uint64_t Scheduler::new_origin(const EventHandler* handler) {
  if ((reinterpret_cast<uintptr_t>(handler) & ~kPointerMask) != 0) {
    throw std::runtime_error(
        "an event handler at an address above 2^48 (the event list keeps "
        "the event's kind in the top 16 bits of its target)");
  }
  if (next_origin_ >= (uint32_t{1} << kOriginBits)) {
    throw std::length_error("more than 16,777,215 event handlers in one simulation");
  }
  return uint64_t{next_origin_++} << kCountBits;
}

void Scheduler::count_exhausted() {
  throw std::length_error("an event handler pushed 2^40 events: the event order's count is spent");
}

}  // namespace sim
