#include "scenarios/sweep/quantity.hpp"

#include "sim/units.hpp"

namespace scen::sweep {

std::optional<Quantity> parse_quantity(const Json& v) {
  if (v.is_number_integer()) {
    if (v.is_number_unsigned() && v.get<uint64_t>() > INT64_MAX) return std::nullopt;
    return Quantity{QuantityKind::Number, v.get<int64_t>()};
  }
  if (!v.is_string()) return std::nullopt;
  const std::string s = v.get<std::string>();
  // A size needs no unit ("1500" is bytes), so it is tried last: a string that is a duration
  // or a rate is never read as a size.
  try {
    return Quantity{QuantityKind::Time, sim::parse_time(s).ps};
  } catch (const sim::UnitError&) {
  }
  try {
    return Quantity{QuantityKind::Rate, sim::parse_rate_bps(s)};
  } catch (const sim::UnitError&) {
  }
  try {
    return Quantity{QuantityKind::Bytes, sim::parse_bytes(s)};
  } catch (const sim::UnitError&) {
  }
  return std::nullopt;
}

Json quantity_json(const Quantity& q) {
  switch (q.kind) {
    case QuantityKind::Number:
      return q.value;
    case QuantityKind::Time:
      return sim::format_time(sim::Time(q.value));
    case QuantityKind::Rate:
      return sim::format_rate(q.value);
    case QuantityKind::Bytes:
      return sim::format_bytes(q.value);
  }
  return q.value;
}

const char* kind_name(QuantityKind k) {
  switch (k) {
    case QuantityKind::Number:
      return "a number";
    case QuantityKind::Time:
      return "a duration";
    case QuantityKind::Rate:
      return "a rate";
    case QuantityKind::Bytes:
      return "a size";
  }
  return "a number";
}

std::string value_text(const Json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

}  // namespace scen::sweep
