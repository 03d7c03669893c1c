// What the fuzz targets share: the input as text, the input conventions' small parsers and
// the one outcome of refused input.
#pragma once

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>

#include "scenarios/loader/input_error.hpp"

namespace fuzz {

// The memory limit the targets load scenarios with (--max-memory): well under libFuzzer's
// default -rss_limit_mb of 2 GiB, with ASan's overhead on top.
inline constexpr int64_t kMaxMemoryBytes = int64_t{256} << 20;

// Shipped files the targets resolve relative paths against (includes, topology files, CDFs,
// a sweep's base), so the shipped seeds load as they do from the command line.
inline const std::string kScenarioDir = RDMASIM_SOURCE_DIR "/scenarios";

inline std::string text_of(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// Takes the first line (without its '\n') off `text`.
inline std::string take_line(std::string& text) {
  const size_t end = text.find('\n');
  std::string line = text.substr(0, end);
  text.erase(0, end == std::string::npos ? text.size() : end + 1);
  return line;
}

// `text` split at its first line that is exactly `separator`: what comes before, and after.
// Without that line, everything is the first part.
inline std::pair<std::string, std::string> split_at_line(const std::string& text,
                                                         std::string_view separator) {
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    if (std::string_view(text).substr(start, end - start) == separator) {
      return {text.substr(0, start), end < text.size() ? text.substr(end + 1) : std::string()};
    }
    start = end + 1;
  }
  return {text, std::string()};
}

// A decimal integer that is the whole of `word`, else `fallback`.
inline int64_t integer_or(std::string_view word, int64_t fallback) {
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), v);
  return ec == std::errc() && end == word.data() + word.size() ? v : fallback;
}

// Runs `f`. A refusal (scen::InputError, what the command line reports with exit code 2) is
// the expected outcome of bad input; every other exception escapes, and libFuzzer reports
// it as a crash, as it does a signal or a sanitizer report. With RDMASIM_FUZZ_VERBOSE set,
// refusals are printed to stderr (to see what a seed gets to).
template <class F>
void refusals_expected(F&& f) {
  static const bool verbose = std::getenv("RDMASIM_FUZZ_VERBOSE") != nullptr;
  try {
    f();
  } catch (const scen::InputError& e) {
    if (verbose) std::fprintf(stderr, "refused: %s\n", e.what());
  }
}

}  // namespace fuzz
