#include "sim/scheduler.hpp"

#include <algorithm>

namespace sim {

Scheduler::Scheduler(uint32_t seq_limit)
    : buckets_(kBuckets), words_(kWords, 0), seq_limit_(seq_limit) {}

// Into the current window: appended to the sorted array when it is the latest there (most are),
// else into the side heap.
void Scheduler::insert_now(Key key, EventHandler* target, uint64_t arg) {
  if (head_ == now_.size()) {  // all of the sorted part has run: it starts again
    now_.clear();
    head_ = 0;
    now_.emplace_back(key, target, arg);
  } else if (now_.back().key < key) {
    now_.emplace_back(key, target, arg);
  } else {
    late_.emplace_back(key, target, arg);
    std::push_heap(late_.begin(), late_.end(), Later{});
  }
}

Scheduler::Entry Scheduler::pop_late() {
  std::pop_heap(late_.begin(), late_.end(), Later{});
  const Entry e = late_.back();
  late_.pop_back();
  return e;
}

void Scheduler::push_far(Key key, EventHandler* target, uint64_t arg) {
  far_.emplace_back(key, target, arg);
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
    current_window_ = window(far_.front().key);
  }
  while (!far_.empty() && window(far_.front().key) - current_window_ < kBuckets) {
    std::pop_heap(far_.begin(), far_.end(), Later{});
    const Entry e = far_.back();
    far_.pop_back();
    const uint64_t w = window(e.key);
    if (w == current_window_) {
      now_.push_back(e);
    } else {
      buckets_[w & (kBuckets - 1)].push_back(e);
      mark(w & (kBuckets - 1));
    }
  }
  std::sort(now_.begin(), now_.end(), [](const Entry& a, const Entry& b) { return a.key < b.key; });
}

size_t Scheduler::retained_entries() const {
  size_t n = now_.capacity() + late_.capacity() + far_.capacity();
  for (const std::vector<Entry>& b : buckets_) n += b.capacity();
  return n;
}

// Sequence numbers only order events of equal time, so any renumbering that keeps the
// (time, seq) order is invisible — of the pending keys, and also of the live reservations and
// of the event being executed, which are compared with them later. It keeps every container's
// own order too: `now_` stays sorted, `late_` and `far_` heaps.
void Scheduler::renumber() {
  // Everything that holds a place: pending entries, live reservations, the current event.
  struct Place {
    Key order;  // (time, seq): the key without its kind
    Entry* entry = nullptr;
    Reservation* reservation = nullptr;
  };
  std::vector<Place> places;
  places.reserve(size_ + reservations_.size() + 1);
  const auto add_all = [&places](std::vector<Entry>& v, size_t from) {
    for (size_t i = from; i < v.size(); ++i) places.push_back({v[i].key >> 32, &v[i], nullptr});
  };
  add_all(now_, head_);
  add_all(late_, 0);
  for (std::vector<Entry>& b : buckets_) add_all(b, 0);
  add_all(far_, 0);
  for (Reservation* r : reservations_) {
    if (r->live_) places.push_back({make_key(r->time_.ps, r->seq_, 0) >> 32, nullptr, r});
  }
  if (current_ != 0) places.push_back({current_ >> 32, nullptr, nullptr});
  std::sort(places.begin(), places.end(),
            [](const Place& a, const Place& b) { return a.order < b.order; });
  next_seq_ = 0;
  Key previous = 0;
  for (const Place& p : places) {
    // A reserved event pending and its live reservation are one place: one number.
    if (next_seq_ == 0 || p.order != previous) ++next_seq_;
    previous = p.order;
    const uint32_t seq = next_seq_ - 1;
    if (p.entry != nullptr) {
      p.entry->key = make_key(key_time(p.entry->key), seq, static_cast<uint32_t>(p.entry->key));
    } else if (p.reservation != nullptr) {
      p.reservation->seq_ = seq;
    } else {
      current_ = make_key(key_time(current_), seq, static_cast<uint32_t>(current_));
    }
  }
}

}  // namespace sim
