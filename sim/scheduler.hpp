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
  // Asks the cache for what on_event(kind, arg) will read, a few events before it runs: a hint
  // that changes no state. The run loop calls it twice for each event: `depth` 0 two events
  // ahead, when the handler's own lines have been asked for (read what they point to), and
  // `depth` 1 one event ahead, when what depth 0 asked for has come (read one level further).
  // Handlers on the per-packet path override it (docs/benchmarks.md).
  virtual void prefetch(uint32_t /*kind*/, uint64_t /*arg*/, int /*depth*/) const {}

 protected:
  ~EventHandler() = default;
};

class Scheduler;

// A place in the event order — (time, sequence number) — taken now for an event that may turn
// out to be needed later. `Scheduler::reserve` takes the sequence number a push at this moment
// would take; `Scheduler::push_reserved` schedules an event there, so an event pushed late fires
// exactly where it would have fired had it been pushed when reserved: before the events pushed
// in between at the same time. A component whose usual event is most often useless (a port's end
// of transmission with nothing queued, a pause deadline a later frame replaces) reserves instead
// of pushing, and pushes only when the event matters; results do not change, the event list
// stays small (docs/benchmarks.md). A reservation registers with its scheduler, which rewrites
// it when sequence numbers are renumbered, so it neither copies nor moves.
class Reservation {
 public:
  explicit Reservation(Scheduler& s);
  ~Reservation();
  Reservation(const Reservation&) = delete;
  Reservation& operator=(const Reservation&) = delete;

  Time time() const { return time_; }
  // Taken and not released: its place is kept through renumbering.
  bool live() const { return live_; }

 private:
  friend class Scheduler;
  Scheduler& scheduler_;
  Time time_;
  uint32_t seq_ = 0;
  uint32_t index_ = 0;  // in the scheduler's registry
  bool live_ = false;
};

struct Event {
  Time time;
  EventHandler* target = nullptr;
  uint64_t arg = 0;
  uint32_t kind = 0;
};

// A bucketed time wheel (a calendar queue: R. Brown, CACM 31(10), 1988; docs/references.md)
// with an exact (time, seq) order. Time is cut into windows of 2^kWindowShift ps; the events of
// the current window wait in `now_`, sorted, and are taken from its front; the events of the next
// kBuckets - 1 windows wait unsorted in a ring of buckets, one per window, and a bucket is sorted
// only when its window becomes the current one; later events wait in a min-heap (`far_`) and move
// into the ring as it turns. Pushing is an append to a bucket; popping is reading the next entry
// of a small sorted array — where a heap of the same events sifts through several cache lines at
// every push and pop, out of the L2 cache on a large fabric (docs/benchmarks.md). Per-port FIFOs
// (a link's packets in flight, a port's queue) keep their own rings and hold at most one event
// here each (DESIGN.md, htsim's pipe).
//
// An entry carries its event (target, kind, arg) beside its key, 32 bytes, so that nothing is
// looked up elsewhere when it runs. A key is one unsigned 128-bit number — time (sign bit
// flipped, so unsigned order is signed order), then the sequence, then the kind — so ordering is
// one wide comparison; (time, seq) is unique, so the kind never decides. Invariant: `now_` holds
// every event of a window up to the current one (an event pushed earlier than the current window,
// which a caller may do after asking for the top time, goes there too), bucket w % kBuckets the
// events of window w for current < w < current + kBuckets, `far_` the rest. The sequence wraps
// after 2^32 insertions; the pending keys are then renumbered in their (time, seq) order, which
// keeps the total order (and every container's own order).
class Scheduler {
 public:
  // `seq_limit`: sequence numbers run below it before renumbering (small only in tests).
  explicit Scheduler(uint32_t seq_limit = 0xffffffffu);

  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  void push(Time t, EventHandler* target, uint32_t kind, uint64_t arg) {
    if (next_seq_ >= seq_limit_) renumber();
    insert(make_key(t.ps, next_seq_++, kind), target, arg);
  }
  // Takes the place in the order of an event at `t` pushed now (`r` may hold an earlier one: it
  // is replaced).
  void reserve(Reservation& r, Time t) {
    if (next_seq_ >= seq_limit_) renumber();
    r.time_ = t;
    r.seq_ = next_seq_++;
    r.live_ = true;
  }
  // Schedules an event at `r`'s place (its time must not have passed). `r` stays live: the
  // owner may still ask `is_current(r)` when it fires.
  void push_reserved(const Reservation& r, EventHandler* target, uint32_t kind, uint64_t arg) {
    insert(make_key(r.time_.ps, r.seq_, kind), target, arg);
  }
  void release(Reservation& r) { r.live_ = false; }
  // The event being executed (the last one popped) is at `r`'s place.
  bool is_current(const Reservation& r) const {
    return (make_key(r.time_.ps, r.seq_, 0) >> 32) == (current_ >> 32);
  }
  // `r`'s place is before the event being executed: an event pushed there would have fired.
  bool passed(const Reservation& r) const {
    return (make_key(r.time_.ps, r.seq_, 0) >> 32) < (current_ >> 32);
  }

  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  // The earliest pending event's time (not empty). May turn the wheel to that event's window.
  Time top_time() {
    if (head_ == now_.size() && late_.empty()) advance();
    return Time(key_time(late_first() ? late_.front().key : now_[head_].key));
  }
  Event pop() {
    if (head_ == now_.size() && late_.empty()) advance();
    const Entry e = late_first() ? pop_late() : now_[head_++];
    --size_;
    current_ = e.key;
    return Event{Time(key_time(e.key)), e.target, e.arg, static_cast<uint32_t>(e.key)};
  }
  uint64_t scheduled_total() const { return scheduled_total_; }
  // Entries the event list has room for (its memory, 32 bytes each): the pending ones, and the
  // room kept in spent windows' arrays — at most kKeptCapacity per bucket beyond the largest.
  size_t retained_entries() const;
  // The pending event `ahead` places after the next one to pop, when it is in the sorted part
  // of the current window (else an event without target): the run loop prefetches for it while
  // earlier events execute. It may turn out not to be next (a late push): only a hint.
  Event upcoming(size_t ahead) const {
    const size_t i = head_ + ahead;
    if (i >= now_.size()) return Event{};
    const Entry& e = now_[i];
    return Event{Time(key_time(e.key)), e.target, e.arg, static_cast<uint32_t>(e.key)};
  }

 private:
  __extension__ typedef unsigned __int128 Key;
  static constexpr uint64_t kSignBit = uint64_t{1} << 63;
  // 2^11 ps = 2.05 ns per window and 4,096 windows in the ring: 8.4 us ahead. Serialisation,
  // switch latencies and links (ns to a few us) land in the ring; timeouts, PFC pause times and
  // sampling periods mostly in `far_`. Any width is correct; this one was the fastest of 2^10 to
  // 2^18 ps on the benchmark fabrics (docs/benchmarks.md): wider windows hold hundreds of events
  // (more sorting, more late pushes into the current window), narrower ones send more to `far_`.
  static constexpr int kWindowShift = 11;
  static constexpr size_t kBuckets = 4096;
  static constexpr size_t kWords = kBuckets / 64;
  static constexpr size_t kKeptCapacity = 64;  // entries an empty bucket may keep room for
  static Key make_key(int64_t time, uint32_t seq, uint32_t kind) {
    return (Key{static_cast<uint64_t>(time) ^ kSignBit} << 64) | (Key{seq} << 32) | Key{kind};
  }
  static int64_t key_time(Key k) {
    return static_cast<int64_t>(static_cast<uint64_t>(k >> 64) ^ kSignBit);
  }
  static uint64_t window(Key k) { return static_cast<uint64_t>(k >> 64) >> kWindowShift; }
  struct Entry {
    Entry() = default;
    // For emplace_back (clang 14 has no parenthesised aggregate initialisation).
    Entry(Key k, EventHandler* t, uint64_t a) : key(k), target(t), arg(a) {}
    Key key;
    EventHandler* target;
    uint64_t arg;
  };
  static_assert(sizeof(Entry) == 32, "an entry is half a cache line");
  // The order of the min-heaps `late_` and `far_`: std::push_heap keeps the greatest first under
  // its comparison, so it is given the reverse one. A type, not a function: the heap functions
  // inline a call through it (through a function pointer they did not: 0.9 % of a run).
  struct Later {
    bool operator()(const Entry& a, const Entry& b) const { return a.key > b.key; }
  };
  // The entry is built in its container's slot: built on the stack in 8-byte halves and copied
  // in 16-byte halves, the copy's loads could not be forwarded from those stores and waited for
  // every older store to reach the cache, cache misses included (docs/benchmarks.md).
  void insert(Key key, EventHandler* target, uint64_t arg) {
    ++size_;
    ++scheduled_total_;
    const uint64_t w = window(key);
    if (w <= current_window_) {
      insert_now(key, target, arg);
    } else if (w - current_window_ < kBuckets) {
      const size_t b = w & (kBuckets - 1);
      buckets_[b].emplace_back(key, target, arg);
      mark(b);
    } else {
      push_far(key, target, arg);
    }
  }
  void mark(size_t b) {
    words_[b / 64] |= uint64_t{1} << (b % 64);
    summary_ |= uint64_t{1} << (b / 64);
  }
  void insert_now(Key key, EventHandler* target, uint64_t arg);
  // The next event of the current window is in `late_` (the window is not exhausted).
  bool late_first() const {
    return !late_.empty() && (head_ == now_.size() || late_.front().key < now_[head_].key);
  }
  Entry pop_late();
  void push_far(Key key, EventHandler* target, uint64_t arg);
  void advance();
  size_t next_nonempty_bucket(size_t from) const;
  void renumber();
  friend class Reservation;
  void enrol(Reservation& r) {
    r.index_ = static_cast<uint32_t>(reservations_.size());
    reservations_.push_back(&r);
  }
  void withdraw(Reservation& r) {
    reservations_[r.index_] = reservations_.back();
    reservations_[r.index_]->index_ = r.index_;
    reservations_.pop_back();
  }
  // The current window's events, sorted; those before `head_` have run. An event pushed into
  // the current window before the last one pending there goes to `late_`, a min-heap, instead
  // of shifting the array (a dense window may hold thousands).
  std::vector<Entry> now_;
  size_t head_ = 0;
  std::vector<Entry> late_;
  uint64_t current_window_ = 0;
  std::vector<std::vector<Entry>> buckets_;
  std::vector<uint64_t> words_;  // bit b set: bucket b is not empty
  uint64_t summary_ = 0;         // bit i set: words_[i] is not 0
  std::vector<Entry> far_;       // a min-heap on the key
  size_t size_ = 0;
  std::vector<Reservation*> reservations_;  // every reservation made on this scheduler
  Key current_ = 0;                         // the last key popped (0: none yet)
  uint32_t seq_limit_;
  uint32_t next_seq_ = 0;
  uint64_t scheduled_total_ = 0;

 public:
  // The most memory spent windows' arrays may keep beyond the pending events (bytes).
  static constexpr size_t kMaxKeptBytes = kBuckets * kKeptCapacity * sizeof(Entry);
};

inline Reservation::Reservation(Scheduler& s) : scheduler_(s) {
  s.enrol(*this);
}
inline Reservation::~Reservation() {
  scheduler_.withdraw(*this);
}

}  // namespace sim
