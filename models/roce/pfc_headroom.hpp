// PFC headroom: the bytes that still arrive at an ingress after it decides to pause its
// upstream (REFERENCES.md): the round trip of the cable (pause going up while data keeps
// coming down), the frame being sent when XOFF must go out, the PFC frame itself, the frame
// the upstream is sending when it acts, and the upstream's response time.
#pragma once

#include <cstdint>

#include "sim/time.hpp"

namespace models {

constexpr int64_t kPfcFrameWireBytes = 64 + 20;  // minimum frame + preamble and gap

// `switch_latency` is the receiving switch's own: a packet is accounted at its ingress once
// its first bit has passed that latency, so the data inside it when XOFF is decided still
// arrives afterwards.
inline int64_t pfc_headroom_bytes(int64_t rate_bps, sim::Time cable_delay, sim::Time response,
                                  sim::Time switch_latency, int64_t max_frame_wire_bytes) {
  const __int128 bits_in_flight =
      static_cast<__int128>(2 * cable_delay.ps + response.ps + switch_latency.ps) *
      rate_bps;  // ps * bit/s
  const int64_t flight_bytes =
      static_cast<int64_t>((bits_in_flight + 8'000'000'000'000LL - 1) / 8'000'000'000'000LL);
  return flight_bytes + 2 * max_frame_wire_bytes + kPfcFrameWireBytes;
}

}  // namespace models
