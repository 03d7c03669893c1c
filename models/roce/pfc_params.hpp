// Priority flow control (IEEE 802.1Qbb) parameters.
#pragma once

#include <cstdint>

#include "sim/time.hpp"

namespace models {

struct PfcParams {
  bool enabled = false;
  uint8_t lossless_priorities = 1u << 3;  // bit p set: class p is lossless (RoCE uses 3)
  // Static thresholds per (ingress port, priority): XOFF when the bytes held from that ingress
  // pass `xoff_bytes`; XON when they fall to xoff_bytes - xon_offset_bytes or below.
  int64_t xoff_bytes = 100'000;
  int64_t xon_offset_bytes = 8'000;
  // Headroom per (ingress port, priority) above XOFF for bytes still arriving after the pause
  // is sent; 0 = computed from the formula (pfc_headroom.hpp).
  int64_t headroom_bytes = 0;
  // Pause time in each frame, in quanta of 512 bit times (65535 = the maximum).
  int64_t quanta = 65535;
  // Upstream's reaction time from receiving a pause frame to holding the class (on top of
  // the packet in progress, which always completes).
  sim::Time response_time{0};
};

}  // namespace models
