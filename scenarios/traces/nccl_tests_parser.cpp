// nccl-tests' report (all_reduce_perf, all_gather_perf, ...): "#" lines with the run's
// settings and the ranks ("#  Rank  0 Group  0 Pid ... on HOST device N [BUS] GPU"), a column
// header, one row per size with the out-of-place and in-place results side by side, and the
// closing "# Out of bounds values" / "# Avg bus bandwidth" lines. Versions differ: older ones
// print no redop/root columns for some collectives and an "error" column instead of "#wrong";
// in-place #wrong may be "N/A". The columns are read by name from the header.
#include <algorithm>
#include <array>
#include <cctype>
#include <limits>
#include <regex>

#include "scenarios/traces/trace.hpp"
#include "scenarios/traces/trace_lines.hpp"

namespace traces {
namespace {

using detail::Line;

constexpr std::array<const char*, 7> kCollectives = {
    "all_reduce", "all_gather", "reduce_scatter", "alltoall", "broadcast", "sendrecv", "reduce"};

// The collective: the file's "Collective test starting: all_gather_perf" line when present,
// else the first known name in the file name (longest names first: "reduce" is in others).
std::string collective_of(const std::vector<Line>& lines, const std::string& file) {
  auto find_in = [](const std::string& s) -> std::string {
    for (const char* c : kCollectives) {
      if (s.find(c) != std::string::npos) return c;
    }
    return "";
  };
  for (const Line& l : lines) {
    if (l.text.find("Collective test starting") != std::string::npos) {
      const std::string c = find_in(l.text);
      if (!c.empty()) return c;
    }
  }
  const std::string base = file.substr(file.find_last_of('/') + 1);
  return find_in(base);
}

}  // namespace

NcclTrace parse_nccl_tests(std::string_view text, const std::string& file) {
  const std::vector<Line> lines = detail::all_lines(text);
  NcclTrace t;
  t.file = file;
  t.collective = collective_of(lines, file);
  static const std::regex rank_re(
      R"(^#\s*Rank\s+(\d+)\s+Group\s+\d+\s+Pid\s+\d+\s+on\s+(\S+)\s+device\s+(\d+)\s+\[[^\]]*\]\s*(.*)$)");
  // Leading columns by name (from the header), then two groups of time/algbw/busbw/#wrong.
  std::vector<std::string> lead;
  int header_line = 0;
  bool closed = false;
  for (const Line& l : lines) {
    if (l.words.empty()) continue;
    const std::string path = detail::where(file, l.number);
    if (l.words[0][0] == '#') {
      std::smatch m;
      if (std::regex_match(l.text, m, rank_re)) {
        // Rank and device are digits; more than an int holds is a garbled line.
        int64_t rank = 0, device = 0;
        if (!detail::to_int(m[1].str(), rank) || !detail::to_int(m[3].str(), device) ||
            rank > std::numeric_limits<int>::max() || device > std::numeric_limits<int>::max()) {
          throw scen::InputError(path, detail::shown(l.text),
                                 "a rank line whose rank and device numbers are below 2^31");
        }
        t.ranks.push_back(
            {static_cast<int>(rank), m[2].str(), static_cast<int>(device), m[4].str()});
        continue;
      }
      std::vector<std::string> w = l.words;
      if (w[0] == "#") w.erase(w.begin());
      if (!w.empty() && w[0].rfind('#', 0) == 0) w[0].erase(0, 1);
      if (header_line == 0 && w.size() >= 6 && w[0] == "size" && w[1] == "count") {
        const auto time = std::find(w.begin(), w.end(), "time");
        if (time == w.end() || std::count(w.begin(), w.end(), "time") != 2) {
          throw scen::InputError(path, detail::shown(l.text),
                                 "an nccl-tests header with out-of-place and in-place time, "
                                 "algbw, busbw columns");
        }
        lead.assign(w.begin(), time);
        header_line = l.number;
      }
      if (l.text.find("Out of bounds values") != std::string::npos) closed = true;
      if (l.text.find("Avg bus bandwidth") != std::string::npos) {
        const auto colon = l.text.find(':');
        double v = 0;
        if (colon != std::string::npos) {
          const auto words = detail::split_words(std::string_view(l.text).substr(colon + 1));
          if (!words.empty() && detail::to_double(words[0], v)) t.avg_busbw_gb_s = v;
        }
      }
      continue;
    }
    // NCCL_DEBUG=INFO interleaves "host:pid:tid [dev] NCCL INFO ..." lines with the report.
    if (!std::isdigit(static_cast<unsigned char>(l.words[0][0])) &&
        l.text.find("NCCL ") != std::string::npos) {
      continue;
    }
    if (header_line == 0) {
      throw scen::InputError(path, detail::shown(l.text),
                             "nccl-tests' column header (\"#  size  count  type ...\") before "
                             "the first row");
    }
    if (closed) {
      throw scen::InputError(path, detail::shown(l.text), "no rows after the closing lines");
    }
    const size_t want = lead.size() + 8;
    if (l.words.size() != want) {
      throw scen::InputError(
          path, detail::shown(l.text),
          std::to_string(want) + " fields as in the header on line " + std::to_string(header_line));
    }
    NcclRow r;
    r.line = l.number;
    for (size_t c = 0; c < lead.size(); ++c) {
      const std::string& w = l.words[c];
      if (lead[c] == "size" || lead[c] == "count") {
        int64_t n = 0;
        if (!detail::to_int(w, n) || n < 0) throw scen::InputError(path, w, "a byte count");
        (lead[c] == "size" ? r.bytes : r.count) = n;
      } else if (lead[c] == "type") {
        r.type = w;
      } else if (lead[c] == "redop") {
        r.redop = w;
      } else if (lead[c] == "root") {
        if (!detail::to_int(w, r.root)) throw scen::InputError(path, w, "a root rank or -1");
      }
    }
    auto side = [&](size_t at, NcclResult& res) {
      const std::array<double*, 3> v = {&res.time_us, &res.algbw_gb_s, &res.busbw_gb_s};
      for (size_t k = 0; k < 3; ++k) {
        if (!detail::to_double(l.words[at + k], *v[k]) || *v[k] < 0) {
          throw scen::InputError(path, l.words[at + k], "a non-negative number");
        }
      }
      // The time is what calibration fits: 0 is no measurement (bandwidths may print 0.00
      // at a few bytes).
      if (!(res.time_us > 0)) throw scen::InputError(path, l.words[at], "a positive time (us)");
      const std::string& wrong = l.words[at + 3];
      double e = 0;
      if (wrong == "N/A") {
        res.wrong = -1;
      } else if (detail::to_int(wrong, res.wrong) && res.wrong >= 0) {
      } else if (detail::to_double(wrong, e) && e >= 0) {  // older "error" column: 0e+00
        res.wrong = e == 0 ? 0 : 1;
      } else {
        throw scen::InputError(path, wrong, "#wrong: a count, an error value or N/A");
      }
    };
    side(lead.size(), r.out_of_place);
    side(lead.size() + 4, r.in_place);
    if (!t.rows.empty() && r.bytes <= t.rows.back().bytes) {
      throw scen::InputError(path, l.words[0], "sizes increasing down the table");
    }
    t.rows.push_back(std::move(r));
  }
  const int last = lines.empty() ? 0 : lines.back().number;
  if (header_line == 0) {
    throw scen::InputError(detail::where(file, last), "no table",
                           "nccl-tests output: a \"#  size  count ...\" header and rows");
  }
  if (!closed) {
    throw scen::InputError(detail::where(file, last), "end of file",
                           "nccl-tests' closing \"# Out of bounds values\" line (truncated?)");
  }
  if (t.rows.empty()) {
    throw scen::InputError(detail::where(file, header_line), "an empty table",
                           "at least one row of measurements");
  }
  if (t.collective.empty()) {
    throw scen::InputError(file, "",
                           "a collective named in the file (\"Collective test "
                           "starting: all_gather_perf\") or in its name "
                           "(all_reduce, all_gather, reduce_scatter, alltoall, "
                           "broadcast, sendrecv)");
  }
  return t;
}

}  // namespace traces
