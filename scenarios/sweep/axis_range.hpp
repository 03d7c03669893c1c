// An axis's "range": {"from", "to", "factor" | "step"}. Values are from, from×factor (or
// from+step), ... while they do not pass `to`; `to` itself is included only when hit exactly.
// Quantities with units multiply and add exactly in their base unit ("1MB" × 4 = "4MB").
#pragma once

#include <vector>

#include "scenarios/loader/json_reader.hpp"

namespace scen::sweep {

// The most values one range may produce (a typo such as a step of "1ns" over seconds must
// be refused, not expanded into billions of points).
constexpr size_t kMaxRangeValues = 100000;

// `range` reads the range object (its path names errors).
std::vector<Json> expand_range(JsonReader& range);

}  // namespace scen::sweep
