// PFC headroom: the bytes that can still arrive at a lossless ingress (port, priority) after
// it decides XOFF (docs/references.md "PFC": cable round trip, the frame being sent when XOFF
// must go out, the PFC frame, the frame the upstream is sending when it acts, its response
// time).
//
// The bound, exact for this model. The switch accounts a packet whole once its first bit has
// passed the cable (d) and the switch's latency (L); the packet whose admission would pass the
// threshold is the first one held in headroom (SwitchBuffer), and it decides XOFF at that
// moment T. Let t0 = T − d − L be when the upstream started sending it. Then:
//   - the pause waits behind the frame in progress on the reverse link (at most one maximum
//     frame, F) and behind PFC frames queued before it (a resume of the same priority not yet
//     sent, one frame for each other lossless priority), is sent (P per frame) and arrives at
//     its last bit, d later;
//   - the upstream holds the class r (response time) after that, once its packet in progress
//     completes: T_stop = T + F/R + (k + 1)·P/R + d + r for k lossless priorities.
// Everything in headroom left the upstream in [t0, T_stop): packets it sent back to back from
// t0, the last one (at most F) starting just before T_stop. So
//   headroom < R·(T_stop − t0) + F = R·(2d + L + r) + 2F + (k + 1)·P,
// reached when the upstream sends full frames without a gap, the pause waits behind a full
// frame that had just started, and the upstream had just started a full frame when the pause
// took hold. Store-and-forward accounts at the last bit: pass L plus one frame time.
#pragma once

#include <cstdint>

#include "sim/time.hpp"

namespace models {

constexpr int64_t kPfcFrameWireBytes = 64 + 20;  // minimum frame + preamble and gap

// `switch_latency` is the receiving switch's own (see above); `lossless_priorities` the number
// of lossless classes sharing the port (each may have one PFC frame queued ahead of the pause).
inline int64_t pfc_headroom_bytes(int64_t rate_bps, sim::Time cable_delay, sim::Time response,
                                  sim::Time switch_latency, int64_t max_frame_wire_bytes,
                                  int lossless_priorities = 1) {
  const __int128 bits_in_flight =
      static_cast<__int128>(2 * cable_delay.ps + response.ps + switch_latency.ps) *
      rate_bps;  // ps * bit/s
  const int64_t flight_bytes =
      static_cast<int64_t>((bits_in_flight + 8'000'000'000'000LL - 1) / 8'000'000'000'000LL);
  return flight_bytes + 2 * max_frame_wire_bytes + (lossless_priorities + 1) * kPfcFrameWireBytes;
}

}  // namespace models
