// An event's 64-bit argument carrying two 32-bit numbers (a group and an index, a generation and
// a queue pair, a chunk and a tree): packed and unpacked in one way everywhere.
#pragma once

#include <cstdint>

namespace sim {

constexpr uint64_t pack_arg(uint32_t high, uint32_t low) {
  return (static_cast<uint64_t>(high) << 32) | low;
}
constexpr uint32_t arg_high(uint64_t arg) {
  return static_cast<uint32_t>(arg >> 32);
}
constexpr uint32_t arg_low(uint64_t arg) {
  return static_cast<uint32_t>(arg);
}

}  // namespace sim
