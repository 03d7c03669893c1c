// Shared-buffer thresholds of a switch MMU. A (port, priority) may hold shared-pool bytes up to
// its threshold: either a fixed number of bytes (static) or α × the shared-pool bytes still free
// (dynamic; Choudhury & Hahne, "Dynamic queue length thresholds for shared-memory packet
// switches", IEEE/ACM ToN 1998 — the Broadcom-style MMU the ns-3 HPCC simulator models,
// docs/references.md "One common MMU model"). With N (port, priority) pairs congested at once the
// dynamic threshold settles where each holds α·S / (1 + N·α) of a pool of S bytes: one busy
// queue may take most of the buffer, many share it, and a fraction of the pool always stays
// free for a queue that becomes busy.
#pragma once

#include <cstdint>

namespace models {

enum class ThresholdMode : uint8_t { Static, Dynamic };

// α as an exact fraction, so that thresholds stay integer arithmetic on the event path.
struct Alpha {
  int32_t num = 1;
  int32_t den = 8;  // 1/8: the typical value (ns-3 HPCC simulator; docs/references.md)
  friend bool operator==(const Alpha&, const Alpha&) = default;
};

// α × free, rounded down; nothing free gives 0. A product that fits 64 bits (any buffer below
// 2^31 bytes) takes a 64-bit division: the 128-bit one is a library call, on every admission
// of a dynamic-threshold switch. Both give the same quotient.
inline int64_t dynamic_threshold(int64_t free_bytes, Alpha alpha) {
  if (free_bytes <= 0) return 0;
  if (int64_t product = 0; !__builtin_mul_overflow(free_bytes, int64_t{alpha.num}, &product)) {
    return product / alpha.den;
  }
  return static_cast<int64_t>(static_cast<__int128>(free_bytes) * alpha.num / alpha.den);
}

}  // namespace models
