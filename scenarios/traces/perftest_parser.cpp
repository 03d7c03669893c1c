// perftest's report: a dashed box with the test's title and "Key : value" settings, then one
// table (its header names the columns; the values follow, one row per message size), closed
// by a line of dashes. Versions differ in the latency columns they print (t_avg, t_stdev and
// the percentiles came later), in --report_gbits (Gb/sec instead of MB/sec), and in warning
// lines printed before the table; the columns are therefore read by name, not position.
#include <algorithm>
#include <cctype>
#include <regex>

#include "scenarios/traces/trace.hpp"
#include "scenarios/traces/trace_lines.hpp"

namespace traces {
namespace {

using detail::Line;

// perftest's MB/sec is 2^20 bytes per second (its default report unit, perftest_parameters.h
// "MB/sec" with 0x100000), Gb/sec is 10^9 bits per second.
constexpr double kMiB = 1048576.0;

enum class Col {
  Bytes,
  Iterations,
  BwPeak,
  BwAverage,
  MsgRate,
  TMin,
  TMax,
  TTypical,
  TAvg,
  TStdev,
  P99,
  P999
};

struct Column {
  Col col;
  double scale = 1;  // to bytes/s (bandwidth) or microseconds (latency)
};

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// The table header, e.g. "#bytes #iterations BW peak[MB/sec] BW average[MB/sec] MsgRate[Mpps]":
// names carry their unit in brackets; "BW peak", "BW average" and the percentiles contain one
// space; columns are separated by one space or more (versions differ).
std::vector<Column> read_header(const Line& l, const std::string& file) {
  static const std::regex item(
      R"(((?:BW|[0-9.]+%) [A-Za-z_]+|[#A-Za-z0-9_.%]+)\[([^\]]*)\]|#[A-Za-z]+)");
  std::vector<Column> cols;
  for (auto it = std::sregex_iterator(l.text.begin(), l.text.end(), item);
       it != std::sregex_iterator(); ++it) {
    const std::string whole = (*it)[0].str();
    const std::string name = lower((*it)[1].matched ? (*it)[1].str() : whole);
    const std::string unit = lower((*it)[2].str());
    double bw_scale = 0;
    if (unit == "mb/sec") bw_scale = kMiB;
    if (unit == "gb/sec") bw_scale = 1e9 / 8;
    const double t_scale = unit == "usec" ? 1.0 : unit == "nsec" ? 1e-3 : 0;
    auto need = [&](double s) {
      if (s == 0) {
        throw scen::InputError(detail::where(file, l.number), whole,
                               "a column unit perftest prints (MB/sec, Gb/sec, Mpps, usec)");
      }
      return s;
    };
    if (name == "#bytes") {
      cols.push_back({Col::Bytes});
    } else if (name == "#iterations") {
      cols.push_back({Col::Iterations});
    } else if (name == "bw peak") {
      cols.push_back({Col::BwPeak, need(bw_scale)});
    } else if (name == "bw average") {
      cols.push_back({Col::BwAverage, need(bw_scale)});
    } else if (name == "msgrate") {
      cols.push_back({Col::MsgRate});
    } else if (name == "t_min") {
      cols.push_back({Col::TMin, need(t_scale)});
    } else if (name == "t_max") {
      cols.push_back({Col::TMax, need(t_scale)});
    } else if (name == "t_typical") {
      cols.push_back({Col::TTypical, need(t_scale)});
    } else if (name == "t_avg") {
      cols.push_back({Col::TAvg, need(t_scale)});
    } else if (name == "t_stdev") {
      cols.push_back({Col::TStdev, need(t_scale)});
    } else if (name == "99% percentile") {
      cols.push_back({Col::P99, need(t_scale)});
    } else if (name == "99.9% percentile") {
      cols.push_back({Col::P999, need(t_scale)});
    } else {
      throw scen::InputError(detail::where(file, l.number), whole,
                             "a perftest column (#bytes, #iterations, BW peak, BW average, "
                             "MsgRate, t_min, t_max, t_typical, t_avg, t_stdev, percentiles)");
    }
  }
  auto has = [&](Col c) {
    return std::any_of(cols.begin(), cols.end(), [c](const Column& x) { return x.col == c; });
  };
  const bool bw = has(Col::BwAverage) && has(Col::BwPeak);
  const bool lat = has(Col::TTypical) && has(Col::TMin) && has(Col::TMax);
  if (!has(Col::Bytes) || !has(Col::Iterations) || bw == lat) {
    throw scen::InputError(detail::where(file, l.number), detail::shown(l.text),
                           "a perftest table header: #bytes, #iterations and either BW peak and "
                           "BW average (bandwidth) or t_min, t_max, t_typical (latency)");
  }
  return cols;
}

// The "Key : value" settings of a line, left to right: a key starts with a letter and runs over
// letters, spaces, '_' and '-' (its trailing spaces are not part of it); then optional white
// space, ':', optional white space and the value, the run of non-space characters that
// follows; each search resumes after the previous value. What a regex search for
// ([A-Za-z][A-Za-z _-]*?)\s*:\s*(\S+) finds, in linear time (std::regex took most of the
// parse's time and backtracks on long lines).
std::vector<std::pair<std::string, std::string>> setting_pairs(const std::string& s) {
  auto space = [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
  };
  auto letter = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); };
  auto key_char = [&](char c) { return letter(c) || c == ' ' || c == '_' || c == '-'; };
  std::vector<std::pair<std::string, std::string>> out;
  const size_t n = s.size();
  size_t i = 0;
  while (i < n) {
    if (!letter(s[i])) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < n && key_char(s[j])) ++j;
    size_t key_end = j;
    while (key_end > i && s[key_end - 1] == ' ') --key_end;
    size_t k = j;
    while (k < n && space(s[k])) ++k;
    if (k < n && s[k] == ':') {
      size_t v = k + 1;
      while (v < n && space(s[v])) ++v;
      size_t v_end = v;
      while (v_end < n && !space(s[v_end])) ++v_end;
      if (v_end > v) {
        out.emplace_back(s.substr(i, key_end - i), s.substr(v, v_end - v));
        i = v_end;
        continue;
      }
    }
    ++i;  // no setting starts here: the next character may start one
  }
  return out;
}

void read_info(const std::vector<Line>& lines, size_t header, PerftestTrace& t) {
  for (size_t i = 0; i < header; ++i) {
    const std::string& s = lines[i].text;
    if (s.find(" Test") != std::string::npos && s.find(':') == std::string::npos &&
        t.info.title.empty()) {
      t.info.title = s.substr(s.find_first_not_of(' '));
      continue;
    }
    for (const auto& [key_text, value] : setting_pairs(s)) {
      const std::string key = lower(key_text);
      if (key == "device") t.info.device = value;
      if (key == "link type") t.info.link_type = value;
      if (key == "transport type") t.info.transport = value;
      if (key == "connection type") t.info.connection = value;
      int64_t n = 0;
      const std::string digits = value.substr(0, value.find('['));
      if (key == "mtu" && detail::to_int(digits, n)) t.info.mtu = n;
      if (key == "number of qps" && detail::to_int(digits, n)) t.info.qps = n;
    }
  }
  const std::string title = lower(t.info.title);
  if (title.find("write") != std::string::npos) t.info.verb = "write";
  if (title.find("read") != std::string::npos) t.info.verb = "read";
  if (title.find("send") != std::string::npos) t.info.verb = "send";
}

}  // namespace

PerftestTrace parse_perftest(std::string_view text, const std::string& file) {
  const std::vector<Line> lines = detail::all_lines(text);
  PerftestTrace t;
  t.file = file;
  size_t header = lines.size();
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!lines[i].words.empty() && lines[i].words[0] == "#bytes") {
      header = i;
      break;
    }
  }
  if (header == lines.size()) {
    throw scen::InputError(detail::where(file, static_cast<int>(lines.size())), "no table",
                           "perftest output: a table whose header starts with #bytes");
  }
  read_info(lines, header, t);
  const std::vector<Column> cols = read_header(lines[header], file);
  t.info.latency =
      std::any_of(cols.begin(), cols.end(), [](const Column& c) { return c.col == Col::TTypical; });
  bool closed = false;
  for (size_t i = header + 1; i < lines.size(); ++i) {
    const Line& l = lines[i];
    if (detail::is_dashes(l.text)) {
      closed = true;
      break;
    }
    if (l.words.empty()) continue;
    // perftest prints warnings inside its report on some systems; they start with a letter.
    if (std::isalpha(static_cast<unsigned char>(l.words[0][0])) &&
        (l.text.find("arning") != std::string::npos ||
         l.text.find("Conflicting CPU frequency") != std::string::npos)) {
      continue;
    }
    const std::string path = detail::where(file, l.number);
    if (l.words.size() != cols.size()) {
      throw scen::InputError(path, detail::shown(l.text),
                             std::to_string(cols.size()) + " numbers, one per column of the " +
                                 "header on line " + std::to_string(lines[header].number));
    }
    BwRow b;
    LatRow r;
    b.line = r.line = l.number;
    for (size_t c = 0; c < cols.size(); ++c) {
      const std::string& w = l.words[c];
      double v = 0;
      int64_t n = 0;
      const bool integral = cols[c].col == Col::Bytes || cols[c].col == Col::Iterations;
      if (integral ? !(detail::to_int(w, n) && n > 0) : !(detail::to_double(w, v) && v >= 0)) {
        throw scen::InputError(path, w, integral ? "a positive integer" : "a non-negative number");
      }
      const double x = v * cols[c].scale;
      switch (cols[c].col) {
        case Col::Bytes:
          b.bytes = r.bytes = n;
          break;
        case Col::Iterations:
          b.iterations = r.iterations = n;
          break;
        case Col::BwPeak:
          b.peak_bytes_per_s = x;
          break;
        case Col::BwAverage:
          b.average_bytes_per_s = x;
          break;
        case Col::MsgRate:
          b.msg_rate_mpps = v;
          break;
        case Col::TMin:
          r.t_min_us = x;
          break;
        case Col::TMax:
          r.t_max_us = x;
          break;
        case Col::TTypical:
          r.t_typical_us = x;
          break;
        case Col::TAvg:
          r.t_avg_us = x;
          break;
        case Col::TStdev:
          r.t_stdev_us = x;
          break;
        case Col::P99:
          r.p99_us = x;
          break;
        case Col::P999:
          r.p999_us = x;
          break;
      }
    }
    const int64_t prev = t.info.latency ? (t.lat.empty() ? 0 : t.lat.back().bytes)
                                        : (t.bw.empty() ? 0 : t.bw.back().bytes);
    if (b.bytes <= prev) {
      throw scen::InputError(
          path, l.words[0],
          "message sizes increasing down the table (previous " + std::to_string(prev) + ")");
    }
    // What calibration fits must be positive: a time or a bandwidth of 0 is no measurement
    // (and would make the relative errors infinite).
    if (t.info.latency && !(r.t_typical_us > 0)) {
      throw scen::InputError(path, detail::shown(l.text), "a positive t_typical");
    }
    if (!t.info.latency && !(b.average_bytes_per_s > 0)) {
      throw scen::InputError(path, detail::shown(l.text), "a positive average bandwidth");
    }
    if (t.info.latency) {
      if (r.t_min_us > r.t_typical_us || r.t_typical_us > r.t_max_us) {
        throw scen::InputError(path, detail::shown(l.text), "t_min <= t_typical <= t_max");
      }
      t.lat.push_back(r);
    } else {
      t.bw.push_back(b);
    }
  }
  const int last = lines.empty() ? 0 : lines.back().number;
  if (!closed) {
    throw scen::InputError(detail::where(file, last), "end of file",
                           "perftest's closing line of dashes after the table (truncated?)");
  }
  if (t.bw.empty() && t.lat.empty()) {
    throw scen::InputError(detail::where(file, lines[header].number + 1), "an empty table",
                           "at least one row of measurements");
  }
  return t;
}

}  // namespace traces
