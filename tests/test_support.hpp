// Helpers shared by tests: locating third-party data in ../shared (RDMASIM_SHARED).
#pragma once

#include <cstdlib>
#include <optional>
#include <string>

namespace test_support {

// The shared data folder from RDMASIM_SHARED, or nullopt (then the caller skips: it must
// print a line starting with "SKIPPED:", which ctest counts as a skipped test).
inline std::optional<std::string> shared_dir() {
  const char* v = std::getenv("RDMASIM_SHARED");
  if (v == nullptr || *v == '\0') return std::nullopt;
  return std::string(v);
}

}  // namespace test_support

// Use at the top of a TEST_CASE that needs ../shared data.
#define RDMASIM_REQUIRE_SHARED(var)                                                      \
  const auto var##_opt = test_support::shared_dir();                                     \
  if (!var##_opt) {                                                                      \
    std::printf("SKIPPED: RDMASIM_SHARED is not set; this test needs ../shared data\n"); \
    return;                                                                              \
  }                                                                                      \
  const std::string var = *var##_opt
