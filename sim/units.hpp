// Quantities with units, as written in scenario files: "400Gbps", "600ns", "4KiB", "12MB",
// "2m". KB/MB/GB are powers of 10, KiB/MiB/GiB powers of 2 (IEC 80000-13). Parsing is exact
// integer arithmetic on the decimal digits; a value that is not a whole number of the base
// unit (picoseconds, bits per second, bytes) is refused rather than rounded.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "sim/time.hpp"

namespace sim {

// Thrown on a malformed quantity; what() says what was expected.
struct UnitError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

Time parse_time(std::string_view s);          // "1us", "600ns", "2ms", "1.5s", "250ps"
int64_t parse_rate_bps(std::string_view s);   // "400Gbps", "100Mbps", "25Gbit/s", "1bps"
int64_t parse_bytes(std::string_view s);      // "4KiB", "12MB", "1500B", "1500"
int64_t parse_length_mm(std::string_view s);  // cable length: "2m", "30cm", "100mm", "1km"

std::string format_time(Time t);       // shortest exact form: "1us", "600ns", "1234ps"
std::string format_rate(int64_t bps);  // "400Gbps", "1500Mbps", "7bps"
std::string format_bytes(int64_t b);   // "4KiB", "12MB", "1500B"

}  // namespace sim
