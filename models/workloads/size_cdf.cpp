// Empirical flow-size distributions: parsing, mean and sampling.
//
// Convention (ns-3 HPCC simulator, traffic_gen/custom_rand.py): the CDF is piecewise linear
// between its points, so a draw u picks the segment with cdf[i-1] <= u < cdf[i] and
// interpolates the size linearly. If the first point has cdf > 0, that probability is a point
// mass at the first size.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <string_view>

#include "models/workloads/generators.hpp"

namespace models {
namespace {

[[noreturn]] void fail(const std::string& source, int line, std::string_view got,
                       const std::string& expected) {
  throw std::runtime_error(source + ":" + std::to_string(line) + ": got '" + std::string(got) +
                           "'; expected " + expected);
}

bool parse_number(std::string_view s, double& out) {
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, out);
  return ec == std::errc() && ptr == end && std::isfinite(out);
}

std::vector<std::string_view> split_words(std::string_view s) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    size_t j = i;
    while (j < s.size() && s[j] != ' ' && s[j] != '\t') ++j;
    if (j > i) words.push_back(s.substr(i, j - i));
    i = j;
  }
  return words;
}

}  // namespace

// E[size] = p0·x0 + Σ (x[i-1] + x[i])/2 · (p[i] - p[i-1]): the mean of a uniform variable on
// each segment, weighted by the segment's probability (custom_rand.py getAvg() computes the
// same sum). Sampling rounds to whole bytes, which moves the mean by well under a byte.
double SizeCdf::mean_bytes() const {
  if (points.empty()) return 0.0;
  double mean = points.front().first * points.front().second;
  for (size_t i = 1; i < points.size(); ++i) {
    const auto& [x0, p0] = points[i - 1];
    const auto& [x1, p1] = points[i];
    mean += (x0 + x1) / 2.0 * (p1 - p0);
  }
  return mean;
}

// One uniform draw, inverted through the piecewise-linear CDF. Flat segments (equal cdf) have
// no probability and are never chosen; vertical ones (equal size) are point masses. The size is
// rounded to the nearest byte and at least 1 (a flow carries data).
int64_t SizeCdf::sample(sim::Rng& rng) const {
  if (points.empty()) throw std::logic_error("SizeCdf::sample: empty distribution");
  const double u = rng.uniform();  // [0, 1)
  const auto it = std::upper_bound(points.begin(), points.end(), u,
                                   [](double v, const auto& pt) { return v < pt.second; });
  double size = 0.0;
  if (it == points.begin()) {
    size = points.front().first;
  } else if (it == points.end()) {  // only if the last cdf were below 1; parse forbids it
    size = points.back().first;
  } else {
    const auto& [x0, p0] = *(it - 1);
    const auto& [x1, p1] = *it;
    size = x0 + (x1 - x0) * (u - p0) / (p1 - p0);
  }
  return std::max<int64_t>(1, std::llround(size));
}

SizeCdf parse_size_cdf(const std::string& text, const std::string& source_name) {
  SizeCdf cdf;
  std::vector<int> line_of;  // line number of each point, for messages
  std::string_view rest(text);
  int line_number = 0;
  while (!rest.empty()) {
    ++line_number;
    const size_t nl = rest.find('\n');
    std::string_view line = rest.substr(0, nl);
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
    if (const size_t hash = line.find('#'); hash != std::string_view::npos) {
      line = line.substr(0, hash);
    }
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) {
      line.remove_suffix(1);
    }
    const auto words = split_words(line);
    if (words.empty()) continue;
    if (words.size() != 2) fail(source_name, line_number, line, "two numbers: size_bytes cdf");
    double size = 0, p = 0;
    if (!parse_number(words[0], size) || size < 0) {
      fail(source_name, line_number, words[0], "a size in bytes, a number >= 0");
    }
    if (!parse_number(words[1], p) || p < 0) {
      fail(source_name, line_number, words[1], "a cumulative probability, a number >= 0");
    }
    if (!cdf.points.empty()) {
      if (size < cdf.points.back().first) {
        fail(source_name, line_number, words[0],
             "a size >= the previous line's (sizes must not decrease)");
      }
      if (p < cdf.points.back().second) {
        fail(source_name, line_number, words[1],
             "a cdf >= the previous line's (probabilities must not decrease)");
      }
    }
    cdf.points.emplace_back(size, p);
    line_of.push_back(line_number);
  }
  if (cdf.points.empty()) {
    throw std::runtime_error(source_name + ": got no points; expected lines of 'size_bytes cdf'");
  }
  // The scale is read from the last point: 1 means fractions, 100 means percent (the HPCC
  // files are written in percent). The tolerance only absorbs printing round-off.
  const double last = cdf.points.back().second;
  double scale = 0;
  if (std::abs(last - 1.0) <= 1e-9) {
    scale = 1.0;
  } else if (std::abs(last - 100.0) <= 1e-7) {
    scale = 100.0;
  } else {
    fail(source_name, line_of.back(), std::to_string(last),
         "the last cdf to be 1 (fractions) or 100 (percent)");
  }
  for (auto& pt : cdf.points) pt.second /= scale;
  cdf.points.back().second = 1.0;
  return cdf;
}

}  // namespace models
