// Refused input: names the JSON path, the offending value and what was expected. The CLI
// turns it into exit code 2 before any simulation starts.
#pragma once

#include <cstdio>
#include <stdexcept>
#include <string>

namespace scen {

// `text` fit for a terminal: control bytes and bytes that are not UTF-8 written as \xNN (a
// binary file given as a scenario must not print raw bytes), valid UTF-8 kept ("µs").
inline std::string printable(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  auto hex = [&out](unsigned char c) {
    char b[5];
    std::snprintf(b, sizeof b, "\\x%02x", c);
    out += b;
  };
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      if ((c < 0x20 && c != '\t') || c == 0x7f) {
        hex(c);
      } else {
        out += static_cast<char>(c);
      }
      ++i;
      continue;
    }
    // A UTF-8 sequence: its lead byte says how many continuation bytes (10xxxxxx) follow.
    const size_t n = (c >= 0xc2 && c <= 0xdf)   ? 1
                     : (c >= 0xe0 && c <= 0xef) ? 2
                     : (c >= 0xf0 && c <= 0xf4) ? 3
                                                : 0;
    bool ok = n > 0;
    for (size_t k = 1; ok && k <= n; ++k) {
      ok = i + k < text.size() && (static_cast<unsigned char>(text[i + k]) & 0xc0) == 0x80;
    }
    if (ok) {
      out.append(text, i, n + 1);
      i += n + 1;
    } else {
      hex(c);
      ++i;
    }
  }
  return out;
}

struct InputError : std::runtime_error {
  std::string path;      // "workload.flows[3].size", or "<file>" for file-level problems
  std::string value;     // the offending value as written (may be empty)
  std::string expected;  // what would have been accepted
  InputError(std::string p, std::string v, std::string e)
      : std::runtime_error(printable(p) + ": got " +
                           (v.empty() ? std::string("nothing") : printable(v)) + "; expected " +
                           printable(e)),
        path(std::move(p)),
        value(std::move(v)),
        expected(std::move(e)) {}
};

}  // namespace scen
