#include "sim/scheduler.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>

namespace sim {

namespace {

// Sorts a[0, n) by place, moving each entry back past those after it in the order: few moves for
// entries nearly in order.
template <class Entry>
void insertion_sort(Entry* a, size_t n) {
  for (size_t i = 1; i < n; ++i) {
    if (!(a[i].place < a[i - 1].place)) continue;
    const Entry e = a[i];
    size_t j = i;
    do {
      a[j] = a[j - 1];
      --j;
    } while (j > 0 && e.place < a[j - 1].place);
    a[j] = e;
  }
}

}  // namespace

Scheduler::Scheduler() : buckets_(kBuckets), words_(kWords, 0) {}

// Into the current window: appended to the sorted array when it is the latest there (most are),
// else to the sorted side array when it is the latest there, else into the side heap.
void Scheduler::insert_now(const Place& p, EventHandler* target, uint32_t kind, uint64_t arg) {
  if (head_ == now_.size()) {  // all of the sorted part has run: it starts again
    now_.clear();
    head_ = 0;
  } else if (!(now_.back().place < p)) {
    if (late_head_ == late_run_.size()) {  // all of the side array has run: it starts again
      late_run_.clear();
      late_head_ = 0;
      late_run_.emplace_back(p, target, kind, arg);
    } else if (late_run_.back().place < p) {
      late_run_.emplace_back(p, target, kind, arg);
      return;  // after the side array's next: the least late entry stays
    } else {
      late_heap_.emplace_back(p, target, kind, arg);
      std::push_heap(late_heap_.begin(), late_heap_.end(), Later{});
    }
    update_late_least();
    return;
  }
  now_.emplace_back(p, target, kind, arg);
}

void Scheduler::update_late_least() {
  const bool run = late_head_ != late_run_.size();
  if (late_heap_.empty()) {
    late_next_ = run ? LateLeast::kRun : LateLeast::kNone;
  } else if (!run || late_heap_.front().place < late_run_[late_head_].place) {
    late_next_ = LateLeast::kHeap;
  } else {
    late_next_ = LateLeast::kRun;
  }
}

const Scheduler::Entry& Scheduler::take_late() {
  const Entry* e = &late_top_;
  if (late_next_ == LateLeast::kRun) {
    e = &late_run_[late_head_++];
  } else {
    std::pop_heap(late_heap_.begin(), late_heap_.end(), Later{});
    late_top_ = late_heap_.back();
    late_heap_.pop_back();
  }
  update_late_least();
  return *e;
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
  if (now_.size() > 1) sort_window();
}

// The current window's entries into the event order (docs/benchmarks.md, "Sorting a window by
// its runs"). A dense window holds hundreds or thousands of entries (a 1,024-GPU all-reduce's:
// 870 on average, most due at one or two moments), and they come nearly in order: appended as
// they were pushed, by push time, and most of one moment's pushes in the order of their
// stamps. Half of that run's entries were in windows already in order, most of the others in a
// few ordered runs, and sorting them afresh was a tenth of the run. So a dense window's ordered
// runs are found first (one pass) and, when there are a few, merged pairwise; a window of many
// runs is sorted as entries.
void Scheduler::sort_window() {
  const auto by_place = [](const Entry& a, const Entry& b) { return a.place < b.place; };
  const size_t n = now_.size();
  if (n < kCountMin) {  // a few: in place
    insertion_sort(now_.data(), n);
    return;
  }
  if (n < kMergeMin) {
    sort_small_window();
    return;
  }
  run_starts_.clear();
  run_starts_.push_back(0);
  for (size_t i = 1; i < n; ++i) {
    if (now_[i].place < now_[i - 1].place) {
      if (run_starts_.size() == kMergeMaxRuns) {
        // Too many runs (two moments' sequences interleaved, blocks with one entry a few
        // places late): Timsort's minimum run — chunks put in order in place, then merged.
        run_starts_.clear();
        for (size_t a = 0; a < n; a += kMinRun) {
          insertion_sort(now_.data() + a, std::min(kMinRun, n - a));
          run_starts_.push_back(static_cast<uint32_t>(a));
        }
        break;
      }
      run_starts_.push_back(static_cast<uint32_t>(i));
    }
  }
  if (run_starts_.size() == 1) return;
  run_starts_.push_back(static_cast<uint32_t>(n));
  if (merge_scratch_.size() < n) merge_scratch_.resize(n);
  Entry* from = now_.data();
  Entry* to = merge_scratch_.data();
  while (run_starts_.size() > 2) {  // runs left: size() - 1
    size_t kept = 0;
    size_t r = 0;
    for (; r + 2 < run_starts_.size(); r += 2) {
      const uint32_t a = run_starts_[r], b = run_starts_[r + 1], c = run_starts_[r + 2];
      std::merge(from + a, from + b, from + b, from + c, to + a, by_place);
      run_starts_[kept++] = a;
    }
    if (r + 1 < run_starts_.size()) {  // an odd run out: copied as it is
      const uint32_t a = run_starts_[r], b = run_starts_[r + 1];
      std::copy(from + a, from + b, to + a);
      run_starts_[kept++] = a;
    }
    run_starts_[kept++] = static_cast<uint32_t>(n);
    run_starts_.resize(kept);
    std::swap(from, to);
  }
  if (from != now_.data()) {
    // The merged window is in the scratch array: the arrays trade places instead of copying
    // it back (the copy was 0.8 % of the 1,024-GPU all-reduce's instructions).
    merge_scratch_.resize(n);
    now_.swap(merge_scratch_);
  }
}

// A window of a few entries (a fabric's: 15 on average in the 320-host WebSearch) holds them in
// push order, which is not their order in time: each was pushed a link's, a serialisation's or a
// switch's latency ahead: about half of all pairs out of order. Sorted as they were, by moving
// them one place at a time, they cost about 1,000 instructions a window (7 % of that run).
// Counted into 16 sub-windows by their due time first (a counting sort), then put in order
// within each sub-window (only entries of one sub-window can still be out of order), they cost
// about 700.
void Scheduler::sort_small_window() {
  const size_t n = now_.size();
  constexpr int kSubShift = kWindowShift - 4;
  const auto sub = [](const Entry& e) { return (e.place.due >> kSubShift) & 15; };
  std::array<uint32_t, 17> start{};
  for (const Entry& e : now_) ++start[sub(e) + 1];
  for (size_t b = 1; b < start.size(); ++b) start[b] += start[b - 1];
  if (merge_scratch_.size() < n) merge_scratch_.resize(n);
  Entry* const out = merge_scratch_.data();
  for (const Entry& e : now_) out[start[sub(e)]++] = e;
  insertion_sort(out, n);
  std::copy(out, out + n, now_.data());
}

size_t Scheduler::retained_entries() const {
  size_t n = now_.capacity() + late_run_.capacity() + late_heap_.capacity() + far_.capacity() +
             merge_scratch_.capacity();
  for (const std::vector<Entry>& b : buckets_) n += b.capacity();
  return n;
}

uint64_t Scheduler::new_origin(EventHandler* handler) {
  if ((reinterpret_cast<uintptr_t>(handler) & ~kPointerMask) != 0) {
    throw std::runtime_error(
        "an event handler at an address above 2^48 (the event list keeps "
        "the event's kind in the top 16 bits of its target)");
  }
  if (next_origin_ >= (uint32_t{1} << kOriginBits)) {
    throw std::length_error("more than 16,777,215 event handlers in one simulation");
  }
  handlers_.push_back(handler);
  return uint64_t{next_origin_++} << kCountBits;
}

EventHandler* Scheduler::handler(uint32_t number) const {
  if (number == 0 || number >= handlers_.size()) {
    throw std::out_of_range("no event handler number " + std::to_string(number) + " (" +
                            std::to_string(handlers_.size() - 1) + " built)");
  }
  return handlers_[number];
}

namespace {
[[noreturn]] void refuse_crossing(uint32_t kind, uint32_t origin) {
  throw std::logic_error("an event of kind " + std::to_string(kind) + " for handler " +
                         std::to_string(origin) +
                         " crosses processes, and its handler does not say how to ship it");
}
}  // namespace

void EventHandler::pack_event(uint32_t kind, uint64_t, Bytes&) {
  refuse_crossing(kind, origin());
}

uint64_t EventHandler::unpack_event(uint32_t kind, ByteReader&) {
  refuse_crossing(kind, origin());
}

void Scheduler::count_exhausted() {
  throw std::length_error("an event handler pushed 2^40 events: the event order's count is spent");
}

}  // namespace sim
