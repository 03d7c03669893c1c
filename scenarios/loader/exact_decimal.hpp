// Exact conversion of decimal text to an integer count of a small unit, without floating
// point. The peers write times such as "2.000000261" (seconds) and rates such as "2.5Gbps";
// a double cannot hold 2.000000261 s to the picosecond, and rdmasim's time is integer
// picoseconds (DESIGN.md: "Time is an integer"), so the digits are scaled as digits.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace scen::peer {

enum class Exactness {
  ok,
  malformed,     // not digits[.digits][e[+-]digits]
  not_whole,     // the value is not a whole number of the target unit
  out_of_range,  // above INT64_MAX of the target unit
};

// out = value(text) × multiplier × 10^pow10, exactly. `text` is an unsigned decimal number:
// digits with an optional '.' fraction and an optional e/E exponent ("1000", "2.000000261",
// ".5", "1e6"). multiplier must be > 0.
Exactness scale_decimal(std::string_view text, int64_t multiplier, int pow10, int64_t& out);

// rdmasim's spelling of an instant: "<N>ns" when `ps` is a whole number of nanoseconds, else
// "<N>ps".
std::string time_text(int64_t ps);

}  // namespace scen::peer
