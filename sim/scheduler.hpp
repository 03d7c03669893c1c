// The event list. Total order: (time, insertion sequence) — two events at the same
// picosecond fire in the order they were scheduled (pinned by scheduler_test.cpp).
// Events are small values dispatched to a handler object; no std::function, no allocation
// once the heap has grown to its working size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
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

// A 4-ary min-heap on (time, seq). Per-port FIFOs (a link's packets in flight, a port's
// queue) keep their own rings and hold at most one event here each, so the heap stays small
// and most scheduling is O(1) amortised in the owning component (DESIGN.md, htsim's pipe).
//
// The heap holds only 16-byte keys; what the event does (target, kind, arg) waits in a slot
// array that the heap never moves. Sifting is what the kernel spends its time on, and on a
// large fabric (thousands of ports and links, each with an event pending) it runs out of the
// L2 cache: 16-byte keys put four children in one cache line, where 40-byte events needed
// three. A key is one unsigned 128-bit number — time (sign bit flipped, so unsigned order is
// signed order), then the sequence, then the slot — so ordering is one wide comparison
// without branches; (time, seq) is unique, so the slot never decides. Pop is Floyd's
// bottom-up variant: the hole at the root follows the smaller child down to a leaf (three
// comparisons per level, none against the moved key), then the last key sifts up from there —
// it came from the bottom and rarely rises, which halves the comparisons of the textbook
// sift-down. The sequence wraps after 2^32 insertions; the pending keys are then renumbered in
// their (time, seq) order, which keeps the total order.
class Scheduler {
 public:
  // `seq_limit`: sequence numbers run below it before renumbering (small only in tests).
  explicit Scheduler(uint32_t seq_limit = 0xffffffffu) : seq_limit_(seq_limit) {}

  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  void push(Time t, EventHandler* target, uint32_t kind, uint64_t arg) {
    const uint32_t slot = take_slot(target, kind, arg);
    if (next_seq_ >= seq_limit_) renumber();
    heap_.push_back(make_key(t.ps, next_seq_++, slot));
    ++scheduled_total_;
    sift_up(heap_.size() - 1, heap_.back());
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
    heap_.push_back(make_key(r.time_.ps, r.seq_, take_slot(target, kind, arg)));
    ++scheduled_total_;
    sift_up(heap_.size() - 1, heap_.back());
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

  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  Time top_time() const { return Time(key_time(heap_.front())); }
  Event pop();
  uint64_t scheduled_total() const { return scheduled_total_; }

 private:
  __extension__ typedef unsigned __int128 Key;
  static constexpr uint64_t kSignBit = uint64_t{1} << 63;
  static Key make_key(int64_t time, uint32_t seq, uint32_t slot) {
    return (Key{static_cast<uint64_t>(time) ^ kSignBit} << 64) | (Key{seq} << 32) | Key{slot};
  }
  static int64_t key_time(Key k) {
    return static_cast<int64_t>(static_cast<uint64_t>(k >> 64) ^ kSignBit);
  }
  static uint32_t key_slot(Key k) { return static_cast<uint32_t>(k); }
  // The heap's array, placed so that the four children of each node (4i+1 .. 4i+4) fill one
  // 64-byte cache line: element 0 sits 16 bytes before a line boundary. Each level of a sift
  // then costs one line, not two (a plain vector straddles them).
  class KeyArray {
   public:
    KeyArray() = default;
    KeyArray(const KeyArray&) = delete;
    KeyArray& operator=(const KeyArray&) = delete;
    ~KeyArray() {
      if (raw_ != nullptr) ::operator delete (raw_, std::align_val_t{64});
    }
    size_t size() const { return n_; }
    bool empty() const { return n_ == 0; }
    Key& operator[](size_t i) { return a_[i]; }
    const Key& front() const { return a_[0]; }
    Key& back() { return a_[n_ - 1]; }
    Key* data() { return a_; }
    Key* begin() { return a_; }
    Key* end() { return a_ + n_; }
    void push_back(Key k) {
      if (n_ == capacity_) grow();
      a_[n_++] = k;
    }
    void pop_back() { --n_; }
    void clear() { n_ = 0; }

   private:
    void grow() {
      const size_t capacity = capacity_ == 0 ? 60 : 2 * capacity_ + 4;  // +4: lines stay whole
      Key* raw =
          static_cast<Key*>(::operator new ((capacity + 4) * sizeof(Key), std::align_val_t{64}));
      for (size_t i = 0; i < n_; ++i) raw[3 + i] = a_[i];
      if (raw_ != nullptr) ::operator delete (raw_, std::align_val_t{64});
      raw_ = raw;
      a_ = raw + 3;
      capacity_ = capacity;
    }
    Key* raw_ = nullptr;
    Key* a_ = nullptr;
    size_t n_ = 0;
    size_t capacity_ = 0;
  };
  struct Payload {
    EventHandler* target;
    uint64_t arg;
    uint32_t kind;
  };
  uint32_t take_slot(EventHandler* target, uint32_t kind, uint64_t arg) {
    if (!free_slots_.empty()) {
      const uint32_t slot = free_slots_.back();
      free_slots_.pop_back();
      payloads_[slot] = Payload{target, arg, kind};
      return slot;
    }
    payloads_.push_back(Payload{target, arg, kind});
    return static_cast<uint32_t>(payloads_.size() - 1);
  }
  void sift_up(size_t i, Key k);
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
  KeyArray heap_;
  std::vector<Payload> payloads_;
  std::vector<uint32_t> free_slots_;
  std::vector<Reservation*> reservations_;  // every reservation made on this scheduler
  Key current_ = 0;                         // the last key popped (0: none yet)
  uint32_t seq_limit_;
  uint32_t next_seq_ = 0;
  uint64_t scheduled_total_ = 0;
};

inline Reservation::Reservation(Scheduler& s) : scheduler_(s) {
  s.enrol(*this);
}
inline Reservation::~Reservation() {
  scheduler_.withdraw(*this);
}

}  // namespace sim
