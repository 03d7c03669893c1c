#include "scenarios/loader/exact_decimal.hpp"

#include <limits>

namespace scen::peer {
namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

}  // namespace

Exactness scale_decimal(std::string_view s, int64_t multiplier, int pow10, int64_t& out) {
  using u128 = unsigned __int128;
  // Grammar: digits [ '.' digits ] [ (e|E) [+|-] digits ], at least one mantissa digit.
  std::string digits;
  int64_t exponent = 0;
  size_t i = 0;
  while (i < s.size() && is_digit(s[i])) digits += s[i++];
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && is_digit(s[i])) {
      digits += s[i++];
      --exponent;  // each fraction digit divides by ten
    }
  }
  if (digits.empty()) return Exactness::malformed;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    bool negative = false;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
    const size_t first = i;
    int64_t e = 0;
    while (i < s.size() && is_digit(s[i])) {
      if (e < 1'000'000) e = e * 10 + (s[i] - '0');  // saturate: the result is decided anyway
      ++i;
    }
    if (i == first) return Exactness::malformed;
    exponent += negative ? -e : e;
  }
  if (i != s.size()) return Exactness::malformed;

  // value = digits × 10^exponent; move trailing zeros of the digits into the exponent.
  const size_t first_nonzero = digits.find_first_not_of('0');
  if (first_nonzero == std::string::npos) {
    out = 0;
    return Exactness::ok;
  }
  digits.erase(0, first_nonzero);
  while (digits.back() == '0') {
    digits.pop_back();
    ++exponent;
  }
  exponent += pow10;
  // 38 digits always fit in 128 bits (2^128 > 3.4e38).
  if (digits.size() > 38) return exponent >= 0 ? Exactness::out_of_range : Exactness::not_whole;
  u128 m = 0;
  for (char c : digits) m = m * 10 + static_cast<u128>(c - '0');
  if (multiplier <= 0 || __builtin_mul_overflow(m, static_cast<u128>(multiplier), &m)) {
    return Exactness::out_of_range;
  }
  if (exponent < 0) {
    // m < 2^128 < 10^39, so dividing by 10^39 or more never leaves a whole number.
    if (exponent < -38) return Exactness::not_whole;
    u128 divisor = 1;
    for (int64_t k = 0; k < -exponent; ++k) divisor *= 10;
    if (m % divisor != 0) return Exactness::not_whole;
    m /= divisor;
  } else {
    for (int64_t k = 0; k < exponent; ++k) {
      if (__builtin_mul_overflow(m, static_cast<u128>(10), &m)) return Exactness::out_of_range;
    }
  }
  if (m > static_cast<u128>(std::numeric_limits<int64_t>::max())) return Exactness::out_of_range;
  out = static_cast<int64_t>(m);
  return Exactness::ok;
}

std::string time_text(int64_t ps) {
  if (ps % 1000 == 0) return std::to_string(ps / 1000) + "ns";
  return std::to_string(ps) + "ps";
}

}  // namespace scen::peer
