// How an egress port shares its link among its traffic classes: each class is either strict
// priority or a member of one deficit-weighted round-robin (DWRR) group with a weight. Strict
// classes go first, highest first (802.1Q strict priority); when none of them may send, the
// weighted classes share what is left in proportion to their weights (the "strict priority +
// DWRR" arrangement of data-centre switch ASICs and of IEEE 802.1Qaz ETS).
#pragma once

#include <array>
#include <cstdint>

#include "models/context.hpp"

namespace models {

// Per port: the weight of each class, 0 = strict priority. All strict is the default (and
// the behaviour of a port that was never configured).
struct ClassSchedule {
  std::array<uint32_t, kPriorities> weight{};
  // Bytes of credit per unit of weight and round (see DwrrScheduler).
  int64_t quantum_bytes = 0;

  uint8_t weighted_mask() const {
    uint8_t m = 0;
    for (int c = 0; c < kPriorities; ++c) {
      if (weight[c] > 0) m |= static_cast<uint8_t>(1u << c);
    }
    return m;
  }
};

// Deficit round robin, M. Shreedhar and G. Varghese, "Efficient Fair Queueing using Deficit
// Round Robin", SIGCOMM 1995: each class visited in its turn adds its quantum (weight × base
// quantum, in wire bytes) to its deficit counter and sends head packets while the head fits in
// the deficit; a class whose queue empties forfeits what is left (deficit reset to 0). With a
// quantum of at least one maximum-size frame every visit sends at least one packet, so a
// choice costs O(1) visits; over a busy period each class gets its weight's share of the
// bytes, to within one maximum frame per class.
//
// The port asks for one packet at a time (it serialises one, then asks again), so the paper's
// inner "while" loop becomes: the class holding the turn keeps it while its deficit covers its
// head packet. The round goes over the classes in class order (0, 1, ..., 7, 0, ...) rather
// than the paper's list of queues in order of activation; the shares are the same.
//
// Classes the caller marks not eligible — held by flow control (PFC pause, no IB credits) or
// with a head not yet ready — are skipped: they earn no quantum while skipped and keep the
// deficit they have. So a paused class neither blocks the others nor banks credit for a burst
// after the pause; a class paused in the middle of its turn spends the unused rest of that
// turn's quantum at its next turn (owed, not gained).
class DwrrScheduler {
 public:
  void configure(const ClassSchedule& s) {
    for (int c = 0; c < kPriorities; ++c) {
      quantum_[c] = static_cast<int64_t>(s.weight[c]) * s.quantum_bytes;
      deficit_[c] = 0;
    }
    turn_ = -1;
  }

  // The class to send from, among `eligible` (bit c: class c is non-empty and may send now;
  // not 0). head_bytes(c) is the wire size of class c's head packet.
  template <typename HeadBytes>
  int next(uint32_t eligible, HeadBytes head_bytes) {
    if (turn_ >= 0 && ((eligible >> turn_) & 1u) != 0 && deficit_[turn_] >= head_bytes(turn_)) {
      return turn_;
    }
    int c = turn_;
    for (;;) {
      // The next eligible class after c, cyclically (c = -1: from class 0).
      const uint32_t after = eligible & (~0u << (c + 1));
      c = __builtin_ctz(after != 0 ? after : eligible);
      deficit_[c] += quantum_[c];
      turn_ = c;
      if (deficit_[c] >= head_bytes(c)) return c;
    }
  }

  // Class c sent a packet of `wire_bytes`; `now_empty` when that emptied its queue.
  void on_sent(int c, uint32_t wire_bytes, bool now_empty) {
    deficit_[c] = now_empty ? 0 : deficit_[c] - wire_bytes;
  }

  int64_t deficit(int c) const { return deficit_[c]; }

 private:
  std::array<int64_t, kPriorities> quantum_{};
  std::array<int64_t, kPriorities> deficit_{};
  int turn_ = -1;  // the class holding the turn, -1 before the first choice
};

}  // namespace models
