#include "scenarios/import/peer_text.hpp"

#include <charconv>

#include "scenarios/loader/input_error.hpp"

namespace scen::peer {

std::vector<TextLine> content_lines(std::string_view text, bool hash_comments) {
  std::vector<TextLine> lines;
  int number = 0;
  while (!text.empty()) {
    ++number;
    const size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) {
      line.remove_suffix(1);
    }
    TextLine out;
    out.number = number;
    out.text = std::string(line);
    size_t i = 0;
    while (i < line.size()) {
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
      size_t j = i;
      while (j < line.size() && line[j] != ' ' && line[j] != '\t') ++j;
      if (j > i) out.words.emplace_back(line.substr(i, j - i));
      i = j;
    }
    if (out.words.empty()) continue;
    if (hash_comments && out.words.front().front() == '#') continue;
    lines.push_back(std::move(out));
  }
  return lines;
}

std::string where(const std::string& file, int line) {
  return file + ":" + std::to_string(line);
}

int64_t parse_integer(const std::string& word, int64_t min, int64_t max, const std::string& path,
                      const std::string& expected) {
  int64_t value = 0;
  const char* end = word.data() + word.size();
  // from_chars accepts a leading '-', which no count or id in these formats may have.
  const bool digits_only = !word.empty() && word.front() != '-';
  const auto [ptr, ec] = std::from_chars(word.data(), end, value);
  if (!digits_only || ec != std::errc() || ptr != end || value < min || value > max) {
    throw InputError(path, word, expected);
  }
  return value;
}

}  // namespace scen::peer
