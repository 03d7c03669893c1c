// The Simulator owns everything a run shares — clock, event list, random streams, counters —
// and is passed by reference; there are no globals, so two simulations can run in one process
// (parameter sweeps run many at once).
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sim/rank_exchange.hpp"
#include "sim/rng.hpp"
#include "sim/scheduler.hpp"
#include "sim/time.hpp"

namespace sim {

// A named 64-bit counter with a stable address: models resolve it once at build time and
// increment it on the hot path without any lookup.
using Counter = uint64_t;

enum class StopReason { Idle, TimeLimit, Requested };

// Called every N events during run() (progress display); never changes the simulation.
class ProgressHook {
 public:
  virtual void on_progress() = 0;

 protected:
  ~ProgressHook() = default;
};
const char* to_string(StopReason r);

// What the processes of a run over several (set_ranks) agree on between windows beyond the
// simulator's own: a count summed over processes and a time, their latest; `agreed` then sees
// both in every process and returns the time of a stop to ask for (Time::max(): none). A
// workload's end is one: each process counts the flows its partitions completed.
class RankAgreement {
 public:
  virtual uint64_t local_count() const = 0;
  virtual Time local_latest() const = 0;
  virtual Time agreed(uint64_t count, Time latest) = 0;

 protected:
  ~RankAgreement() = default;
};

// State that a model's handlers write during the windows of a run over several processes and
// that every process must see (flows a workload adds as it runs, a collective's ranks ending
// its calls): once a window, each process packs what its own partitions wrote since the last
// pack, the packs travel with the window's events, and every process takes in every pack —
// its own too — in the order of the ranks, before the events that came with them are unpacked
// and before the boundary events run. A process packs its shares before its events: every
// packet then counts in the pool of exactly one process. `pending`: something written since the
// last pack (by a boundary event): the processes then run one more window, empty if need be, to
// swap it.
class RankShare {
 public:
  virtual void pack_share(Bytes& out) = 0;
  virtual void take_share(ByteReader& in, uint32_t rank) = 0;
  virtual void shares_taken() {}  // every process's pack is in
  virtual bool share_pending() const = 0;

 protected:
  ~RankShare() = default;
};

// A run may be split into partitions (`split`), each with its own event list: handlers are
// built into a partition (`set_building_partition`), an event for a handler of another partition
// goes to that partition's mailbox with its place in the event order (scheduler.hpp,
// take_place) and is pushed there at the end of the window, and the lists run in windows of
// the lookahead — the shortest time an event crosses between partitions (a link's latency).
// Every handler's events run in the same order as in one list, so results do not depend on the
// split (ARCHITECTURE.md, "Partitions"). A window's partitions run on `threads` threads
// (set_threads), each reading and writing only its own partitions' handlers; between windows one
// thread empties the mailboxes and runs the boundary events.
class Simulator {
 public:
  explicit Simulator(uint64_t seed);
  ~Simulator();
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  // The running event's time: in a split run, its partition's (each thread has its own clock).
  Time now() const { return windows_ ? t_running_->now : now_; }
  uint64_t seed() const { return seed_; }

  void at(Time t, EventHandler* target, uint32_t kind, uint64_t arg = 0) {
    if (split_ == nullptr) {
      scheduler_.push(t, target, kind, arg);
    } else {
      push_split(t, target, kind, arg);
    }
  }
  void after(Time delay, EventHandler* target, uint32_t kind, uint64_t arg = 0) {
    at(now() + delay, target, kind, arg);
  }
  // An event at a place taken with `scheduler().take_place` (a link's delivery, taken when
  // the packet was sent and pushed when it is the next one due).
  void at(const Place& p, EventHandler* target, uint32_t kind, uint64_t arg = 0) {
    if (split_ == nullptr) {
      scheduler_.push_at(p, target, kind, arg);
    } else {
      push_split_at(p, target, kind, arg);
    }
  }

  // An event of a handler that reads or changes the whole fabric at once (the deadlock
  // detector, the timeseries sampler, link failures): due at `t`, it runs before every other
  // event due at `t`. In a split run it runs between two windows, the first of which ends at
  // `t`: no partition's event runs meanwhile, and every partition has run exactly its events
  // before `t`, as in one list. Not for the running event's own time.
  void at_boundary(Time t, EventHandler* target, uint32_t kind, uint64_t arg = 0);
  void after_boundary(Time delay, EventHandler* target, uint32_t kind, uint64_t arg = 0) {
    at_boundary(now() + delay, target, kind, arg);
  }
  // A boundary event whose place `target` stamps itself (Scheduler::take_first_place_for): for
  // a handler that acts on the whole fabric once one of many events, in any partition, finds
  // it due. At least a window ahead when asked for within a split run's window.
  void at_boundary_stamped(Time t, EventHandler* target, uint32_t kind, uint64_t arg = 0);

  // The event list of the running event's partition (partition 0's outside events): places in
  // the event order, taken now for events that may be needed later (scheduler.hpp).
  Scheduler& scheduler() { return windows_ ? *t_running_->list : scheduler_; }
  void reserve(Reservation& r, Time t) { scheduler().reserve(r, t); }
  // `target` is the handler that reserved `r`: its partition's list.
  void at(const Reservation& r, EventHandler* target, uint32_t kind, uint64_t arg = 0) {
    if (split_ == nullptr) {
      scheduler_.push_reserved(r, target, kind, arg);
    } else {
      list(target->partition()).push_reserved(r, target, kind, arg);
    }
  }
  void release(Reservation& r) { Scheduler::release(r); }
  bool passed(const Reservation& r) const { return running_list().passed(r); }
  bool is_current(const Reservation& r) const { return running_list().is_current(r); }

  // Splits the run into `partitions` event lists that run in windows of at most `lookahead`
  // (and of kStopGrace: see stop). Before any handler is built.
  void split(uint32_t partitions, Time lookahead);
  uint32_t partitions() const;
  // The windows' partitions run on `threads` threads (1 .. partitions(); default 1), thread k
  // taking partition k, then any left beyond the threads' count that no other thread has taken
  // yet. Results are the same at every count.
  void set_threads(uint32_t threads);
  uint32_t threads() const { return threads_; }
  // This process's share of a run split over several (sim/rank_exchange.hpp): partition p is
  // rank `rank_of[p]`'s. Every process builds the same fabric the same way and calls run with
  // the same limit; each runs its own partitions' lists (on set_threads threads, at most its
  // partitions' count) in the windows one process would run, and they swap the events pushed
  // for each other's handlers between windows (EventHandler::pack_event). An event pushed for
  // another process's handler outside the windows (set-up, a boundary event) is left out: that
  // process pushes it too. Boundary events run in every process; one pushed by a partition's
  // event is refused. After split, before run; every rank holds a partition.
  void set_ranks(RankExchange& exchange, std::vector<uint32_t> rank_of);
  // The partition's list runs in this process (every partition unless set_ranks).
  bool is_local(uint32_t partition) const;
  // The rank whose process runs `partition` (0 unless set_ranks).
  uint32_t rank_of(uint32_t partition) const;
  // A run over several processes (set_ranks; none otherwise): its processes' exchange.
  RankExchange* ranks() const;
  // Agreed on between the windows of a run over several processes (RankAgreement).
  void add_rank_agreement(RankAgreement& a) { agreements_.push_back(&a); }
  // Swapped between the windows of a run over several processes (RankShare), in the order
  // they were added.
  void add_rank_share(RankShare& s) { shares_.push_back(&s); }
  // Handlers built from now on belong to partition `p` (< partitions()).
  void set_building_partition(uint32_t p);
  // Refuses a handler built by a partition's event while a split run's windows run: its number
  // would depend on what other partitions built before it (handlers built by events take their
  // owner's: sim::Timer). A boundary event may build (one thread, in one list's order).
  uint32_t building_partition() const;
  // The partition the calling thread runs an event of (0 outside a split run's windows): what
  // per-partition state shared by every handler (the packet pool's free lists) is indexed by.
  static uint32_t thread_partition() { return t_running_ != nullptr ? t_running_->partition : 0; }
  // The event list handlers take their numbers from (partition 0's); refused within a split
  // run's windows (building_partition).
  Scheduler& numbering();

  // Random stream for a component with a stable id (see rng.hpp).
  Rng rng(uint64_t stream_id) const { return Rng(seed_, stream_id); }

  Counter& counter(const std::string& name) { return counters_[name]; }
  const std::map<std::string, Counter>& counters() const { return counters_; }

  // Runs events until none is left, the next one is later than `limit`, or a stop takes
  // effect. The clock ends at the last event executed, at `limit` when the limit stopped it,
  // at the end of the stop's grace when a stop did.
  StopReason run(Time limit = Time::max());
  // Ends the run kStopGrace after `at` (not before the running event; default now): events
  // due until then still run, later ones do not, the clock ends there, and run() returns
  // StopReason::Requested. The grace is what lets a split run stop at the same event in every
  // partition: a partition may have run up to a window (at most kStopGrace) past the event that
  // asked for the stop. The earliest request wins.
  void stop(Time at);
  void stop() { stop(now()); }
  // The running event (a partition's, in a split run's window) stands for work that a boundary
  // event does in a run of one process: it is not counted in events_executed, so that a run
  // over processes counts what one process would.
  void uncount_running_event();
  // A partition's event of a split run's window is running (not a boundary event, nor set-up):
  // what every process of a run over several runs alike is anything else.
  bool in_window() const { return windows_ && t_running_ != nullptr && t_running_->in_window; }
  static constexpr Time kStopGrace = Time(1'000'000);  // 1 us

  void set_progress(ProgressHook* hook, uint64_t every_events) {
    progress_ = hook;
    progress_every_ = every_events;
  }

  uint64_t events_executed() const { return events_executed_; }
  size_t pending_events() const;

 private:
  static void check_threads(uint32_t threads, size_t local_partitions);
  // What the running event's thread runs with: its partition's clock and list.
  struct Running {
    Time now;
    Scheduler* list = nullptr;
    uint32_t partition = 0;
    bool in_window = false;  // a partition's event within a window (not a boundary event)
  };
  struct Lane;
  struct Split;
  struct Message;
  const Scheduler& running_list() const { return windows_ ? *t_running_->list : scheduler_; }
  Scheduler& list(uint32_t p);
  void push_split(Time t, EventHandler* target, uint32_t kind, uint64_t arg);
  void push_split_at(const Place& p, EventHandler* target, uint32_t kind, uint64_t arg);
  void push_boundary(const Place& p, EventHandler* target, uint32_t kind, uint64_t arg);
  // Runs `l`'s events due before `end` and not after `bound_`.
  void run_list(Scheduler& l, Time end);
  void execute(const Event& e);
  void run_lane(Lane& l, Time end);
  StopReason run_split(Time limit);
  void take_inbound(uint32_t partition);
  // Between two windows (one thread): the crossings' earliest due read (each partition's
  // thread takes its own: take_inbound), stops and counts gathered, boundary events run; then
  // the next window's end, or the run's end (`false`).
  bool between_windows();
  // between_windows over processes: the same, with the crossings for other processes shipped
  // and the next window, stops, counts and failures agreed on by every process.
  bool between_windows_ranks(bool failed);
  void pack_message(const Message& m, Bytes& out) const;
  void unpack_messages(ByteReader& in);
  void request_stop(Time at);  // stop's effect, `at` not before the asking event

  // Set by a split run on each of its threads while its windows run.
  static inline thread_local Running* t_running_ = nullptr;
  uint64_t seed_;
  Time now_;
  Scheduler scheduler_;  // partition 0's list (the only one unless split)
  std::unique_ptr<Split> split_;
  bool windows_ = false;  // a split run's windows are running: clocks are per thread
  uint32_t threads_ = 1;
  uint32_t building_partition_ = 0;
  std::map<std::string, Counter> counters_;  // std::map: node addresses are stable
  std::vector<RankAgreement*> agreements_;
  std::vector<RankShare*> shares_;
  uint64_t events_executed_ = 0;
  Time bound_ = Time::max();  // no event later than this runs (the limit, or a stop's end)
  Time stopped_at_ = Time::max();
  bool stop_requested_ = false;
  ProgressHook* progress_ = nullptr;
  uint64_t progress_every_ = 0;
  uint64_t countdown_ = 0;
};

// A re-armable, cancellable one-shot timer that keeps at most one event in the list:
// re-arming to a later time keeps the pending event and re-checks the deadline when it fires
// (a retransmission timer pushed back on every ACK costs no heap operation).
class Timer final : public EventHandler {
 public:
  // When it fires, the timer calls owner->on_event(owner_kind, owner_arg). It acts for
  // `acting_for` (default the owner): its events count in that handler's stamp and run in its
  // partition — a controller's timer for one queue pair acts for the pair's NIC.
  Timer(Simulator& sim, EventHandler* owner, uint32_t owner_kind, uint64_t owner_arg = 0,
        EventHandler* acting_for = nullptr)
      : EventHandler(ActingFor{acting_for != nullptr ? *acting_for : *owner}),
        sim_(sim),
        owner_(owner),
        owner_kind_(owner_kind),
        owner_arg_(owner_arg) {}
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;

  void arm(Time deadline) {
    deadline_ = deadline;
    armed_ = true;
    if (!pending_ || pending_at_ > deadline) {
      pending_ = true;
      pending_at_ = deadline;
      sim_.at(deadline, this, 0, ++generation_);
    }
  }
  void arm_in(Time delay) { arm(sim_.now() + delay); }
  void cancel() { armed_ = false; }
  bool armed() const { return armed_; }
  Time deadline() const { return deadline_; }

  void on_event(uint32_t, uint64_t generation) override {
    if (generation != generation_) return;  // superseded by an earlier re-arm
    pending_ = false;
    if (!armed_) return;
    if (deadline_ > sim_.now()) {
      pending_ = true;
      pending_at_ = deadline_;
      sim_.at(deadline_, this, 0, ++generation_);
      return;
    }
    armed_ = false;
    owner_->on_event(owner_kind_, owner_arg_);
  }

 private:
  Simulator& sim_;
  EventHandler* owner_;
  uint32_t owner_kind_;
  uint64_t owner_arg_;
  Time deadline_;
  Time pending_at_;
  uint64_t generation_ = 0;
  bool armed_ = false;
  bool pending_ = false;
};

// A re-armable, cancellable one-shot timer that fires exactly where an event pushed by the
// latest arm() would have fired — the same time and the same place among equal-time events —
// so it can replace "push an event on every arm and let the superseded ones do nothing" without
// changing any result. arm() reserves that place (scheduler.hpp) and pushes an event only when
// none of the timer's is pending earlier; a pending earlier event re-pushes at the reserved
// place when it comes due. So the event list holds one event per timer, not one per arm (a PFC
// pause refreshed every half pause time left a dead event per frame).
class OrderedTimer final : public EventHandler {
 public:
  OrderedTimer(Simulator& sim, EventHandler* owner, uint32_t owner_kind, uint64_t owner_arg = 0)
      : EventHandler(ActingFor{*owner}),
        sim_(sim),
        owner_(owner),
        owner_kind_(owner_kind),
        owner_arg_(owner_arg) {}

  void arm(Time deadline) {
    sim_.reserve(place_, deadline);
    // A pending event at the same time was pushed earlier, so it comes first: it re-pushes.
    if (!pending_ || pending_at_ > deadline) push();
  }
  void cancel() { sim_.release(place_); }
  bool armed() const { return place_.live(); }
  Time deadline() const { return place_.time(); }

  void on_event(uint32_t, uint64_t generation) override {
    if (generation != generation_) return;  // an earlier arm pushed one before it
    pending_ = false;
    if (!place_.live()) return;
    if (!sim_.is_current(place_)) {  // re-armed since this event was pushed: go to the place
      push();
      return;
    }
    sim_.release(place_);
    owner_->on_event(owner_kind_, owner_arg_);
  }

 private:
  void push() {
    pending_ = true;
    pending_at_ = place_.time();
    sim_.at(place_, this, 0, ++generation_);
  }
  Simulator& sim_;
  Reservation place_;
  EventHandler* owner_;
  uint32_t owner_kind_;
  uint64_t owner_arg_;
  Time pending_at_;
  uint64_t generation_ = 0;
  bool pending_ = false;
};

inline EventHandler::EventHandler(Simulator& s) : EventHandler(s.numbering()) {
  partition_ = s.building_partition();
}

}  // namespace sim
