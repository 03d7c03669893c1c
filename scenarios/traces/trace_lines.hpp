// Line and number reading shared by the trace parsers: every problem is an InputError whose
// path is "file:line".
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/loader/input_error.hpp"

namespace traces::detail {

struct Line {
  int number = 0;    // 1-based
  std::string text;  // without line ending and trailing blanks
  std::vector<std::string> words;
};

inline std::vector<std::string> split_words(std::string_view s) {
  std::vector<std::string> w;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    size_t j = i;
    while (j < s.size() && s[j] != ' ' && s[j] != '\t') ++j;
    if (j > i) w.emplace_back(s.substr(i, j - i));
    i = j;
  }
  return w;
}

// Every line, blank ones included (their numbers matter in messages).
inline std::vector<Line> all_lines(std::string_view text) {
  std::vector<Line> out;
  int n = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view l = text.substr(pos, end - pos);
    while (!l.empty() && (l.back() == '\r' || l.back() == ' ' || l.back() == '\t')) {
      l.remove_suffix(1);
    }
    out.push_back({++n, std::string(l), split_words(l)});
    pos = end + 1;
  }
  return out;
}

inline std::string where(const std::string& file, int line) {
  return file + ":" + std::to_string(line);
}

inline std::string shown(const std::string& text) {
  return text.size() > 120 ? "\"" + text.substr(0, 117) + "...\"" : "\"" + text + "\"";
}

// A finite decimal number (perftest and nccl-tests print plain decimals; exponents are
// accepted; "inf" and "nan", which from_chars reads, are not measurements).
inline bool to_double(const std::string& w, double& out) {
  const char* b = w.data();
  const char* e = b + w.size();
  const auto r = std::from_chars(b, e, out);
  return r.ec == std::errc() && r.ptr == e && std::isfinite(out);
}

inline bool to_int(const std::string& w, int64_t& out) {
  const char* b = w.data();
  const char* e = b + w.size();
  const auto r = std::from_chars(b, e, out);
  return r.ec == std::errc() && r.ptr == e;
}

inline bool is_dashes(const std::string& text) {
  return text.size() >= 10 && text.find_first_not_of(" -") == std::string::npos;
}

}  // namespace traces::detail
