// Line-oriented reading of the peers' plain-text files (ns-3 HPCC topology and flow lists,
// htsim connection matrices), with the "<file>:<line>" paths that InputError reports.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace scen::peer {

struct TextLine {
  int number = 0;                  // 1-based line number in the file
  std::string text;                // without the line ending and trailing blanks
  std::vector<std::string> words;  // split on spaces and tabs
};

// The non-blank lines of `text`. Tolerates CRLF line endings and trailing blanks. With
// `hash_comments`, a line whose first word starts with '#' is skipped (htsim's rule).
std::vector<TextLine> content_lines(std::string_view text, bool hash_comments);

// "file:line", the path InputError reports for a problem on that line.
std::string where(const std::string& file, int line);

// `word` as a decimal integer (digits only, no sign) in [min, max]; otherwise throws
// InputError(path, word, expected).
int64_t parse_integer(const std::string& word, int64_t min, int64_t max, const std::string& path,
                      const std::string& expected);

}  // namespace scen::peer
