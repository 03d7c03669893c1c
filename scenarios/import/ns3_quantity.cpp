// ns-3's quantity strings, as the HPCC simulator's topology files write them, turned into
// rdmasim's. ns-3 converts through a double and truncates ((uint64_t)r); here the digits are
// scaled exactly, and a value that is not a whole number of the base unit is refused.
#include "scenarios/import/ns3_quantity.hpp"

#include <iterator>
#include <string_view>
#include <utility>

#include "scenarios/loader/exact_decimal.hpp"
#include "scenarios/loader/input_error.hpp"

namespace scen::peer {
namespace {

struct UnitScale {
  std::string_view unit;
  int64_t multiplier;  // base units (bits per second, picoseconds) per unit = multiplier × 10^pow10
  int pow10;
};

// Every spelling ns-3's DataRate::DoParse accepts (src/network/utils/data-rate.cc), in bits
// per second. A bare number is bits per second there too.
constexpr UnitScale kRateUnits[] = {
    {"bps", 1, 0},           {"b/s", 1, 0},           {"Bps", 8, 0},
    {"B/s", 8, 0},           {"kbps", 1, 3},          {"kb/s", 1, 3},
    {"Kbps", 1, 3},          {"Kb/s", 1, 3},          {"kBps", 8, 3},
    {"kB/s", 8, 3},          {"KBps", 8, 3},          {"KB/s", 8, 3},
    {"Kib/s", 1024, 0},      {"KiB/s", 8192, 0},      {"Mbps", 1, 6},
    {"Mb/s", 1, 6},          {"MBps", 8, 6},          {"MB/s", 8, 6},
    {"Mib/s", 1 << 20, 0},   {"MiB/s", 8 << 20, 0},   {"Gbps", 1, 9},
    {"Gb/s", 1, 9},          {"GBps", 8, 9},          {"GB/s", 8, 9},
    {"Gib/s", 1LL << 30, 0}, {"GiB/s", 8LL << 30, 0}, {"", 1, 0},
};

// ns-3 Time string units (src/core/model/time.cc), in picoseconds; a bare number is seconds.
// min/h/d/y, which ns-3 also knows, are refused: no link has a latency of minutes.
constexpr UnitScale kTimeUnits[] = {
    {"s", 1, 12}, {"ms", 1, 9},  {"us", 1, 6}, {"ns", 1, 3},
    {"ps", 1, 0}, {"fs", 1, -3}, {"", 1, 12},
};

// Units whose text rdmasim reads as written; other spellings are rewritten.
bool is_rdmasim_rate_unit(std::string_view u) {
  return u == "Gbps" || u == "Mbps" || u == "Kbps" || u == "bps";
}
bool is_rdmasim_time_unit(std::string_view u) {
  return u == "ns" || u == "us" || u == "ms" || u == "s";
}

// Splits "100Gbps" into "100" and "Gbps" the way ns-3 does: the number is the leading run of
// digits and dots.
std::pair<std::string_view, std::string_view> split_quantity(std::string_view s) {
  const size_t n = s.find_first_not_of("0123456789.");
  if (n == std::string_view::npos) return {s, std::string_view()};
  return {s.substr(0, n), s.substr(n)};
}

const UnitScale* find_unit(std::string_view unit, const UnitScale* begin, const UnitScale* end) {
  for (const UnitScale* u = begin; u != end; ++u) {
    if (u->unit == unit) return u;
  }
  return nullptr;
}

std::string rate_text(int64_t bps) {
  if (bps % 1'000'000'000 == 0) return std::to_string(bps / 1'000'000'000) + "Gbps";
  if (bps % 1'000'000 == 0) return std::to_string(bps / 1'000'000) + "Mbps";
  if (bps % 1'000 == 0) return std::to_string(bps / 1'000) + "Kbps";
  return std::to_string(bps) + "bps";
}

}  // namespace

std::string ns3_rate_text(const std::string& word, const std::string& path) {
  const auto [number, unit] = split_quantity(word);
  const UnitScale* u = find_unit(unit, std::begin(kRateUnits), std::end(kRateUnits));
  if (u == nullptr) {
    throw InputError(path, word,
                     "a link rate in ns-3's syntax such as 100Gbps (units bps, Kbps, Mbps, Gbps "
                     "or ns-3's other spellings: b/s, kbps, Gb/s, GBps, Gib/s, ...)");
  }
  int64_t bps = 0;
  switch (peer::scale_decimal(number, u->multiplier, u->pow10, bps)) {
    case Exactness::ok:
      break;
    case Exactness::malformed:
      throw InputError(path, word, "a link rate: a number followed by a unit, such as 100Gbps");
    case Exactness::not_whole:
      throw InputError(path, word, "a link rate that is a whole number of bits per second");
    case Exactness::out_of_range:
      throw InputError(path, word, "a link rate below 9.2e18 bps");
  }
  if (bps <= 0) throw InputError(path, word, "a link rate > 0");
  if (is_rdmasim_rate_unit(unit)) return word;
  return rate_text(bps);
}

std::string ns3_delay_text(const std::string& word, const std::string& path) {
  const auto [number, unit] = split_quantity(word);
  const UnitScale* u = find_unit(unit, std::begin(kTimeUnits), std::end(kTimeUnits));
  if (u == nullptr) {
    throw InputError(path, word,
                     "a link delay in ns-3's syntax such as 1000ns (units s, ms, us, ns, ps, fs; "
                     "a bare number is seconds)");
  }
  int64_t ps = 0;
  switch (peer::scale_decimal(number, u->multiplier, u->pow10, ps)) {
    case Exactness::ok:
      break;
    case Exactness::malformed:
      throw InputError(path, word, "a link delay: a number followed by a unit, such as 1000ns");
    case Exactness::not_whole:
      throw InputError(path, word, "a link delay that is a whole number of picoseconds");
    case Exactness::out_of_range:
      throw InputError(path, word, "a link delay below 106 days");
  }
  if (is_rdmasim_time_unit(unit)) return word;
  return peer::time_text(ps);
}

}  // namespace scen::peer
