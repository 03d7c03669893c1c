// The receiving side of PFC at a port: a pause frame for a priority holds that class of the
// port's egress for quanta × 512 bit times (after the response time); the packet in progress
// completes; quanta 0 resumes at once. A later frame replaces the earlier one's deadline, on
// one timer per class (no event per frame).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "models/egress_port.hpp"
#include "models/roce/pfc_params.hpp"

namespace models {

struct PfcGateStats {
  uint64_t pause_frames_received = 0;
  sim::Time paused_time;  // sum over priorities of the time each was held
  std::array<uint64_t, kPriorities> frames_by_priority{};
  std::array<sim::Time, kPriorities> paused_by_priority{};
  uint64_t watchdog_triggers = 0;  // pauses the watchdog overrode
};

// One interval a class of a port was held (`run --timeline`); `tag` is the caller's name for
// the port.
struct PauseInterval {
  sim::Time start, end;
  uint32_t tag = 0;
  uint8_t priority = 0;
};

class PfcGate final : public FlowControlGate, public sim::EventHandler {
 public:
  PfcGate(Context& ctx, EgressPort& port, sim::Time response_time)
      : EventHandler(ctx.sim), ctx_(ctx), port_(port), response_(response_time) {}

  bool may_send(uint8_t priority, uint32_t) override {
    const sim::Time now = ctx_.sim.now();
    if (now < hold_[priority].ignore_until) return true;  // the watchdog overrides the pause
    return now < hold_[priority].from || now >= hold_[priority].until;
  }

  // PFC watchdog, as on data-centre switches: a class held continuously for `timeout` has its
  // pause ignored for `recovery` (what arrives downstream beyond its headroom is then dropped
  // there and counted as a lossless drop); while the pause persists it triggers again after
  // each further timeout. A zero timeout turns it off. With the drop action (SONiC's "drop",
  // Arista's "drop"), the class's queued packets are also discarded at the trigger and every
  // packet reaching the class during the recovery is too (EgressPort::discarded_packets): the
  // stuck buffers empty at once and nothing extra lands on the paused neighbour; end-to-end
  // retransmission (go-back-N) resends what was lost.
  void set_watchdog(sim::Time timeout, sim::Time recovery,
                    WatchdogAction action = WatchdogAction::IgnorePause) {
    watchdog_timeout_ = timeout;
    watchdog_recovery_ = recovery;
    watchdog_action_ = action;
  }
  sim::Time watchdog_timeout() const { return watchdog_timeout_; }
  sim::Time watchdog_recovery() const { return watchdog_recovery_; }
  WatchdogAction watchdog_action() const { return watchdog_action_; }
  void on_send(uint8_t, uint32_t) override {}
  // Every held interval, once it ends (or at finish_accounting), goes to `log` with `tag`.
  void record_pauses(PartitionLog<PauseInterval>* log, uint32_t tag) {
    pause_log_ = log;
    pause_tag_ = tag;
  }

  // A PFC frame for `priority` with `quanta` arrived on this port's link.
  void on_pause_frame(uint8_t priority, uint32_t quanta) {
    ++stats_.pause_frames_received;
    ++stats_.frames_by_priority[priority];
    const sim::Time start = ctx_.sim.now() + response_;
    // 1 quantum = 512 bit times = 64 bytes' time at the port's rate, exact.
    const sim::Time until =
        start + sim::serialization_time(static_cast<int64_t>(quanta) * 64, port_.rate_bps());
    if (hold_[priority].until >= start && hold_[priority].from <= start) {
      hold_[priority].until = until;  // extends (refresh) or shortens (resume) the hold
    } else {
      account(priority, hold_[priority].until);
      hold_[priority].from = start;
      hold_[priority].until = until;
      if (watchdog_timeout_.ps > 0) {  // a new pause: check it once the timeout has passed
        ctx_.sim.at(start + watchdog_timeout_, this, kWatchdog + priority,
                    static_cast<uint64_t>(start.ps));
      }
    }
    // The hold's end, the one event a class keeps pending: a later frame moves it. Its start
    // needs none: a class that becomes held has nothing to wake, may_send reads the hold.
    release_timer(priority).arm(until);
  }

  void on_event(uint32_t kind, uint64_t arg) override {
    if (kind >= kWatchdogEnd) {  // the drop action's recovery is over (unless a later one runs)
      const auto p = static_cast<uint8_t>(kind - kWatchdogEnd);
      if (ctx_.sim.now() >= hold_[p].ignore_until) port_.set_discard(p, false);
      return;
    }
    if (kind >= kWatchdog) {
      watchdog_check(static_cast<uint8_t>(kind - kWatchdog), sim::Time(static_cast<int64_t>(arg)));
      return;
    }
    port_.wake();
  }

  bool paused(uint8_t priority) { return !may_send(priority, 0); }
  // Start of the current pause of a class (refreshes extend a pause without restarting it);
  // meaningful while paused(priority).
  sim::Time paused_since(uint8_t priority) const { return hold_[priority].from; }
  const PfcGateStats& stats() const { return stats_; }
  // Adds the held time up to now (end of run).
  void finish_accounting() {
    for (uint8_t p = 0; p < kPriorities; ++p) {
      account(p, std::min(hold_[p].until, ctx_.sim.now()));
      hold_[p].from = hold_[p].until = sim::Time(0);
    }
  }

  // Its results, gathered from the process that ran it (sim/result_archive.hpp).
  void archive_results(sim::ResultArchive& a);

 private:
  static constexpr uint32_t kWatchdog = kPriorities;         // event kinds kWatchdog + priority
  static constexpr uint32_t kWatchdogEnd = 2 * kPriorities;  // kWatchdogEnd + priority
  // The pause that started at `start` is still on, unbroken: override it for the recovery.
  void watchdog_check(uint8_t p, sim::Time start) {
    const sim::Time now = ctx_.sim.now();
    if (hold_[p].from != start || now >= hold_[p].until) return;  // it ended meanwhile
    ++stats_.watchdog_triggers;
    hold_[p].ignore_until = now + watchdog_recovery_;
    if (watchdog_action_ == WatchdogAction::Drop) {
      port_.set_discard(p, true);
      port_.discard_queued(p);
      ctx_.sim.at(hold_[p].ignore_until, this, kWatchdogEnd + p);
    }
    ctx_.sim.at(hold_[p].ignore_until + watchdog_timeout_, this, kWatchdog + p,
                static_cast<uint64_t>(start.ps));
    port_.wake();
  }

  // One timer per priority that has had a frame: a refresh every half pause time moves the
  // end of the hold without leaving an event per frame in the list.
  sim::OrderedTimer& release_timer(uint8_t p) {
    if (!release_[p]) release_[p] = std::make_unique<sim::OrderedTimer>(ctx_.sim, this, p);
    return *release_[p];
  }

  void account(uint8_t p, sim::Time end) {
    if (end > hold_[p].from) {
      stats_.paused_time += end - hold_[p].from;
      stats_.paused_by_priority[p] += end - hold_[p].from;
      if (pause_log_ != nullptr) pause_log_->local().push_back({hold_[p].from, end, pause_tag_, p});
    }
  }

  Context& ctx_;
  EgressPort& port_;
  sim::Time response_;
  // Per priority, what may_send reads for every packet the port considers, side by side: one
  // cache line per check instead of three (on a large fabric each is a likely miss).
  struct alignas(32) Hold {  // never across two lines
    sim::Time from;          // the current or last pause started here ...
    sim::Time until;         // ... and holds until here
    sim::Time ignore_until;  // the watchdog overrides the pause until here
  };
  std::array<Hold, kPriorities> hold_{};
  std::array<std::unique_ptr<sim::OrderedTimer>, kPriorities> release_;
  sim::Time watchdog_timeout_{0};
  sim::Time watchdog_recovery_{0};
  WatchdogAction watchdog_action_ = WatchdogAction::IgnorePause;
  PfcGateStats stats_;
  PartitionLog<PauseInterval>* pause_log_ = nullptr;
  uint32_t pause_tag_ = 0;
};

}  // namespace models
