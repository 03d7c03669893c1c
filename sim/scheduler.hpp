// The event list. Total order: (time, time pushed, origin, origin's count). Events due at the
// same picosecond fire in the order they were pushed in simulated time (first come, first
// served, as in ns-3 and htsim); those pushed at the same picosecond too, in the order of their
// origins — the handler whose event was running when each was pushed (origin 0: set-up and
// anything outside an event) — and an origin's own events in the order it pushed them (pinned by
// scheduler_test.cpp). Nothing in this order depends on events of other handlers than the ones
// an event descends from, so a run split over partitions, each with its own event list, runs
// every handler's events in the same order as one event list does (ARCHITECTURE.md, "The event
// order"). Events are small values dispatched to a handler object; no std::function, no
// allocation once the arrays have grown to their working size.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/rank_exchange.hpp"
#include "sim/time.hpp"

namespace sim {

class Scheduler;
class Simulator;

class EventHandler {
 public:
  // `kind` and `arg` are the handler's own: what the event means is up to it. A kind is below
  // 2^16 (it rides in the event's target pointer: scheduler.hpp's Entry).
  virtual void on_event(uint32_t kind, uint64_t arg) = 0;
  // Asks the cache for what on_event(kind, arg) will read, a few events before it runs: a hint
  // that changes no state. The run loop calls it twice for each event: `depth` 0 two events
  // ahead, when the handler's own lines have been asked for (read what they point to), and
  // `depth` 1 one event ahead, when what depth 0 asked for has come (read one level further).
  // Handlers on the per-packet path override it (docs/benchmarks.md).
  virtual void prefetch(uint32_t /*kind*/, uint64_t /*arg*/, int /*depth*/) const {}
  // A run split over processes (sim/rank_exchange.hpp) ships an event for a handler of another
  // process's partition by value: `pack_event`, on the sending process, writes what `arg`
  // stands for there (a packet's contents) and lets go of it; `unpack_event`, on the receiving
  // process, reads that back and returns the event's arg there. By default an event cannot
  // cross processes (its arg may name memory of the sender's): both throw, naming the handler.
  virtual void pack_event(uint32_t kind, uint64_t arg, Bytes& out);
  virtual uint64_t unpack_event(uint32_t kind, ByteReader& in);

  // The handler's number among its simulation's handlers, in construction order (1, 2, ...).
  uint32_t origin() const;
  // The partition whose event list runs its events (0 unless the run is split: simulator.hpp).
  uint32_t partition() const { return partition_; }
  // A handler with a number of its own (not one acting for another: a timer).
  bool numbered() const { return stamp_ptr_ == &stamp_; }

  // A handler takes its number from the event list it will use: construction order, which a
  // build repeats exactly, so numbers are the same in every run of a scenario.
  explicit EventHandler(Scheduler& s);
  explicit EventHandler(Simulator& s);  // (simulator.hpp)
  // A handler that acts for `owner` (a timer): it takes no number of its own and its pushes
  // count in the owner's stamp, so where its events fall depends on the owner's history only —
  // not on when, among other partitions' handlers, it happened to be created during a run.
  struct ActingFor {
    EventHandler& owner;
  };
  explicit EventHandler(ActingFor a)
      : stamp_(0), stamp_ptr_(a.owner.stamp_ptr_), partition_(a.owner.partition_) {}

 protected:
  ~EventHandler() = default;
  // One number per handler: a copy would share it (and its count).
  EventHandler(const EventHandler&) = delete;
  EventHandler& operator=(const EventHandler&) = delete;

 private:
  friend class Scheduler;
  // (number << kCountBits) | events pushed so far: the stamp of the next event it pushes.
  uint64_t stamp_;
  uint64_t* stamp_ptr_;  // &stamp_, or the owner's it acts for
  uint32_t partition_ = 0;
};

// A place in the event order: when an event is due, when it was pushed, and its stamp (origin
// << 40 | count). The times have their sign bit flipped, so unsigned order is signed order.
struct Place {
  uint64_t due = 0;
  uint64_t pushed = 0;
  uint64_t stamp = 0;
  friend bool operator==(const Place&, const Place&) = default;
  friend bool operator<(const Place& a, const Place& b) {
    if (a.due != b.due) return a.due < b.due;
    if (a.pushed != b.pushed) return a.pushed < b.pushed;
    return a.stamp < b.stamp;
  }
};

// A place in the event order taken now for an event that may turn out to be needed later.
// `Scheduler::reserve` takes the place a push at this moment would take;
// `Scheduler::push_reserved` schedules an event there, so an event pushed late fires exactly
// where it would have fired had it been pushed when reserved. A component whose usual event is
// most often useless (a port's end of transmission with nothing queued, a pause deadline a later
// frame replaces) reserves instead of pushing, and pushes only when the event matters; results
// do not change, the event list stays small (docs/benchmarks.md).
class Reservation {
 public:
  Time time() const { return time_; }
  // Taken and not released.
  bool live() const { return live_; }

 private:
  friend class Scheduler;
  Time time_;
  Place place_;
  bool live_ = false;
};

struct Event {
  Time time;
  EventHandler* target = nullptr;
  uint64_t arg = 0;
  uint32_t kind = 0;
};

// A bucketed time wheel (a calendar queue: R. Brown, CACM 31(10), 1988; docs/references.md)
// with an exact order. Time is cut into windows of 2^kWindowShift ps; the events of the current
// window wait in `now_`, sorted, and are taken from its front; the events of the next
// kBuckets - 1 windows wait unsorted in a ring of buckets, one per window, and a bucket is sorted
// only when its window becomes the current one; later events wait in a min-heap (`far_`) and
// move into the ring as it turns. Pushing is an append to a bucket; popping is reading the next
// entry of a small sorted array — where a heap of the same events sifts through several cache
// lines at every push and pop, out of the L2 cache on a large fabric (docs/benchmarks.md).
// Per-port FIFOs (a link's packets in flight, a port's queue) keep their own rings and hold at
// most one event here each (DESIGN.md, htsim's pipe).
//
// An entry carries its event (target, kind, arg) beside its place, 40 bytes, so that nothing is
// looked up elsewhere when it runs; places are unique (an origin's count never repeats). The
// kind rides in the top 16 bits of the target pointer (user-space addresses use 48 bits on
// x86-64 and AArch64; a handler elsewhere is refused when it is built). Invariant: `now_` (with
// `late_run_` and `late_heap_`) holds every event of a window up to the current one (an event
// pushed earlier than the current window, which a caller may do after asking for the top time, goes
// there too), bucket w % kBuckets the events of window w for current < w < current + kBuckets,
// `far_` the rest. An event pushed for the current time by a handler numbered below the running
// event's origin, itself pushed at the current time, sorts before the running event: it is the
// least pending, so it runs next, as the event list of any partition would run it.
class Scheduler {
 public:
  Scheduler();

  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  void push(Time t, EventHandler* target, uint32_t kind, uint64_t arg) {
    insert(Place{flip(t.ps), pushed_, next_stamp()}, target, kind, arg);
  }
  // Takes the place in the order of an event at `t` pushed now (`r` may hold an earlier one: it
  // is replaced).
  void reserve(Reservation& r, Time t) {
    r.time_ = t;
    r.place_ = Place{flip(t.ps), pushed_, next_stamp()};
    r.live_ = true;
  }
  // Schedules an event at `r`'s place (its time must not have passed). `r` stays live: the
  // owner may still ask `is_current(r)` when it fires.
  void push_reserved(const Reservation& r, EventHandler* target, uint32_t kind, uint64_t arg) {
    insert(r.place_, target, kind, arg);
  }
  static void release(Reservation& r) { r.live_ = false; }
  // The event being executed (the last one popped) is at `r`'s place.
  bool is_current(const Reservation& r) const { return r.place_ == current_; }
  // `r`'s place is before the event being executed: an event pushed there (when it was
  // reserved, at an earlier time) would have run.
  bool passed(const Reservation& r) const { return r.place_ < current_; }
  // The place of an event due at `t` pushed now, for an event that goes to another event list:
  // a run split over partitions hands an event for another partition's handler over in a
  // mailbox with this place, and that partition's list pushes it with push_at, where it would
  // have been in one list.
  Place take_place(Time t) { return Place{flip(t.ps), pushed_, next_stamp()}; }
  // A place before every other event due at `t` (as if pushed before time began): a boundary
  // event's (simulator.hpp, at_boundary).
  Place take_first_place(Time t) { return Place{flip(t.ps), 0, next_stamp()}; }
  // The same, stamped by `h` rather than by the running event's origin: for a boundary event
  // that a handler asks for from whichever event happens to find it due (a collective's last
  // completion, which in a split run may be any partition's), so that its place depends on
  // `h`'s own history only.
  static Place take_first_place_for(Time t, EventHandler& h) {
    const uint64_t s = (*h.stamp_ptr_)++;
    if (((s + 1) & kCountMask) == 0) count_exhausted();
    return Place{flip(t.ps), 0, s};
  }
  void push_at(const Place& p, EventHandler* target, uint32_t kind, uint64_t arg) {
    insert(p, target, kind, arg);
  }

  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  // The earliest pending event's time (not empty). May turn the wheel to that event's window.
  Time top_time() {
    if (head_ == now_.size() && late_next_ == LateLeast::kNone) advance();
    return Time(unflip(late_first() ? late_least().place.due : now_[head_].place.due));
  }
  // The next event. Until the next pop (or leave_event), pushes are stamped with its target
  // and its time.
  Event pop() {
    if (head_ == now_.size() && late_next_ == LateLeast::kNone) advance();
    if (late_first()) return take(take_late());
    return take(now_[head_++]);
  }
  // The next event into `out` when it is due before `end` and not after `bound` (the run
  // loop's test and pop, with one look at where the next entry is); else false, and nothing
  // is taken.
  bool pop_before(Time end, Time bound, Event& out) {
    if (size_ == 0) return false;
    if (head_ == now_.size() && late_next_ == LateLeast::kNone) advance();
    const bool late = late_first();
    const Entry& e = late ? late_least() : now_[head_];
    const int64_t due = unflip(e.place.due);
    if (due >= end.ps || due > bound.ps) return false;
    if (late) {
      out = take(take_late());
    } else {
      ++head_;
      out = take(e);
    }
    return true;
  }
  // No event is running any more (a run ended with the clock at `now`): pushes are stamped
  // with origin 0 and `now` again.
  void leave_event(Time now) {
    stamp_ = &outside_stamp_;
    pushed_ = flip(now.ps);
  }
  uint64_t scheduled_total() const { return scheduled_total_; }
  // The handler numbered `number` (EventHandler::origin) when built with this list.
  EventHandler* handler(uint32_t number) const;
  // Entries the event list has room for (its memory, sizeof(Entry) bytes each): the pending
  // ones, and the room kept in spent windows' arrays — at most kKeptCapacity per bucket beyond
  // the largest.
  size_t retained_entries() const;
  // The pending event `ahead` places after the next one to pop, when it is in the sorted part
  // of the current window (else an event without target): the run loop prefetches for it while
  // earlier events execute. It may turn out not to be next (a late push): only a hint.
  Event upcoming(size_t ahead) const {
    const size_t i = head_ + ahead;
    if (i >= now_.size()) return Event{};
    const Entry& e = now_[i];
    return Event{Time(unflip(e.place.due)), e.handler(), e.arg, e.kind()};
  }

  static constexpr int kCountBits = 40;   // events one handler may push: 2^40 - 1
  static constexpr int kOriginBits = 24;  // handlers in one simulation: 2^24 - 1
  static constexpr uint32_t kKindLimit = 1u << 16;

 private:
  friend class EventHandler;
  static constexpr uint64_t kSignBit = uint64_t{1} << 63;
  static constexpr uint64_t kCountMask = (uint64_t{1} << kCountBits) - 1;
  static constexpr int kKindShift = 48;
  static constexpr uint64_t kPointerMask = (uint64_t{1} << kKindShift) - 1;
  // 2^11 ps = 2.05 ns per window and 4,096 windows in the ring: 8.4 us ahead. Serialisation,
  // switch latencies and links (ns to a few us) land in the ring; timeouts, PFC pause times and
  // sampling periods mostly in `far_`. Any width is correct; this one was the fastest of 2^10 to
  // 2^18 ps on the benchmark fabrics (docs/benchmarks.md): wider windows hold hundreds of events
  // (more sorting, more late pushes into the current window), narrower ones send more to `far_`.
  static constexpr int kWindowShift = 11;
  static constexpr size_t kBuckets = 4096;
  static constexpr size_t kWords = kBuckets / 64;
  static constexpr size_t kKeptCapacity = 64;  // entries an empty bucket may keep room for
  static uint64_t flip(int64_t t) { return static_cast<uint64_t>(t) ^ kSignBit; }
  static int64_t unflip(uint64_t t) { return static_cast<int64_t>(t ^ kSignBit); }
  static uint64_t window(const Place& p) { return p.due >> kWindowShift; }
  // The running event's origin's stamp, advanced: the stamp of the event being pushed.
  uint64_t next_stamp() {
    const uint64_t s = (*stamp_)++;
    if (((s + 1) & kCountMask) == 0) count_exhausted();
    return s;
  }
  [[noreturn]] static void count_exhausted();
  // The next handler's number, as the high part of its first stamp; refuses a handler whose
  // address has bits above the pointer part of an entry, or one handler too many.
  uint64_t new_origin(EventHandler* handler);
  struct Entry {
    Entry() = default;
    // For emplace_back (clang 14 has no parenthesised aggregate initialisation).
    Entry(const Place& p, EventHandler* t, uint32_t kind, uint64_t a)
        : place(p),
          target_kind(reinterpret_cast<uintptr_t>(t) | (uint64_t{kind} << kKindShift)),
          arg(a) {}
    EventHandler* handler() const {
      return reinterpret_cast<EventHandler*>(target_kind & kPointerMask);
    }
    uint32_t kind() const { return static_cast<uint32_t>(target_kind >> kKindShift); }
    Place place;
    uint64_t target_kind;  // the handler's address, the kind in the top 16 bits
    uint64_t arg;
  };
  static_assert(sizeof(Entry) == 40, "an entry is five words");
  // The order of the min-heaps `late_heap_` and `far_`: std::push_heap keeps the greatest first
  // under its comparison, so it is given the reverse one. A type, not a function: the heap
  // functions inline a call through it (through a function pointer they did not: 0.9 % of a run).
  struct Later {
    bool operator()(const Entry& a, const Entry& b) const { return b.place < a.place; }
  };
  // The entry is built in its container's slot: built on the stack in 8-byte halves and copied
  // in 16-byte halves, the copy's loads could not be forwarded from those stores and waited for
  // every older store to reach the cache, cache misses included (docs/benchmarks.md).
  void insert(const Place& p, EventHandler* target, uint32_t kind, uint64_t arg) {
    assert(kind < kKindLimit);
    ++size_;
    ++scheduled_total_;
    const uint64_t w = window(p);
    if (w <= current_window_) {
      insert_now(p, target, kind, arg);
    } else if (w - current_window_ < kBuckets) {
      const size_t b = w & (kBuckets - 1);
      buckets_[b].emplace_back(p, target, kind, arg);
      mark(b);
    } else {
      push_far(p, target, kind, arg);
    }
  }
  void mark(size_t b) {
    words_[b / 64] |= uint64_t{1} << (b % 64);
    summary_ |= uint64_t{1} << (b / 64);
  }
  void insert_now(const Place& p, EventHandler* target, uint32_t kind, uint64_t arg);
  // The least of the entries pushed into the current window out of order: none, the
  // next of `late_run_` or the top of `late_heap_` — kept up to date as they come and go, so
  // that a pop compares it with the sorted array's next as one place.
  enum class LateLeast : uint8_t { kNone, kRun, kHeap };
  void update_late_least();
  const Entry& late_least() const {
    return late_next_ == LateLeast::kRun ? late_run_[late_head_] : late_heap_.front();
  }
  // The next event of the current window is a late one (the window is not exhausted).
  bool late_first() const {
    return late_next_ != LateLeast::kNone &&
           (head_ == now_.size() || late_least().place < now_[head_].place);
  }
  // The least late entry, taken out of its array (valid until the next push).
  const Entry& take_late();
  // The event at `e` becomes the running one. Read field by field from its slot: a copy of the
  // entry to the stack, written in 16-byte halves and read back in 8-byte words (or the other
  // way), could not be forwarded from the stores and waited for them to reach the cache — 15 %
  // of a 1,024-host run went to that wait (docs/benchmarks.md).
  Event take(const Entry& e) {
    --size_;
    const uint64_t due = e.place.due;
    current_.due = due;
    current_.pushed = e.place.pushed;
    current_.stamp = e.place.stamp;
    pushed_ = due;
    EventHandler* target = e.handler();
    stamp_ = target->stamp_ptr_;
    return Event{Time(unflip(due)), target, e.arg, e.kind()};
  }
  void push_far(const Place& p, EventHandler* target, uint32_t kind, uint64_t arg);
  void advance();
  // Sorts `now_` (a window's entries) into the event order.
  void sort_window();
  void sort_small_window();               // sort_window's from kCountMin to kMergeMin entries
  static constexpr size_t kCountMin = 8;  // fewer are sorted in place
  // A window of kMergeMin entries or more is merged from its ordered runs when it has at most
  // kMergeMaxRuns of them (else from chunks of kMinRun put in order first).
  static constexpr size_t kMergeMin = 32;
  static constexpr size_t kMergeMaxRuns = 32;
  static constexpr size_t kMinRun = 32;  // beyond kMergeMaxRuns: chunks sorted, then merged
  size_t next_nonempty_bucket(size_t from) const;
  // The current window's events, sorted; those before `head_` have run. An event pushed into
  // the current window before the last one pending there does not shift the array (a dense
  // window may hold thousands): it is appended to `late_run_`, another sorted array read from
  // `late_head_`, when it comes after that array's last entry — late pushes come mostly in
  // order, each a short delay after the moment that pushes it —, else it goes to
  // `late_heap_`, a min-heap.
  std::vector<Entry> now_;
  size_t head_ = 0;
  std::vector<Entry> late_run_;
  size_t late_head_ = 0;
  std::vector<Entry> late_heap_;
  LateLeast late_next_ = LateLeast::kNone;
  Entry late_top_;  // the last entry taken from `late_heap_`, while it runs
  uint64_t current_window_ = 0;
  std::vector<std::vector<Entry>> buckets_;
  std::vector<uint64_t> words_;  // bit b set: bucket b is not empty
  uint64_t summary_ = 0;         // bit i set: words_[i] is not 0
  std::vector<Entry> far_;       // a min-heap on the place
  // sort_window's: where its runs start, and the array it counts or merges them into (room for
  // the largest window counted or merged so far).
  std::vector<uint32_t> run_starts_;
  std::vector<Entry> merge_scratch_;
  size_t size_ = 0;
  Place current_;                      // the last place popped (none yet: all zero)
  uint64_t pushed_ = kSignBit;         // the push time of events pushed now (time 0 at first)
  uint64_t outside_stamp_ = 0;         // origin 0: pushes outside any event (set-up, between runs)
  uint64_t* stamp_ = &outside_stamp_;  // the origin pushes are stamped with now
  uint32_t next_origin_ = 1;
  uint64_t scheduled_total_ = 0;
  std::vector<EventHandler*> handlers_{nullptr};  // [number]: what a run over processes ships to

 public:
  // The most memory spent windows' arrays may keep beyond the pending events (bytes).
  static constexpr size_t kMaxKeptBytes = kBuckets * kKeptCapacity * sizeof(Entry);
};

inline EventHandler::EventHandler(Scheduler& s) : stamp_(s.new_origin(this)), stamp_ptr_(&stamp_) {}
inline uint32_t EventHandler::origin() const {
  return static_cast<uint32_t>(*stamp_ptr_ >> Scheduler::kCountBits);
}

}  // namespace sim
