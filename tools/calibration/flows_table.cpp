#include "tools/calibration/flows_table.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "scenarios/loader/input_error.hpp"

namespace calib {
namespace {

constexpr const char* kHeader =
    "flow_id,tag,src,dst,bytes,priority,qps,start_ns,finish_ns,fct_ns,ideal_fct_ns,slowdown,"
    "retransmitted_packets,timeouts,completed";

// One record of RFC 4180 CSV (as rdmasim writes it, scenarios/outputs/csv_cell.hpp): a field
// in double quotes may hold commas and doubled quotes. (A quoted line break, which no flows.csv
// field holds, is not joined across lines.)
std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> f;
  std::string cur;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cur += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cur += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      f.push_back(cur);
      cur.clear();
    } else if (c != '\r') {
      cur += c;
    }
  }
  f.push_back(cur);
  return f;
}

// "1234.567" nanoseconds (three decimals, as rdmasim writes them) -> picoseconds, exactly.
bool ns_to_ps(const std::string& s, int64_t& ps) {
  const auto dot = s.find('.');
  const std::string whole = s.substr(0, dot);
  std::string frac = dot == std::string::npos ? "" : s.substr(dot + 1);
  if (whole.empty() || frac.size() > 3) return false;
  frac.append(3 - frac.size(), '0');
  int64_t w = 0, f = 0;
  auto ok = [](const std::string& t, int64_t& v) {
    const auto r = std::from_chars(t.data(), t.data() + t.size(), v);
    return r.ec == std::errc() && r.ptr == t.data() + t.size() && v >= 0;
  };
  if (!ok(whole, w) || !ok(frac, f)) return false;
  ps = w * 1000 + f;
  return true;
}

int64_t nearest_rank(std::vector<int64_t> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(v.size())));
  rank = std::clamp<size_t>(rank, 1, v.size());
  return v[rank - 1];
}

}  // namespace

std::vector<FlowRow> read_flows_csv(const std::string& path_in) {
  std::string path = path_in;
  if (std::filesystem::is_directory(path)) path += "/flows.csv";
  std::ifstream in(path);
  if (!in) throw scen::InputError(path, "", "a readable flows.csv (or a folder holding one)");
  std::string line;
  int n = 0;
  const bool has_header = static_cast<bool>(std::getline(in, line));
  ++n;
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (!has_header || line != kHeader) {
    throw scen::InputError(path + ":1", line,
                           std::string("rdmasim's flows.csv header: ") + kHeader);
  }
  std::vector<FlowRow> rows;
  std::map<int64_t, int> line_of_id;  // each flow once
  while (std::getline(in, line)) {
    ++n;
    if (line.empty() || line == "\r") continue;
    const std::string where = path + ":" + std::to_string(n);
    const auto f = split_csv(line);
    if (f.size() != 15) throw scen::InputError(where, line, "15 comma-separated fields");
    FlowRow r;
    int64_t v = 0;
    auto integer = [&](const std::string& s, int64_t& out, const char* what) {
      const auto res = std::from_chars(s.data(), s.data() + s.size(), out);
      if (res.ec != std::errc() || res.ptr != s.data() + s.size() || out < 0) {
        throw scen::InputError(where, s, what);
      }
    };
    integer(f[0], r.flow_id, "a flow id");
    const auto [seen, fresh] = line_of_id.emplace(r.flow_id, n);
    if (!fresh) {
      throw scen::InputError(
          where, f[0], "each flow id once (also on line " + std::to_string(seen->second) + ")");
    }
    r.src = f[2];
    r.dst = f[3];
    integer(f[4], r.bytes, "a byte count");
    if (!ns_to_ps(f[7], r.start_ps)) throw scen::InputError(where, f[7], "start_ns in ns");
    integer(f[14], v, "completed: 0 or 1");
    r.completed = v == 1;
    if (r.completed && !(ns_to_ps(f[9], r.fct_ps) && r.fct_ps > 0)) {
      throw scen::InputError(where, f[9], "a positive fct_ns in ns for a completed flow");
    }
    rows.push_back(std::move(r));
  }
  return rows;
}

FctComparison compare_fct(const std::vector<FlowRow>& sim, const std::vector<FlowRow>& real,
                          const std::string& sim_name, const std::string& real_name) {
  FctComparison c;
  c.sim_flows = sim.size();
  c.real_flows = real.size();
  std::vector<int64_t> a, b;
  for (const auto& r : sim) {
    if (r.completed) a.push_back(r.fct_ps);
  }
  for (const auto& r : real) {
    if (r.completed) b.push_back(r.fct_ps);
  }
  c.sim_completed = a.size();
  c.real_completed = b.size();
  // Errors against nothing would read 0 %: refused.
  if (a.empty() || b.empty()) {
    throw scen::InputError(a.empty() ? sim_name : real_name, "no completed flow",
                           "a run with completed flows to compare");
  }
  double sum_err = 0;
  size_t both = 0;
  for (const auto& s : sim) {
    const auto it = std::find_if(real.begin(), real.end(),
                                 [&](const FlowRow& r) { return r.flow_id == s.flow_id; });
    if (it == real.end()) continue;
    if (it->src != s.src || it->dst != s.dst || it->bytes != s.bytes) {
      throw scen::InputError(real_name,
                             "flow " + std::to_string(s.flow_id) + " " + it->src + "->" + it->dst +
                                 " " + std::to_string(it->bytes) + " B",
                             "the same flow as in " + sim_name + " (" + s.src + "->" + s.dst + " " +
                                 std::to_string(s.bytes) + " B): runs of one scenario");
    }
    ++c.matched;
    if (s.completed && it->completed && it->fct_ps > 0) {
      sum_err +=
          std::fabs(static_cast<double>(s.fct_ps - it->fct_ps)) / static_cast<double>(it->fct_ps);
      ++both;
    }
  }
  if (c.matched == 0) {
    throw scen::InputError(real_name, "no flow id in common with " + sim_name,
                           "runs of one scenario (the same flow ids)");
  }
  c.per_flow_mape_pct = both > 0 ? 100.0 * sum_err / static_cast<double>(both) : 0;
  auto add = [&](const std::string& name, double sv, double rv) {
    c.lines.push_back({name, sv / 1e6, rv / 1e6, rv > 0 ? 100.0 * (sv - rv) / rv : 0});
  };
  for (const auto& [name, p] : std::vector<std::pair<std::string, double>>{
           {"p50", 50}, {"p90", 90}, {"p99", 99}, {"p99.9", 99.9}, {"max", 100}}) {
    add(name, static_cast<double>(nearest_rank(a, p)), static_cast<double>(nearest_rank(b, p)));
  }
  auto mean = [](const std::vector<int64_t>& v) {
    double s = 0;
    for (auto x : v) s += static_cast<double>(x);
    return v.empty() ? 0.0 : s / static_cast<double>(v.size());
  };
  add("mean", mean(a), mean(b));
  return c;
}

std::string format_comparison(const FctComparison& c) {
  std::ostringstream o;
  char buf[160];
  std::snprintf(buf, sizeof buf,
                "flows: simulated %zu (%zu completed), real %zu (%zu completed), %zu matched\n",
                c.sim_flows, c.sim_completed, c.real_flows, c.real_completed, c.matched);
  o << buf;
  std::snprintf(buf, sizeof buf, "%-8s %14s %14s %9s\n", "FCT", "simulated us", "real us", "error");
  o << buf;
  for (const auto& l : c.lines) {
    std::snprintf(buf, sizeof buf, "%-8s %14.3f %14.3f %+8.1f%%\n", l.statistic.c_str(), l.sim_us,
                  l.real_us, l.error_pct);
    o << buf;
  }
  std::snprintf(buf, sizeof buf, "per-flow FCT error (mean absolute): %.1f%%\n",
                c.per_flow_mape_pct);
  o << buf;
  return o.str();
}

}  // namespace calib
