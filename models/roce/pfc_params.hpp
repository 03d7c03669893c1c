// Priority flow control (IEEE 802.1Qbb) parameters.
#pragma once

#include <cstdint>

#include "sim/param_spec_fwd.hpp"
#include "sim/time.hpp"

namespace models {

// What the PFC watchdog does to a class it finds stuck (SONiC's "forward" and "drop" actions):
// ignore the pause and send, or also discard what the class holds and what reaches it.
enum class WatchdogAction : uint8_t { IgnorePause, Drop };

struct PfcParams {
  bool enabled = false;
  uint8_t lossless_priorities = 1u << 3;  // bit p set: class p is lossless (RoCE uses 3)
  // Static threshold per (ingress port, priority): XOFF when the shared-pool bytes held from
  // that ingress (above its reserve) would pass `xoff_bytes`; with the switch's dynamic
  // thresholds, α × free shared pool replaces it. XON when they fall `xon_offset_bytes` below
  // the threshold (and the headroom is empty).
  int64_t xoff_bytes = 100'000;
  int64_t xon_offset_bytes = 8'000;
  // Headroom per (ingress port, priority) for bytes still arriving after XOFF; 0 = computed
  // from the formula (pfc_headroom.hpp).
  int64_t headroom_bytes = 0;
  // Switch-wide headroom pool the lossless (port, priority) pairs share, each still bounded by
  // its own headroom; 0 = every pair's headroom is set aside in full (never oversubscribed).
  int64_t headroom_pool_bytes = 0;
  // Pause time in each frame, in quanta of 512 bit times (65535 = the maximum).
  int64_t quanta = 65535;
  // Upstream's reaction time from receiving a pause frame to holding the class (on top of
  // the packet in progress, which always completes).
  sim::Time response_time{0};
  // Run-time deadlock detection (deadlock_detector.hpp): a cycle of ingress buffers whose
  // egress queues stayed paused with nothing dequeued for `deadlock_window`, looked for every
  // `deadlock_check_interval`.
  // PFC watchdog on switch egress ports (pfc_gate.hpp): 0 = off.
  sim::Time watchdog_timeout{0};
  sim::Time watchdog_recovery{200'000'000};  // 200 us
  WatchdogAction watchdog_action = WatchdogAction::IgnorePause;
  bool deadlock_detection = true;
  sim::Time deadlock_window{200'000'000};         // 200 us
  sim::Time deadlock_check_interval{50'000'000};  // 50 us
};

// One line of pfc.csv: a frame sent by a switch (for an ingress port) or by a NIC (port 0,
// for its receive buffer).
struct PfcEvent {
  sim::Time time;
  int node = 0;
  uint16_t port = 0;
  uint8_t priority = 0;
  enum Kind : uint8_t { Pause, Refresh, Resume } kind = Pause;
  // Bytes the ingress (or the NIC receive buffer) held for the priority when XOFF or XON was
  // decided (for a refresh, when it was sent).
  int64_t ingress_bytes = 0;
};

// The parameters of PfcParams a scenario sets (models/roce/pfc_params.cpp): fabric.pfc, and
// the watchdog's an override sets (overrides[].set.pfc_watchdog).
const sim::ParamTable<PfcParams>& pfc_param_table();
const sim::ParamTable<PfcParams>& watchdog_override_param_table();

}  // namespace models
