// Refused input: names the JSON path, the offending value and what was expected. The CLI
// turns it into exit code 2 before any simulation starts.
#pragma once

#include <cstdio>
#include <stdexcept>
#include <string>

namespace scen {

// The length of the UTF-8 sequence at text[i] whose lead byte is >= 0x80 (its lead byte says
// how many continuation bytes 10xxxxxx follow), or 0 when the bytes there are not UTF-8.
inline size_t utf8_sequence_length(const std::string& text, size_t i) {
  const auto c = static_cast<unsigned char>(text[i]);
  const size_t n = (c >= 0xc2 && c <= 0xdf)   ? 1
                   : (c >= 0xe0 && c <= 0xef) ? 2
                   : (c >= 0xf0 && c <= 0xf4) ? 3
                                              : 0;
  if (n == 0 || i + n >= text.size()) return 0;
  for (size_t k = 1; k <= n; ++k) {
    if ((static_cast<unsigned char>(text[i + k]) & 0xc0) != 0x80) return 0;
  }
  // RFC 3629's table: no overlong forms (E0 80..9F, F0 80..8F), no UTF-16 surrogates
  // (ED A0..BF), nothing beyond U+10FFFF (F4 90..BF).
  const auto second = static_cast<unsigned char>(text[i + 1]);
  if ((c == 0xe0 && second < 0xa0) || (c == 0xed && second > 0x9f) ||
      (c == 0xf0 && second < 0x90) || (c == 0xf4 && second > 0x8f)) {
    return 0;
  }
  return n + 1;
}

// Whether `text` is valid UTF-8 (JSON strings must be: the serializer refuses anything else).
inline bool is_utf8(const std::string& text) {
  for (size_t i = 0; i < text.size();) {
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      ++i;
      continue;
    }
    const size_t len = utf8_sequence_length(text, i);
    if (len == 0) return false;
    i += len;
  }
  return true;
}

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
    if (const size_t len = utf8_sequence_length(text, i); len > 0) {
      out.append(text, i, len);
      i += len;
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

// `text` when it is UTF-8 text, else an InputError at `where` (text from the command line that
// becomes a JSON string or key: the serializer refuses anything else, so every message printing
// it would fail).
inline const std::string& require_utf8(const std::string& text, const std::string& where,
                                       const std::string& expected = "UTF-8 text") {
  if (!is_utf8(text)) throw InputError(where, text, expected);
  return text;
}

}  // namespace scen
