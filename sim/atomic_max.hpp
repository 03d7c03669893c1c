// The latest of several moments that a split run's threads note at once (a call's end, a
// rank's last message): an atomic maximum, so the result does not depend on the order the
// threads come in.
#pragma once

#include <atomic>
#include <cstdint>

namespace sim {

inline void raise_to(std::atomic<int64_t>& latest, int64_t value) {
  int64_t seen = latest.load(std::memory_order_relaxed);
  while (seen < value && !latest.compare_exchange_weak(seen, value, std::memory_order_relaxed)) {
  }
}

// The earliest of several moments noted at once (a call's first start).
inline void lower_to(std::atomic<int64_t>& earliest, int64_t value) {
  int64_t seen = earliest.load(std::memory_order_relaxed);
  while (seen > value && !earliest.compare_exchange_weak(seen, value, std::memory_order_relaxed)) {
  }
}

}  // namespace sim
