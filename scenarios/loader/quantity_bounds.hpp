#pragma once

#include <cstdint>

namespace scen {

// Bounds on every quantity a scenario states, so that every sum and product the simulation
// forms stays in 64 bits (time is a count of picoseconds: 2^63 ps is 106 days): sizes up to
// 1 TiB, times up to 10^6 s, rates from 1 kbps to 1 Pbps. A message's packet count fits in
// 31 bits (kMaxPackets; checked where sizes meet the MTU).
constexpr int64_t kMaxBytes = int64_t{1} << 40;
constexpr int64_t kMaxTimePs = 1'000'000'000'000'000'000;  // 10^6 s
constexpr int64_t kMinRateBps = 1'000;
constexpr int64_t kMaxRateBps = 1'000'000'000'000'000;
constexpr int64_t kMaxPackets = (int64_t{1} << 31) - 1;

}  // namespace scen
