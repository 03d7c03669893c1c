// Simulated time: a signed 64-bit count of picoseconds (2^63 ps is about 106 days).
// One type serves for instants and durations. No floating point on the event path.
#pragma once

#include <compare>
#include <cstdint>
#include <limits>

namespace sim {

struct Time {
  int64_t ps = 0;

  constexpr Time() = default;
  constexpr explicit Time(int64_t picoseconds) : ps(picoseconds) {}

  static constexpr Time zero() { return Time(0); }
  static constexpr Time max() { return Time(std::numeric_limits<int64_t>::max()); }

  constexpr auto operator<=>(const Time&) const = default;
  constexpr Time operator+(Time o) const { return Time(ps + o.ps); }
  constexpr Time operator-(Time o) const { return Time(ps - o.ps); }
  constexpr Time& operator+=(Time o) {
    ps += o.ps;
    return *this;
  }
  constexpr Time& operator-=(Time o) {
    ps -= o.ps;
    return *this;
  }
  constexpr Time operator*(int64_t k) const { return Time(ps * k); }

  // For reporting only (never on the event path).
  constexpr double ns() const { return static_cast<double>(ps) / 1e3; }
  constexpr double us() const { return static_cast<double>(ps) / 1e6; }
  constexpr double seconds() const { return static_cast<double>(ps) / 1e12; }
};

namespace literals {
constexpr Time operator""_ps(unsigned long long v) {
  return Time(static_cast<int64_t>(v));
}
constexpr Time operator""_ns(unsigned long long v) {
  return Time(static_cast<int64_t>(v) * 1000);
}
constexpr Time operator""_us(unsigned long long v) {
  return Time(static_cast<int64_t>(v) * 1000'000);
}
constexpr Time operator""_ms(unsigned long long v) {
  return Time(static_cast<int64_t>(v) * 1000'000'000);
}
constexpr Time operator""_s(unsigned long long v) {
  return Time(static_cast<int64_t>(v) * 1000'000'000'000);
}
}  // namespace literals

// Time to put `bytes` on a wire of `rate_bps`: ceil(bytes * 8 * 10^12 / rate), exact in
// 128-bit arithmetic, never from a truncated per-byte time (which drifts).
// Every packet pays for this once per hop, so sizes whose product fits in 64 bits (up to about
// 1 MB, any packet) take a 64-bit division; a 128-bit one is a library call several times
// slower. Both give the same exact ceiling.
constexpr Time serialization_time(int64_t bytes, int64_t rate_bps) {
  constexpr int64_t kBitPs = 8 * 1'000'000'000'000LL;
  if (bytes >= 0 && bytes < (int64_t{1} << 20) && rate_bps > 0 && rate_bps < (int64_t{1} << 42)) {
    // bytes × 8·10^12 < 2^20 × 2^43 = 2^63 and rate − 1 < 2^42: no overflow in 64 bits.
    return Time((bytes * kBitPs + rate_bps - 1) / rate_bps);
  }
  const __int128 bits_ps = static_cast<__int128>(bytes) * kBitPs;
  return Time(static_cast<int64_t>((bits_ps + rate_bps - 1) / rate_bps));
}

}  // namespace sim
