// A sweep value read as a quantity: a plain integer, or a duration, rate or size with its unit
// ("600ns", "100Gbps", "1MB"). Ranges step and multiply these exactly, and constraints compare
// them, so "0.4MB" and "400KB" are the same value and "1us" is more than "900ns".
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "scenarios/loader/json_reader.hpp"

namespace scen::sweep {

enum class QuantityKind { Number, Time, Rate, Bytes };

struct Quantity {
  QuantityKind kind = QuantityKind::Number;
  int64_t value = 0;  // the integer, picoseconds, bits per second or bytes
};

// A JSON integer, or a string with a unit; nullopt for anything else (fractions included:
// they would not step exactly).
std::optional<Quantity> parse_quantity(const Json& v);

// The value as a scenario would write it: an integer, or the shortest exact string with unit.
Json quantity_json(const Quantity& q);

const char* kind_name(QuantityKind k);

// The value as a cell or in a message: a string without quotes, anything else as JSON.
std::string value_text(const Json& v);

}  // namespace scen::sweep
