// Number formatting and statistics shared by every output: nearest-rank percentiles and exact
// decimal renderings of integer quantities (no floating-point rounding in outputs).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/time.hpp"

namespace scen {

// Nearest-rank percentile (the smallest value with at least p% of the data at or below it);
// 0 for an empty set. p in (0, 100].
inline int64_t nearest_rank(std::vector<int64_t> values, int p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  size_t rank = (static_cast<size_t>(p) * values.size() + 99) / 100;  // ceil(p/100 * n)
  if (rank == 0) rank = 1;
  return values[rank - 1];
}

// v / 1000 with exactly three decimals: "1234.567".
inline std::string format_milli(int64_t v) {
  const bool neg = v < 0;
  const uint64_t a = neg ? static_cast<uint64_t>(-v) : static_cast<uint64_t>(v);
  std::string frac = std::to_string(a % 1000);
  frac.insert(0, 3 - frac.size(), '0');
  return (neg ? "-" : "") + std::to_string(a / 1000) + "." + frac;
}

// Picoseconds as nanoseconds with three decimals, exact.
inline std::string format_ns(sim::Time t) {
  return format_milli(t.ps);
}

// v / 1000 as a JSON number (summary.json writes numbers, not strings). The division is
// correctly rounded and JSON writes the shortest decimal that reads back as the same double,
// so the number written is the exact three-decimal value (up to 15 significant digits).
inline double milli_number(int64_t v) {
  return static_cast<double>(v) / 1000.0;
}

// Picoseconds as nanoseconds, a JSON number exact to the picosecond (below 10^15 ps, 1000 s);
// results that need the exact integer carry it in ps beside (end_time_ps).
inline double ns_number(sim::Time t) {
  return milli_number(t.ps);
}

}  // namespace scen
