// The PFC parameters a scenario sets (fabric.pfc, overrides' pfc_watchdog), described once
// (sim/param_spec.hpp).
#include "models/roce/pfc_params.hpp"

#include "sim/param_spec.hpp"

namespace models {
namespace {

constexpr const char* kWatchdogAction =
    "ignore-pause | drop: what the PFC watchdog does to a stuck class for the recovery time — "
    "ignore its pause, or also discard its queued packets and every packet reaching it "
    "(SONiC's forward / drop actions)";

sim::ParamSpec<PfcParams> watchdog_action(std::string key) {
  return sim::choice_param<PfcParams>(
      std::move(key), &PfcParams::watchdog_action, kWatchdogAction,
      {{"ignore-pause", static_cast<int64_t>(WatchdogAction::IgnorePause)},
       {"drop", static_cast<int64_t>(WatchdogAction::Drop)}});
}

}  // namespace

const sim::ParamTable<PfcParams>& pfc_param_table() {
  using S = PfcParams;
  static const sim::ParamTable<S> t = {
      sim::bool_param<S>("enabled", &S::enabled,
                         "priority flow control (IEEE 802.1Qbb) on every port"),
      sim::custom_param<S>("priorities", "list", &S::lossless_priorities,
                           "lossless traffic classes (0..7); the others stay lossy"),
      sim::bytes_param<S>(
          "xoff", &S::xoff_bytes,
          "bytes held per (ingress port, lossless priority) above which a pause is sent upstream",
          1),
      sim::bytes_param<S>("xon_offset", &S::xon_offset_bytes,
                          "hysteresis: resume when the bytes fall to xoff - xon_offset"),
      sim::bytes_param<S>(
          "headroom", &S::headroom_bytes,
          "bytes a lossless (ingress, priority) accepts after XOFF; 0 = rate x (2 x cable + switch "
          "latency + response time) + 2 max frames + (lossless priorities + 1) PFC frames"),
      sim::bytes_param<S>(
          "headroom_pool", &S::headroom_pool_bytes,
          "switch-wide headroom pool shared by the lossless (port, priority) pairs, each still "
          "bounded by its headroom; 0 = every pair's headroom set aside in full"),
      sim::int_param<S>("quanta", &S::quanta, "pause time per frame, in 512-bit-time quanta", 1,
                        65535),
      sim::time_param<S>(
          "watchdog_timeout", &S::watchdog_timeout,
          "PFC watchdog: a switch egress class paused this long without a break is acted on "
          "(watchdog_action) for watchdog_recovery (0 = no watchdog)"),
      sim::time_param<S>("watchdog_recovery", &S::watchdog_recovery, "how long the watchdog acts",
                         sim::Time(1)),
      watchdog_action("watchdog_action"),
      sim::bool_param<S>(
          "deadlock_detection", &S::deadlock_detection,
          "look for cycles of paused ingress buffers (PFC deadlocks) during the run"),
      sim::time_param<S>(
          "deadlock_window", &S::deadlock_window,
          "a cycle counts once all its queues stayed paused, nothing dequeued, this long",
          sim::Time(1)),
      sim::time_param<S>("deadlock_check_interval", &S::deadlock_check_interval,
                         "how often the wait-for graph is examined", sim::Time(1)),
      sim::time_param<S>(
          "response_time", &S::response_time,
          "upstream's delay from receiving a pause to holding the class (after the packet in "
          "progress)"),
  };
  return t;
}

const sim::ParamTable<PfcParams>& watchdog_override_param_table() {
  using S = PfcParams;
  static const sim::ParamTable<S> t = {
      sim::time_param<S>("timeout", &S::watchdog_timeout,
                         "pause time without a break that triggers the watchdog (0 = off)"),
      sim::time_param<S>("recovery", &S::watchdog_recovery, "how long the watchdog acts",
                         sim::Time(1)),
      watchdog_action("action"),
  };
  return t;
}

}  // namespace models
