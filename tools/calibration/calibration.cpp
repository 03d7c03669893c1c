#include "tools/calibration/calibration.hpp"

#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <set>
#include <sstream>

#include "scenarios/loader/input_error.hpp"

extern char** environ;

namespace calib {
namespace {

std::vector<bool> range_mask(const Experiment& e, int64_t min_bytes) {
  std::vector<bool> m;
  for (int64_t b : e.bytes) m.push_back(b >= min_bytes);
  return m;
}

FabricParams from_values(const std::vector<double>& v) {
  return {v[0], v[1], v[2], v[3], {}};  // small messages: fitted afterwards
}

void score(const ClusterSpec& c, std::vector<Experiment>& experiments, CalibrationResult& res) {
  res.points.clear();
  res.curves.clear();
  for (Experiment& e : experiments) {
    const std::vector<double> sim = simulate(c, res.params, e);
    ++res.simulations;
    CurveSummary cs{e.file, e.latency, e.switches, 0, 0};
    int in = 0;
    for (size_t i = 0; i < e.bytes.size(); ++i) {
      PointReport p{e.file,
                    e.latency,
                    e.switches,
                    e.bytes[i],
                    e.measured[i],
                    sim[i],
                    100.0 * (sim[i] - e.measured[i]) / e.measured[i],
                    e.bytes[i] >= res.min_bytes};
      cs.mape_all += std::fabs(p.error_pct);
      if (p.in_range) {
        cs.mape_in_range += std::fabs(p.error_pct);
        ++in;
      }
      res.points.push_back(p);
    }
    cs.mape_all /= static_cast<double>(e.bytes.size());
    cs.mape_in_range = in > 0 ? cs.mape_in_range / in : 0;
    res.curves.push_back(cs);
  }
}

}  // namespace

FabricParams prior_params(const ClusterSpec& c) {
  FabricParams p;
  p.host_latency_ns = 1000;
  p.hop_latency_ns = c.infiniband ? 130 : 500;
  p.efficiency = 0.95;
  p.message_overhead_ns = 50;
  return p;
}

CalibrationResult calibrate(const ClusterSpec& c, std::vector<Experiment>& experiments,
                            int64_t min_bytes) {
  CalibrationResult res;
  res.min_bytes = min_bytes;
  const FabricParams prior = prior_params(c);
  // Which parameters the traces determine: latency traces fix the host latency; at two or more
  // switch counts they separate the per-switch latency from it; bandwidth traces fix the send
  // engine's efficiency and per-message overhead (latency traces alone fix the efficiency).
  bool any_lat = false, any_bw = false;
  std::set<int> switch_counts;
  for (Experiment& e : experiments) {
    simulate(c, prior, e, std::vector<bool>(e.bytes.size(), false));  // fills e.switches
    if (e.latency) {
      any_lat = true;
      switch_counts.insert(e.switches);
    } else {
      any_bw = true;
    }
    if (std::none_of(e.bytes.begin(), e.bytes.end(), [&](int64_t b) { return b >= min_bytes; })) {
      throw scen::InputError(e.file, "no size >= " + std::to_string(min_bytes) + " B",
                             "sizes in the fitted range (--min-size)");
    }
  }
  std::vector<FitParameter> fp = {
      {"host_latency_ns", prior.host_latency_ns, 0, 100'000, 100, any_lat},
      {"hop_latency_ns", prior.hop_latency_ns, 0, 10'000, 50, switch_counts.size() >= 2},
      {"efficiency", prior.efficiency, 0.1, 1.0, 0.02, true},
      {"message_overhead_ns", prior.message_overhead_ns, 0, 100'000, 50, any_bw}};
  if (!any_lat) res.notes.push_back("no latency trace: host latency kept at its prior");
  if (switch_counts.size() < 2) {
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  "latency traces at one switch count only: per-switch latency kept at the "
                  "prior %.0f ns (REFERENCES.md), the host latency absorbs the path",
                  prior.hop_latency_ns);
    res.notes.push_back(buf);
  }
  if (!any_bw) res.notes.push_back("no bandwidth trace: per-message overhead kept at its prior");
  int sims = 0;
  const ResidualFn fn = [&](const std::vector<double>& v) {
    std::vector<double> r;
    const FabricParams p = from_values(v);
    for (Experiment& e : experiments) {
      const std::vector<bool> m = range_mask(e, min_bytes);
      const std::vector<double> sim = simulate(c, p, e, m);
      ++sims;
      size_t k = 0;
      for (size_t i = 0; i < e.bytes.size(); ++i) {
        if (m[i]) r.push_back(sim[k++] / e.measured[i] - 1);
      }
    }
    return r;
  };
  const FitOutcome fit = robust_fit(fp, fn);
  std::vector<double> v;
  for (const auto& p : fit.params) {
    v.push_back(p.value);
    if (p.free) res.fitted.push_back(p.name);
  }
  res.params = from_values(v);
  // Sizes below the fitted range, with the parameters above held (small_messages.hpp).
  fit_small_messages(c, experiments, min_bytes, res.params, res.fitted, res.notes, sims);
  res.simulations = sims;
  score(c, experiments, res);
  return res;
}

CalibrationResult predict(const ClusterSpec& c, std::vector<Experiment>& experiments,
                          const FabricParams& p, int64_t min_bytes) {
  CalibrationResult res;
  res.params = p;
  res.min_bytes = min_bytes;
  score(c, experiments, res);
  return res;
}

std::string format_report(const CalibrationResult& r) {
  std::ostringstream o;
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "parameters: host latency %.1f ns (one way), per-switch latency %.1f ns, send "
                "efficiency %.4f, per-message overhead %.1f ns\n",
                r.params.host_latency_ns, r.params.hop_latency_ns, r.params.efficiency,
                r.params.message_overhead_ns);
  o << buf;
  if (const std::string small = describe_small_messages(r.params.small); !small.empty()) {
    o << small << "\n";
  }
  if (!r.fitted.empty()) {
    o << "fitted:";
    for (const auto& f : r.fitted) o << " " << f;
    o << " (" << r.simulations << " simulations)\n";
  }
  for (const auto& n : r.notes) o << "note: " << n << "\n";
  std::string file;
  for (const PointReport& p : r.points) {
    if (p.file != file) {
      file = p.file;
      std::snprintf(buf, sizeof buf, "\n%s  (%s, %d switch%s on the path)\n", p.file.c_str(),
                    p.latency ? "latency, t_typical" : "bandwidth, BW average", p.switches,
                    p.switches == 1 ? "" : "es");
      o << buf;
      std::snprintf(buf, sizeof buf, "%10s %14s %14s %9s\n", "bytes",
                    p.latency ? "measured us" : "measured MB/s",
                    p.latency ? "simulated us" : "simulated MB/s", "error");
      o << buf;
    }
    const double scale = p.latency ? 1.0 : 1.0 / 1048576.0;  // perftest's MB/sec = 2^20 B/s
    std::snprintf(buf, sizeof buf, "%10lld %14.2f %14.2f %+8.2f%%%s\n",
                  static_cast<long long>(p.bytes), p.measured * scale, p.simulated * scale,
                  p.error_pct, p.in_range ? "" : "  (below --min-size)");
    o << buf;
  }
  o << "\n";
  for (const CurveSummary& c : r.curves) {
    std::snprintf(buf, sizeof buf, "MAPE %-48s %6.2f%% (sizes >= %lld B), %6.2f%% (all sizes)\n",
                  std::filesystem::path(c.file).filename().string().c_str(), c.mape_in_range,
                  static_cast<long long>(r.min_bytes), c.mape_all);
    o << buf;
  }
  return o.str();
}

std::string report_csv(const CalibrationResult& r) {
  std::ostringstream o;
  o << "file,kind,switches,bytes,measured,simulated,error_pct,in_range\n";
  char buf[320];
  for (const PointReport& p : r.points) {
    std::snprintf(buf, sizeof buf, "%s,%s,%d,%lld,%.6g,%.6g,%.3f,%d\n",
                  std::filesystem::path(p.file).filename().string().c_str(),
                  p.latency ? "latency_us" : "bandwidth_MBps", p.switches,
                  static_cast<long long>(p.bytes), p.latency ? p.measured : p.measured / 1048576.0,
                  p.latency ? p.simulated : p.simulated / 1048576.0, p.error_pct,
                  p.in_range ? 1 : 0);
    o << buf;
  }
  return o.str();
}

bool plot_report(const std::string& csv_path, const std::string& png_path) {
  const char* env_script = std::getenv("RDMASIM_CALIBRATION_PLOT");
  const std::string script = env_script != nullptr && *env_script != '\0'
                                 ? env_script
                                 : std::string(RDMASIM_CALIBRATION_PLOT_DEFAULT);
  const char* env_python = std::getenv("RDMASIM_PYTHON");
  const std::string python = env_python != nullptr && *env_python != '\0'  ? env_python
                             : std::filesystem::exists("/usr/bin/python3") ? "/usr/bin/python3"
                                                                           : "python3";
  std::vector<std::string> args = {python, script, csv_path, "-o", png_path};
  std::vector<char*> cargs;
  for (auto& a : args) cargs.push_back(a.data());
  cargs.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawnp(&pid, python.c_str(), nullptr, nullptr, cargs.data(), environ) != 0) {
    std::cerr << "rdmasim: cannot run " << python << " for the plot (python3-matplotlib)\n";
    return false;
  }
  int status = 0;
  return waitpid(pid, &status, 0) >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace calib
