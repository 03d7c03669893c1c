#include "sim/simulator.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "sim/simulator_split.hpp"

namespace sim {

const char* to_string(StopReason r) {
  switch (r) {
    case StopReason::Idle:
      return "idle";
    case StopReason::TimeLimit:
      return "time-limit";
    case StopReason::Requested:
      return "workload-done";
  }
  return "?";
}

// The windows' barrier: the last thread to arrive runs the step between windows, then lets
// the others go. A window of a small fabric may hold only a few hundred events (a lookahead of
// 500 ns), so the wait must be short: each thread spins a while, checking, before it sleeps
// (std::barrier slept at once: a futex wake per thread per window, which on 2 cores cost more
// than the window's events). The spin is bounded, and there is none when the threads
// outnumber the cores (a spinning thread would hold a core a working one waits for).
//
// A thread that stops spinning counts itself among the sleepers and sleeps on a condition
// variable until the generation moves on. The last thread moves it on, then looks at the
// count: both sides write, then read the other's word, in one order every thread sees
// (sequentially consistent), so either the sleeper sees the new generation or the last thread
// sees the sleeper, and then takes the mutex (the sleeper is asleep or has yet to look) before
// it wakes it. No wake-up is lost, and a window whose threads all spun costs no system call.
// (It was std::atomic::wait and notify_all after a release store of the generation, and a
// 2-thread run of the test suite was once found with both threads asleep, the generation
// already moved on: libstdc++ skips the futex wake when its own count of waiters reads none.)
class WindowBarrier {
 public:
  explicit WindowBarrier(uint32_t threads)
      : threads_(threads),
        spins_(threads <= std::max(1u, std::thread::hardware_concurrency()) ? kSpins : 0) {}
  template <class Step>
  void arrive_and_wait(Step& step) {
    const uint32_t generation = generation_.load(std::memory_order_acquire);
    if (arrived_.fetch_add(1, std::memory_order_acq_rel) + 1 == threads_) {
      step();
      arrived_.store(0, std::memory_order_relaxed);
      generation_.store(generation + 1, std::memory_order_seq_cst);
      if (sleepers_.load(std::memory_order_seq_cst) > 0) {
        { const std::lock_guard lock(mutex_); }
        wake_.notify_all();
      }
      return;
    }
    for (int i = 0; i < spins_; ++i) {
      if (generation_.load(std::memory_order_acquire) != generation) return;
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    }
    std::unique_lock lock(mutex_);
    sleepers_.fetch_add(1, std::memory_order_seq_cst);
    wake_.wait(lock, [&] { return generation_.load(std::memory_order_seq_cst) != generation; });
    sleepers_.fetch_sub(1, std::memory_order_relaxed);
  }

 private:
  static constexpr int kSpins = 2000;
  const uint32_t threads_;
  const int spins_;
  std::atomic<uint32_t> arrived_{0};
  std::atomic<uint32_t> generation_{0};
  std::atomic<uint32_t> sleepers_{0};
  std::mutex mutex_;
  std::condition_variable wake_;
};

Simulator::Simulator(uint64_t seed) : seed_(seed) {}
Simulator::~Simulator() = default;

void Simulator::split(uint32_t partitions, Time lookahead) {
  if (partitions < 1) throw std::invalid_argument("a run needs at least one partition");
  if (scheduler_.scheduled_total() != 0 || split_ != nullptr) {
    throw std::logic_error("Simulator::split after events were pushed or twice");
  }
  if (partitions == 1) return;
  if (lookahead <= Time(0)) {
    throw std::invalid_argument(
        "a split run needs a lookahead above 0: partitions meet across a link of no latency");
  }
  split_ = std::make_unique<Split>();
  for (uint32_t p = 1; p < partitions; ++p) split_->lists.push_back(std::make_unique<Scheduler>());
  split_->lanes.resize(partitions);
  for (uint32_t p = 0; p < partitions; ++p) {
    Lane& l = split_->lanes[p];
    l.list = &list(p);
    l.partition = p;
    l.in_window = true;
    for (auto& set : l.outbox) set.resize(partitions);
  }
  split_->serial.list = &split_->boundary;
  for (uint32_t p = 0; p < partitions; ++p) split_->local.push_back(p);
  split_->window = std::min(lookahead, kStopGrace);
}

uint32_t Simulator::partitions() const {
  return split_ == nullptr ? 1 : static_cast<uint32_t>(split_->lanes.size());
}

void Simulator::set_threads(uint32_t threads) {
  if (threads < 1 || threads > partitions()) {
    throw std::invalid_argument("threads " + std::to_string(threads) + " for " +
                                std::to_string(partitions()) +
                                " partitions: from 1 to the partitions' count");
  }
  if (split_ != nullptr && split_->ranks != nullptr) check_threads(threads, split_->local.size());
  threads_ = threads;
}

// Over processes a thread runs this process's partitions only: refused when set (set_threads,
// set_ranks), before any process waits for the others at the first window.
void Simulator::check_threads(uint32_t threads, size_t local_partitions) {
  if (threads <= local_partitions) return;
  throw std::invalid_argument("threads " + std::to_string(threads) + " for the " +
                              std::to_string(local_partitions) +
                              " partitions this process runs: at most one thread each");
}

void Simulator::set_building_partition(uint32_t p) {
  if (p >= partitions()) throw std::out_of_range("partition " + std::to_string(p));
  building_partition_ = p;
}

uint32_t Simulator::building_partition() const {
  // Between windows (a boundary event) one thread builds, in the order one list would.
  if (windows_ && (t_running_ == nullptr || t_running_->in_window)) {
    throw std::logic_error(
        "a handler built while a split run's windows run: its number would depend on the order "
        "in which partitions ran");
  }
  return building_partition_;
}

Scheduler& Simulator::numbering() {
  (void)building_partition();  // refuses a handler built while the windows run
  return scheduler_;
}

Scheduler& Simulator::list(uint32_t p) {
  return p == 0 ? scheduler_ : *split_->lists[p - 1];
}

size_t Simulator::pending_events() const {
  size_t n = is_local(0) ? scheduler_.size() : 0;
  if (split_ != nullptr) {
    n += split_->boundary.size();
    for (uint32_t p = 1; p < split_->lanes.size(); ++p) {
      if (is_local(p)) n += split_->lists[p - 1]->size();
    }
    for (const Lane& l : split_->lanes) {
      for (const auto& set : l.outbox) {
        for (const auto& out : set) n += out.size();
      }
      n += l.boundary_out.size();
    }
  }
  return n;
}

void Simulator::push_split(Time t, EventHandler* target, uint32_t kind, uint64_t arg) {
  push_split_at(scheduler().take_place(t), target, kind, arg);
}

// Into the target's list when it is the running partition's (or no window runs: set-up,
// between windows, between runs), else into the running lane's outbox for the target's
// partition: it must then be due after the window, or a partition that has already run past
// its time would miss it.
void Simulator::push_split_at(const Place& p, EventHandler* target, uint32_t kind, uint64_t arg) {
  const uint32_t to = target->partition();
  if (!windows_ || !t_running_->in_window || to == t_running_->partition) {
    // Outside the windows every process pushes the same events (set_ranks): each keeps its own.
    if (split_->ranks == nullptr || is_local(to)) list(to).push_at(p, target, kind, arg);
    return;
  }
  const Time due(static_cast<int64_t>(p.due ^ (uint64_t{1} << 63)));
  if (due < split_->window_end) {
    throw std::logic_error("an event for handler " + std::to_string(target->origin()) +
                           " of partition " + std::to_string(to) + " due at " +
                           std::to_string(due.ps) + " ps, pushed from partition " +
                           std::to_string(t_running_->partition) + " inside the window ending at " +
                           std::to_string(split_->window_end.ps) +
                           " ps: partitions may meet only across links at least a lookahead long");
  }
  Lane& lane = *static_cast<Lane*>(t_running_);
  lane.outbox[split_->set][to].push_back(Message{p, target, arg, kind});
  lane.outbox_due = std::min(lane.outbox_due, due);
}

void Simulator::at_boundary(Time t, EventHandler* target, uint32_t kind, uint64_t arg) {
  push_boundary(scheduler().take_first_place(t), target, kind, arg);
}

void Simulator::at_boundary_stamped(Time t, EventHandler* target, uint32_t kind, uint64_t arg) {
  push_boundary(Scheduler::take_first_place_for(t, *target), target, kind, arg);
}

void Simulator::push_boundary(const Place& p, EventHandler* target, uint32_t kind, uint64_t arg) {
  const Time t(static_cast<int64_t>(p.due ^ (uint64_t{1} << 63)));
  if (split_ == nullptr) {
    scheduler_.push_at(p, target, kind, arg);
    return;
  }
  if (windows_ && t_running_->in_window) {
    if (t < split_->window_end) {
      throw std::logic_error("a boundary event for handler " + std::to_string(target->origin()) +
                             " due at " + std::to_string(t.ps) +
                             " ps, pushed inside the window ending at " +
                             std::to_string(split_->window_end.ps) + " ps");
    }
    static_cast<Lane*>(t_running_)->boundary_out.push_back(Message{p, target, arg, kind});
    return;
  }
  split_->boundary.push_at(p, target, kind, arg);
}

// Within a window a stop is the lane's until the window ends: the bound it sets (at least the
// running event's time plus the grace) is past the window's end, so no partition of this window
// would have read it.
void Simulator::stop(Time at) {
  at = std::max(at, now());
  if (windows_ && t_running_->in_window) {
    Lane& l = *static_cast<Lane*>(t_running_);
    l.stop_at = std::min(l.stop_at, at);
    l.stop_requested = true;
    return;
  }
  request_stop(at);
}

void Simulator::uncount_running_event() {
  if (split_ == nullptr || !windows_ || !t_running_->in_window) {
    throw std::logic_error("uncount_running_event outside a split run's windows");
  }
  --static_cast<Lane*>(t_running_)->events;
}

void Simulator::request_stop(Time at) {
  if (at < stopped_at_) stopped_at_ = at;
  stop_requested_ = true;
  const Time end = stopped_at_ + kStopGrace;
  if (end < bound_) bound_ = end;
}

// One event: the clock at its time, the count, the handler, every so often the progress hook.
[[gnu::always_inline]] inline void Simulator::execute(const Event& e) {
  now_ = e.time;
  ++events_executed_;
  e.target->on_event(e.kind, e.arg);
  if (progress_ != nullptr && --countdown_ == 0) {
    countdown_ = progress_every_;
    progress_->on_progress();
  }
}

// Prefetching as a pipeline: three events ahead, the handler's own lines; two ahead, what
// they point to; one ahead, one level further. On a large fabric each is likely a cache miss,
// and the order of the next events is known (docs/benchmarks.md).
[[gnu::always_inline]] static inline void prefetch_upcoming(const Scheduler& l) {
  if (const Event e3 = l.upcoming(2); e3.target != nullptr) {
    __builtin_prefetch(e3.target);
    __builtin_prefetch(reinterpret_cast<const char*>(e3.target) + 64);
  }
  if (const Event e2 = l.upcoming(1); e2.target != nullptr) {
    e2.target->prefetch(e2.kind, e2.arg, 0);
  }
  if (const Event e1 = l.upcoming(0); e1.target != nullptr) {
    e1.target->prefetch(e1.kind, e1.arg, 1);
  }
}

// The run loop of one list: its events due before `end` and not after `bound_` (which a stop
// may lower while it runs).
void Simulator::run_list(Scheduler& l, Time end) {
  Event e;
  while (l.pop_before(end, bound_, e)) {
    prefetch_upcoming(l);
    execute(e);
  }
}

// A partition's events of one window, on the thread running it (`t_running_` is the lane):
// run_list's loop with the lane's clock and count; `bound_` does not change while windows run.
void Simulator::run_lane(Lane& lane, Time end) {
  Scheduler& l = *lane.list;
  Event e;
  while (l.pop_before(end, bound_, e)) {
    prefetch_upcoming(l);
    lane.now = e.time;
    ++lane.events;
    e.target->on_event(e.kind, e.arg);
  }
  lane.latest = std::max(lane.latest, lane.now);
}

StopReason Simulator::run(Time limit) {
  // Whichever way the run ends, pushes after it come from outside any event (origin 0).
  struct LeaveEvent {
    Simulator& s;
    ~LeaveEvent() {
      s.windows_ = false;
      s.scheduler_.leave_event(s.now_);
    }
  } leave{*this};
  stop_requested_ = false;
  stopped_at_ = Time::max();
  bound_ = limit;
  countdown_ = progress_every_;
  if (split_ != nullptr) return run_split(limit);
  run_list(scheduler_, Time::max());
  if (stop_requested_) {
    now_ = bound_;  // the end of the stop's grace (or the limit, when it came first)
    return StopReason::Requested;
  }
  if (scheduler_.empty()) return StopReason::Idle;
  now_ = limit;
  return StopReason::TimeLimit;
}

// What the window before left in the mailboxes for partition `to`, into its list: by the thread
// that takes `to`, before its events run (or at a run's end). The order of pushes does not
// matter: places are unique.
void Simulator::take_inbound(uint32_t to) {
  Split& sp = *split_;
  Scheduler& l = list(to);
  for (Lane& from : sp.lanes) {
    std::vector<Message>& box = from.outbox[sp.set ^ 1][to];
    for (const Message& m : box) l.push_at(m.place, m.target, m.kind, m.arg);
    box.clear();
  }
}

// Between two windows, on one thread while the others wait: the mailboxes of the window that
// ended are left for their destinations' threads (take_inbound), only their earliest due read;
// every lane's boundary events and stop are gathered; then the boundary events due before any
// partition's next event run (every partition is exactly at their time), and the next window
// is set: from the earliest pending event, at most `window` long, ending at the next boundary
// event. The window is no longer than the lookahead, so an event crossing into another
// partition is due after it, and no longer than the stop grace, so a stop asked for in one
// partition is still ahead of every other one.
bool Simulator::between_windows() {
  Split& sp = *split_;
  const auto partitions = static_cast<uint32_t>(sp.lanes.size());
  Time inbound = Time::max();
  for (Lane& lane : sp.lanes) {
    inbound = std::min(inbound, lane.outbox_due);
    lane.outbox_due = Time::max();
  }
  sp.set ^= 1;  // the next window fills the set its partitions have emptied
  uint64_t events = 0;
  for (Lane& lane : sp.lanes) {
    for (const Message& m : lane.boundary_out)
      sp.boundary.push_at(m.place, m.target, m.kind, m.arg);
    lane.boundary_out.clear();
    events += lane.events;
    sp.latest = std::max(sp.latest, lane.latest);
    if (lane.stop_requested) {
      lane.stop_requested = false;
      request_stop(lane.stop_at);
      lane.stop_at = Time::max();
    }
  }
  t_running_ = &sp.serial;
  sp.serial.now = sp.latest;  // what the progress hook reads: the latest event's time
  events_executed_ = sp.base + events + sp.serial_count;
  if (progress_ != nullptr && events_executed_ >= sp.next_progress) {
    sp.next_progress = events_executed_ + progress_every_;
    progress_->on_progress();
  }
  for (;;) {
    Time first = inbound;
    bool any = inbound != Time::max();
    for (uint32_t p = 0; p < partitions; ++p) {
      if (!list(p).empty()) {
        first = any ? std::min(first, list(p).top_time()) : list(p).top_time();
        any = true;
      }
    }
    const bool boundary = !sp.boundary.empty();
    const Time next_boundary = boundary ? sp.boundary.top_time() : Time::max();
    if (boundary && (!any || next_boundary <= first)) {
      if (next_boundary > bound_) return false;
      // The boundary events due at `next_boundary`: what they push for partitions goes straight
      // into their lists (no window runs).
      sp.serial.now = next_boundary;
      while (!sp.boundary.empty() && sp.boundary.top_time() == next_boundary) {
        const Event e = sp.boundary.pop();
        ++sp.serial_count;
        e.target->on_event(e.kind, e.arg);
      }
      sp.latest = std::max(sp.latest, next_boundary);
      continue;
    }
    if (!any || first > bound_) return false;
    sp.window_end = std::min(first + sp.window, next_boundary);
    return true;
  }
}

// Windows until none is left: between_windows on one thread, then each thread runs its
// partitions' events due within the window (each reads and writes only its own handlers and
// its lane) — thread k partition k, then the partitions beyond the threads' count, each taken by
// the first thread free — and again. Threads meet at a barrier whose completion step is
// between_windows.
StopReason Simulator::run_split(Time limit) {
  Split& sp = *split_;
  sp.latest = now_;
  sp.serial.now = now_;
  sp.serial_count = 0;
  sp.next_progress = progress_every_;
  for (Lane& l : sp.lanes) {
    l.now = now_;
    l.latest = now_;
    l.events = 0;
  }
  sp.base = events_executed_;
  bool more = false;
  std::exception_ptr error;
  std::mutex error_mutex;
  auto fail = [&] {
    const std::lock_guard<std::mutex> hold(error_mutex);
    if (error == nullptr) error = std::current_exception();
  };
  sp.rank_error = nullptr;
  sp.failed_elsewhere = false;
  sp.idle = false;
  const auto runnable = static_cast<uint32_t>(sp.local.size());  // this process's partitions
  std::atomic<uint32_t> next_partition{threads_};  // the next of sp.local nobody has taken
  auto step = [&]() noexcept {
    next_partition.store(threads_, std::memory_order_relaxed);
    if (sp.ranks != nullptr) {  // every process takes part whatever happened in its window
      try {
        more = between_windows_ranks(error != nullptr);
      } catch (...) {  // the processes' exchange itself failed (a rank left): no agreement left
        fail();
        more = false;
      }
      return;
    }
    try {
      more = error == nullptr && between_windows();
    } catch (...) {
      fail();
      more = false;
    }
  };
  WindowBarrier sync(threads_);
  auto work = [&](uint32_t k) {
    for (;;) {
      sync.arrive_and_wait(step);
      if (!more) break;
      // Its own partition first (it stays on one core: its lines stay in that core's cache),
      // then whichever is left: the first thread done with its own takes the next one.
      for (uint32_t i = k; i < runnable; i = next_partition.fetch_add(1)) {
        const uint32_t p = sp.local[i];
        Lane& lane = sp.lanes[p];
        t_running_ = &lane;
        try {
          take_inbound(p);
          run_lane(lane, sp.window_end);
        } catch (...) {
          fail();
        }
      }
    }
    t_running_ = nullptr;
  };
  windows_ = true;
  {
    std::vector<std::jthread> helpers;
    for (uint32_t k = 1; k < threads_; ++k) helpers.emplace_back(work, k);
    work(0);
  }
  windows_ = false;
  t_running_ = nullptr;
  sp.window_end = Time::max();
  for (const uint32_t p : sp.local) take_inbound(p);  // the last window's, if any
  if (sp.ranks != nullptr) {
    // A failure after the last exchange (an arrival this process could not take): every
    // process hears of it.
    std::array<uint64_t, 1> failures{error != nullptr || sp.rank_error != nullptr ? 1u : 0u};
    sp.ranks->sum_all(failures);
    if (failures[0] > 0 && error == nullptr && sp.rank_error == nullptr) sp.failed_elsewhere = true;
  }
  if (error != nullptr) std::rethrow_exception(error);
  if (sp.ranks != nullptr) {
    // The counts, the clock's end and idleness are every process's, agreed between windows.
    if (sp.rank_error != nullptr) std::rethrow_exception(sp.rank_error);
    if (sp.failed_elsewhere) {
      throw std::runtime_error("the run stopped: another process of it (rank) failed");
    }
    now_ = sp.latest;
    if (stop_requested_) {
      now_ = bound_;
      return StopReason::Requested;
    }
    if (sp.idle) return StopReason::Idle;
    now_ = limit;
    return StopReason::TimeLimit;
  }
  events_executed_ = sp.base + sp.serial_count;
  for (const Lane& l : sp.lanes) events_executed_ += l.events;
  now_ = sp.latest;
  if (stop_requested_) {
    now_ = bound_;
    return StopReason::Requested;
  }
  if (pending_events() == 0) return StopReason::Idle;
  now_ = limit;
  return StopReason::TimeLimit;
}

}  // namespace sim
