#include "sim/units.hpp"

#include <array>
#include <cctype>
#include <string>

namespace sim {
namespace {

struct Unit {
  std::string_view name;
  int64_t scale;  // base units per unit
};

std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

// Parses "<decimal><unit>" exactly into base units. `what` names the quantity for errors.
template <size_t N>
int64_t parse_quantity(std::string_view text, const std::array<Unit, N>& units,
                       std::string_view what, std::string_view examples, bool unit_optional) {
  const std::string s = trim(text);
  size_t i = 0;
  __int128 int_part = 0, frac_part = 0, frac_div = 1;
  bool digits = false;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) {
    throw UnitError("a non-negative " + std::string(what) + " such as " + std::string(examples));
  }
  for (; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); ++i) {
    int_part = int_part * 10 + (s[i] - '0');
    digits = true;
    if (int_part > static_cast<__int128>(INT64_MAX)) {
      throw UnitError("a " + std::string(what) + " that fits in 64 bits");
    }
  }
  if (i < s.size() && s[i] == '.') {
    ++i;
    for (; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); ++i) {
      if (frac_div < static_cast<__int128>(1'000'000'000'000'000'000LL)) {
        frac_part = frac_part * 10 + (s[i] - '0');
        frac_div *= 10;
      } else if (s[i] != '0') {
        throw UnitError("at most 18 decimal places in a " + std::string(what));
      }
      digits = true;
    }
  }
  if (!digits) {
    throw UnitError("a " + std::string(what) + " such as " + std::string(examples));
  }
  while (i < s.size() && s[i] == ' ') ++i;
  const std::string_view unit = std::string_view(s).substr(i);
  int64_t scale = 0;
  if (unit.empty() && unit_optional) {
    scale = 1;
  } else {
    for (const auto& u : units) {
      if (u.name == unit) scale = u.scale;
    }
  }
  if (scale == 0) {
    std::string names;
    for (const auto& u : units) names += (names.empty() ? "" : ", ") + std::string(u.name);
    throw UnitError("a " + std::string(what) + " with a unit (" + names + "), such as " +
                    std::string(examples));
  }
  const __int128 whole = int_part * scale;
  const __int128 frac_scaled = frac_part * scale;
  if (frac_scaled % frac_div != 0) {
    throw UnitError("a " + std::string(what) + " that is a whole number of " +
                    std::string(units[0].name));
  }
  const __int128 total = whole + frac_scaled / frac_div;
  if (total > static_cast<__int128>(INT64_MAX)) {
    throw UnitError("a " + std::string(what) + " that fits in 64 bits");
  }
  return static_cast<int64_t>(total);
}

constexpr std::array<Unit, 6> kTimeUnits{{{"ps", 1},
                                          {"ns", 1000},
                                          {"us", 1000'000},
                                          {"ms", 1000'000'000},
                                          {"s", 1000'000'000'000},
                                          {"µs", 1000'000}}};
constexpr std::array<Unit, 10> kRateUnits{{{"bps", 1},
                                           {"Kbps", 1000},
                                           {"Mbps", 1000'000},
                                           {"Gbps", 1000'000'000},
                                           {"Tbps", 1000'000'000'000},
                                           {"bit/s", 1},
                                           {"Kbit/s", 1000},
                                           {"Mbit/s", 1000'000},
                                           {"Gbit/s", 1000'000'000},
                                           {"Tbit/s", 1000'000'000'000}}};
constexpr std::array<Unit, 9> kByteUnits{{{"B", 1},
                                          {"KB", 1000},
                                          {"MB", 1000'000},
                                          {"GB", 1000'000'000},
                                          {"TB", 1000'000'000'000},
                                          {"KiB", 1024},
                                          {"MiB", 1024 * 1024},
                                          {"GiB", 1024LL * 1024 * 1024},
                                          {"TiB", 1024LL * 1024 * 1024 * 1024}}};
constexpr std::array<Unit, 4> kLengthUnits{{{"mm", 1}, {"cm", 10}, {"m", 1000}, {"km", 1000'000}}};

// v in the largest of the given units that divides it exactly.
std::string format_exact(int64_t v, const Unit* units, size_t count) {
  std::string_view best = units[0].name;
  int64_t best_scale = 1;
  for (size_t k = 0; k < count; ++k) {
    if (units[k].scale >= best_scale && v != 0 && v % units[k].scale == 0) {
      best = units[k].name;
      best_scale = units[k].scale;
    }
  }
  return std::to_string(v / best_scale) + std::string(best);
}

}  // namespace

Time parse_time(std::string_view s) {
  return Time(parse_quantity(s, kTimeUnits, "duration", "\"600ns\", \"1us\", \"2ms\"", false));
}
int64_t parse_rate_bps(std::string_view s) {
  return parse_quantity(s, kRateUnits, "rate", "\"400Gbps\", \"100Mbps\"", false);
}
int64_t parse_bytes(std::string_view s) {
  return parse_quantity(s, kByteUnits, "size", "\"4KiB\", \"12MB\", \"1500B\"", true);
}
int64_t parse_length_mm(std::string_view s) {
  return parse_quantity(s, kLengthUnits, "length", "\"2m\", \"30cm\"", false);
}

std::string format_time(Time t) {
  return format_exact(t.ps, kTimeUnits.data(), 5);
}
std::string format_rate(int64_t bps) {
  return format_exact(bps, kRateUnits.data(), 5);
}
std::string format_bytes(int64_t b) {
  // Decimal units when they divide exactly (or nothing does), else binary ones.
  static constexpr std::array<Unit, 5> kBinary{{{"B", 1},
                                                {"KiB", 1024},
                                                {"MiB", 1024 * 1024},
                                                {"GiB", 1024LL * 1024 * 1024},
                                                {"TiB", 1024LL * 1024 * 1024 * 1024}}};
  if (b != 0 && b % 1000 != 0 && b % 1024 == 0) return format_exact(b, kBinary.data(), 5);
  return format_exact(b, kByteUnits.data(), 5);
}

}  // namespace sim
