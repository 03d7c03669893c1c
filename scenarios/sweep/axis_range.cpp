#include "scenarios/sweep/axis_range.hpp"

#include <string>

#include "scenarios/sweep/quantity.hpp"

namespace scen::sweep {
namespace {

const char* const kExpectQuantity =
    "an integer, or a duration, rate or size with a unit (\"1MB\", \"600ns\", \"100Gbps\")";

Quantity read_quantity(JsonReader& r, const char* key) {
  const Json& v = r.at(key).json();
  const auto q = parse_quantity(v);
  if (!q) throw InputError(r.child_path(key), r.value_text(key), kExpectQuantity);
  return *q;
}

}  // namespace

std::vector<Json> expand_range(JsonReader& range) {
  range.expect_object();
  const Quantity from = read_quantity(range, "from");
  const Quantity to = read_quantity(range, "to");
  if (to.kind != from.kind) {
    throw InputError(range.child_path("to"), range.value_text("to"),
                     std::string(kind_name(from.kind)) + ", like \"from\"");
  }
  if (to.value < from.value) {
    throw InputError(range.child_path("to"), range.value_text("to"),
                     "a value not less than \"from\" (" + range.value_text("from") + ")");
  }
  const bool has_factor = range.has("factor"), has_step = range.has("step");
  if (has_factor == has_step) {
    throw InputError(range.path(), "", "exactly one of \"factor\" or \"step\"");
  }
  int64_t factor = 1, step = 0;
  if (has_factor) {
    // An integer factor keeps every value exact; from = 0 would never grow.
    factor = range.integer("factor", 2, INT64_MAX);
    if (from.value <= 0) {
      throw InputError(range.child_path("from"), range.value_text("from"),
                       "a positive start for a \"factor\" range");
    }
  } else {
    const Quantity s = read_quantity(range, "step");
    if (s.kind != from.kind || s.value <= 0) {
      throw InputError(range.child_path("step"), range.value_text("step"),
                       std::string("a positive step, ") + kind_name(from.kind) + " like \"from\"");
    }
    step = s.value;
  }
  range.finish();
  std::vector<Json> values;
  int64_t v = from.value;
  while (true) {
    if (values.size() == kMaxRangeValues) {
      throw InputError(range.path(), "more than " + std::to_string(kMaxRangeValues) + " values",
                       "a range of at most " + std::to_string(kMaxRangeValues) + " values");
    }
    values.push_back(quantity_json({from.kind, v}));
    // Stop before the next value would pass `to` (or overflow 64 bits).
    if (has_factor) {
      if (v > to.value / factor) break;
      v *= factor;
    } else {
      if (static_cast<__int128>(v) + step > to.value) break;
      v += step;
    }
  }
  return values;
}

}  // namespace scen::sweep
