#include "tools/calibration/calibration.hpp"

#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <limits>
#include <set>
#include <sstream>

#include "scenarios/loader/input_error.hpp"
#include "scenarios/outputs/csv_cell.hpp"
#include "sim/units.hpp"
#include "tools/calibration/collective_experiments.hpp"

extern char** environ;

namespace calib {
namespace {

int64_t min_of(const Experiment& e, int64_t min_bytes) {
  return e.min_bytes >= 0 ? e.min_bytes : min_bytes;
}

std::vector<bool> range_mask(const Experiment& e, int64_t min_bytes) {
  std::vector<bool> m;
  for (int64_t b : e.bytes) m.push_back(b >= min_of(e, min_bytes));
  return m;
}

// The fitted parameters, in the order of calibrate's FitParameter list; the small-message
// parameters are fitted afterwards.
enum FitIndex {
  kHostLatency,
  kHopLatency,
  kEfficiency,
  kMessageOverhead,
  kLaunchScale,
  kStepScale,
  kNvlinkRate,
  kNvlsRate,
  kNvlsChunkCost,
  kNvlinkLatency,
  kFitParameters
};

FabricParams from_values(const std::vector<double>& v) {
  FabricParams p;
  p.host_latency_ns = v[kHostLatency];
  p.hop_latency_ns = v[kHopLatency];
  p.efficiency = v[kEfficiency];
  p.message_overhead_ns = v[kMessageOverhead];
  p.launch_scale = v[kLaunchScale];
  p.step_scale = v[kStepScale];
  p.nvlink_rate_gbps = v[kNvlinkRate];
  p.nvls_rate_gbps = v[kNvlsRate];
  p.nvls_chunk_cost_ns = v[kNvlsChunkCost];
  p.nvlink_latency_ns = v[kNvlinkLatency];
  return p;
}

// nccl-tests' bus bandwidth factor (PERFORMANCE.md; docs/references.md "Collectives").
double busbw_factor(const std::string& op, int n) {
  if (op == "all_reduce") return 2.0 * (n - 1) / n;
  if (op == "all_gather" || op == "reduce_scatter" || op == "all_to_all") {
    return static_cast<double>(n - 1) / n;
  }
  return 1.0;
}

std::string describe(const ClusterSpec& c, const Experiment& e) {
  auto choice = [&](const std::string& cli, const char* key, const char* dflt) {
    if (!cli.empty()) return cli;
    if (c.collective.is_object() && c.collective.contains(key) && c.collective[key].is_string()) {
      return c.collective[key].get<std::string>();
    }
    return std::string(dflt);
  };
  return e.op + ", " + std::to_string(e.ranks.size()) + " ranks on " + std::to_string(e.servers) +
         " server" + (e.servers == 1 ? "" : "s") + ", " + choice(e.algorithm, "algorithm", "auto") +
         "/" + choice(e.protocol, "protocol", "auto") + ", " +
         (e.in_place ? "in-place" : "out-of-place") + " time";
}

// Size ranges of the collective summary: the latency floor, the climb, the bandwidth regime
// simulated, and beyond the simulated bound.
std::vector<CurveSummary::Range> size_ranges(const Experiment& e) {
  const int64_t top = std::max<int64_t>(e.max_simulated_bytes, int64_t{16} << 20);
  const std::string t = sim::format_bytes(top);
  return {
      {0, int64_t{64} << 10, "size < 64KiB", 0, 0},
      {int64_t{64} << 10, int64_t{16} << 20, "64KiB <= size < 16MiB", 0, 0},
      {int64_t{16} << 20, top + 1, "16MiB <= size <= " + t + ", simulated", 0, 0},
      {top + 1, std::numeric_limits<int64_t>::max(), "size > " + t + ", steady-state line", 0, 0}};
}

void score(const ClusterSpec& c, std::vector<Experiment>& experiments, CalibrationResult& res) {
  res.points.clear();
  res.curves.clear();
  for (Experiment& e : experiments) {
    const std::vector<double> sim = simulate(c, res.params, e);
    ++res.simulations;
    CurveSummary cs;
    cs.file = e.file;
    cs.latency = e.latency;
    cs.switches = e.switches;
    cs.collective = e.collective;
    if (e.collective) {
      cs.what = describe(c, e);
      cs.ranges = size_ranges(e);
    }
    int in = 0;
    for (size_t i = 0; i < e.bytes.size(); ++i) {
      PointReport p;
      p.file = e.file;
      p.latency = e.latency;
      p.switches = e.switches;
      p.bytes = e.bytes[i];
      p.measured = e.measured[i];
      p.simulated = sim[i];
      p.error_pct = 100.0 * (sim[i] - e.measured[i]) / e.measured[i];
      p.in_range = e.bytes[i] >= min_of(e, res.min_bytes);
      const double rel = std::fabs(p.error_pct) / 100;
      p.weight = rel <= kHuberDelta ? 1.0 : kHuberDelta / rel;
      if (e.collective) {
        p.collective = true;
        p.extrapolated = e.bytes[i] > e.max_simulated_bytes;
        if (const auto it = e.ran.find(e.bytes[i]); it != e.ran.end()) p.ran = it->second;
        p.busbw_factor = busbw_factor(e.op, static_cast<int>(e.ranks.size()));
        for (auto& range : cs.ranges) {
          if (e.bytes[i] >= range.lo && e.bytes[i] < range.hi) {
            range.mape += std::fabs(p.error_pct);
            ++range.points;
          }
        }
      }
      cs.mape_all += std::fabs(p.error_pct);
      if (p.in_range) {
        cs.mape_in_range += std::fabs(p.error_pct);
        ++in;
      }
      res.points.push_back(p);
    }
    for (auto& range : cs.ranges) range.mape /= std::max(1, range.points);
    cs.mape_all /= static_cast<double>(e.bytes.size());
    cs.mape_in_range = in > 0 ? cs.mape_in_range / in : 0;
    res.curves.push_back(cs);
  }
}

// A start for NCCL's cost scales: the collective times are affine in them, so two simulations
// of the smallest sizes of the first collective trace (the latency floor) give the common
// scale of launch and step costs that matches their median. Gauss-Newton starting at 1 can
// stall when every small size is far off and Huber's loss weighs them all down.
double start_scale(const ClusterSpec& c, const FabricParams& prior, const Experiment& e,
                   int& sims) {
  std::vector<bool> use(e.bytes.size(), false);
  std::vector<double> measured;
  for (size_t i = 0; i < e.bytes.size() && measured.size() < 3; ++i) {
    use[i] = true;
    measured.push_back(e.measured[i]);
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  FabricParams more = prior;
  more.launch_scale += 1;
  more.step_scale += 1;
  const double t0 = median(simulate_collective(c, prior, e, use));
  const double t1 = median(simulate_collective(c, more, e, use));
  sims += 2;
  const double per_unit = t1 - t0;  // us of collective time per unit of both scales
  if (!(per_unit > 0)) return 1.0;
  return std::clamp(1.0 + (median(measured) - t0) / per_unit, kMinCostScale, kMaxCostScale);
}

// Whether an experiment's simulation ran NVLS or NVLS-tree at any size (its `ran`), and
// whether its largest size ran over the NVLink links alone (a ring or a tree: not NVLS, whose
// rate is the NVSwitch's reduction).
bool ran_nvls(const Experiment& e) {
  for (const auto& [bytes, what] : e.ran) {
    if (what.rfind("nvls", 0) == 0) return true;
  }
  return false;
}
bool largest_over_links(const Experiment& e) {
  return !e.ran.empty() && e.ran.rbegin()->second.rfind("nvls", 0) != 0;
}

}  // namespace

FabricParams prior_params(const ClusterSpec& c) {
  FabricParams p;
  p.host_latency_ns = 1000;
  p.hop_latency_ns = c.infiniband ? 130 : 500;
  p.efficiency = 0.95;
  p.message_overhead_ns = 50;
  if (c.has_gpus()) {
    // The engine gives NVLink endpoints the NICs' parameters: a send-rate cap below the line
    // would cap NVLink too, so GPU clusters keep the NICs at line rate.
    p.efficiency = 1.0;
    // NVLink endpoints also take the NICs' tx/rx latency, which GPU-to-GPU copies through the
    // NVSwitch do not pay: 0 unless a perftest latency trace fits it.
    p.host_latency_ns = 0;
    p.nvlink_rate_gbps = static_cast<double>(c.gpu.nvlink_rate_bps) / 1e9;
    p.nvls_rate_gbps = static_cast<double>(c.gpu.nvls_reduction_rate_bps) / 1e9;
    p.nvls_chunk_cost_ns = static_cast<double>(c.gpu.nvls_chunk_cost_ps) / 1000;
    p.nvlink_latency_ns = static_cast<double>(c.gpu.nvlink_latency_ps) / 1000;
  }
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
  // Collective traces fix NCCL's cost scales (the latency floor: the call's base latency and
  // its steps; separated by algorithms or rank counts whose step counts differ) and, when one
  // runs inside a single server, the NVLink rate (the large sizes), and where NVLS ran, the
  // NVSwitch's reduction rate.
  bool any_lat = false, any_bw = false, any_coll = false, any_one_server = false,
       any_across = false, any_nvls = false;
  std::set<int> switch_counts;
  for (Experiment& e : experiments) {
    // At the prior: fills e.switches, and what each collective size runs.
    simulate(c, prior, e, std::vector<bool>(e.bytes.size(), e.collective));
    if (e.collective) {
      any_coll = true;
      if (e.servers > 1) any_across = true;
      if (e.servers == 1 && largest_over_links(e)) any_one_server = true;
      any_nvls = any_nvls || ran_nvls(e);
    } else if (e.latency) {
      any_lat = true;
      switch_counts.insert(e.switches);
    } else {
      any_bw = true;
    }
    const int64_t lo = min_of(e, min_bytes);
    if (std::none_of(e.bytes.begin(), e.bytes.end(), [&](int64_t b) { return b >= lo; })) {
      throw scen::InputError(e.file, "no size >= " + std::to_string(lo) + " B",
                             "sizes in the fitted range (--min-size, --nccl-min-size)");
    }
  }
  double scale0 = 1;
  int sims = 0;
  for (const Experiment& e : experiments) {
    if (e.collective) {
      scale0 = start_scale(c, prior, e, sims);
      break;
    }
  }
  std::vector<FitParameter> fp(kFitParameters);
  fp[kHostLatency] = {"host_latency_ns", prior.host_latency_ns, 0, 100'000, 100, any_lat};
  fp[kHopLatency] = {"hop_latency_ns",         prior.hop_latency_ns, 0, 10'000, 50,
                     switch_counts.size() >= 2};
  fp[kEfficiency] = {"efficiency", prior.efficiency, 0.1, 1.0, 0.02, !c.has_gpus()};
  fp[kMessageOverhead] = {"message_overhead_ns", prior.message_overhead_ns, 0, 100'000, 50, any_bw};
  fp[kLaunchScale] = {"launch_scale", scale0, kMinCostScale, kMaxCostScale, 0.05, any_coll};
  fp[kStepScale] = {"step_scale", scale0, kMinCostScale, kMaxCostScale, 0.05, any_coll};
  // The NVLink rate achieved, at most the cluster's line rate (a fit never raises the wire).
  fp[kNvlinkRate] = {"nvlink_rate_Gbps",          prior.nvlink_rate_gbps,
                     prior.nvlink_rate_gbps / 20, prior.nvlink_rate_gbps,
                     prior.nvlink_rate_gbps / 50, any_one_server};
  // The NVSwitch's reduction rate is no published figure (the preset's is fitted too): up to
  // twice the preset's, where the NVLink wire caps it anyway.
  fp[kNvlsRate] = {"nvls_rate_Gbps",         prior.nvls_rate_gbps,      prior.nvls_rate_gbps / 20,
                   2 * prior.nvls_rate_gbps, prior.nvls_rate_gbps / 50, any_nvls};
  // The cost per chunk shows where NCCL's chunks shrink (calls below 1 GiB).
  fp[kNvlsChunkCost] = {"nvls_chunk_cost_ns", prior.nvls_chunk_cost_ns, 0, 1000, 5, any_nvls};
  fp[kNvlinkLatency] = {"nvlink_latency_ns", prior.nvlink_latency_ns, 0, 100'000, 50, false};
  res.gpus = c.has_gpus();
  if (any_coll) {
    char buf[400];
    std::snprintf(buf, sizeof buf,
                  "NVLink latency kept at the preset's %.0f ns: every collective step pays it "
                  "(data and acknowledgement) exactly as it pays NCCL's step cost, so "
                  "collective times determine only their sum, which the step scale carries",
                  prior.nvlink_latency_ns);
    res.notes.push_back(buf);
    if (!any_one_server) {
      res.notes.push_back(
          "no single-server collective trace whose largest sizes run over the NVLink links (a "
          "ring or a tree; NVLS is bound by the NVSwitch's reduction): NVLink rate kept at the "
          "preset");
    }
    if (!any_nvls && prior.nvls_rate_gbps > 0) {
      res.notes.push_back(
          "NVLS ran at no traced size: the NVSwitch's reduction rate kept at the preset");
    }
    if (any_across && !any_lat) {
      res.notes.push_back(
          "collective traces across servers without a perftest latency trace: the NIC/host "
          "latency adds to every network step as NCCL's step cost does; kept at its prior, the "
          "step scale absorbs it");
    }
  }
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
    // A weak prior on the cost scales (NCCL's own figures): a 1 % error at one size outweighs
    // a factor 2. It decides only where the traces cannot tell the launch from the steps (one
    // algorithm at one rank count: every call has as many steps), moving both alike.
    if (any_coll) {
      r.push_back(kScalePrior * std::log(v[kLaunchScale]));
      r.push_back(kScalePrior * std::log(v[kStepScale]));
    }
    return r;
  };
  const FitOutcome fit = robust_fit(fp, fn, kHuberDelta);
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
  res.gpus = c.has_gpus();
  score(c, experiments, res);
  return res;
}

namespace {

void format_point(std::ostringstream& o, const PointReport& p) {
  char buf[256];
  if (p.collective) {
    // nccl-tests' busbw: bytes / time (GB/s = 1e3 B/us) x the collective's factor.
    auto busbw = [&](double us) {
      return static_cast<double>(p.bytes) / us / 1e3 * p.busbw_factor;
    };
    std::snprintf(buf, sizeof buf, "%12lld %12.2f %12.2f %+8.2f%% %9.2f %9.2f %6.2f  %-18s%s%s\n",
                  static_cast<long long>(p.bytes), p.measured, p.simulated, p.error_pct,
                  busbw(p.measured), busbw(p.simulated), p.weight, p.ran.c_str(),
                  p.extrapolated ? "  (steady-state line)" : "",
                  p.in_range ? "" : "  (below --nccl-min-size)");
    o << buf;
    return;
  }
  const double scale = p.latency ? 1.0 : 1.0 / 1048576.0;  // perftest's MB/sec = 2^20 B/s
  std::snprintf(buf, sizeof buf, "%10lld %14.2f %14.2f %+8.2f%%%s\n",
                static_cast<long long>(p.bytes), p.measured * scale, p.simulated * scale,
                p.error_pct, p.in_range ? "" : "  (below --min-size)");
  o << buf;
}

void format_header(std::ostringstream& o, const PointReport& p, const CalibrationResult& r) {
  char buf[400];
  if (p.collective) {
    std::string what;
    for (const CurveSummary& c : r.curves) {
      if (c.file == p.file) what = c.what;
    }
    std::snprintf(buf, sizeof buf, "\n%s  (%s)\n", p.file.c_str(), what.c_str());
    o << buf;
    std::snprintf(buf, sizeof buf, "%12s %12s %12s %9s %9s %9s %6s  %s\n", "bytes", "measured us",
                  "simulated us", "error", "busbw GB/s", "sim busbw", "weight", "simulated as");
    o << buf;
    return;
  }
  std::snprintf(buf, sizeof buf, "\n%s  (%s, %d switch%s on the path)\n", p.file.c_str(),
                p.latency ? "latency, t_typical" : "bandwidth, BW average", p.switches,
                p.switches == 1 ? "" : "es");
  o << buf;
  std::snprintf(buf, sizeof buf, "%10s %14s %14s %9s\n", "bytes",
                p.latency ? "measured us" : "measured MB/s",
                p.latency ? "simulated us" : "simulated MB/s", "error");
  o << buf;
}

}  // namespace

std::string format_report(const CalibrationResult& r) {
  std::ostringstream o;
  char buf[400];
  std::snprintf(buf, sizeof buf,
                "parameters: host latency %.1f ns (one way), per-switch latency %.1f ns, send "
                "efficiency %.4f, per-message overhead %.1f ns\n",
                r.params.host_latency_ns, r.params.hop_latency_ns, r.params.efficiency,
                r.params.message_overhead_ns);
  o << buf;
  if (r.gpus) {
    if (r.params.nccl_costs) {
      std::snprintf(buf, sizeof buf,
                    "collectives: NCCL's costs x %.3f per call (launch), x %.3f per step",
                    r.params.launch_scale, r.params.step_scale);
      o << buf;
      if (r.params.step_overhead_ns > 0) {
        std::snprintf(buf, sizeof buf, " + %.1f ns", r.params.step_overhead_ns);
        o << buf;
      }
    } else {
      std::snprintf(buf, sizeof buf, "collectives: per-step overhead %.1f ns (no NCCL costs)",
                    r.params.step_overhead_ns);
      o << buf;
    }
    std::snprintf(buf, sizeof buf,
                  ", NVLink rate %.1f Gb/s per GPU each way (%.1f GB/s), NVLink latency %.1f ns "
                  "per GPU-NVSwitch link",
                  r.params.nvlink_rate_gbps, r.params.nvlink_rate_gbps / 8,
                  r.params.nvlink_latency_ns);
    o << buf;
    if (r.params.nvls_rate_gbps > 0) {
      std::snprintf(buf, sizeof buf, ", NVLS reduction %.1f Gb/s (%.1f GB/s) + %.1f ns a chunk",
                    r.params.nvls_rate_gbps, r.params.nvls_rate_gbps / 8,
                    std::max(0.0, r.params.nvls_chunk_cost_ns));
      o << buf;
    }
    o << "\n";
  }
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
      format_header(o, p, r);
    }
    format_point(o, p);
  }
  o << "\n";
  for (const CurveSummary& c : r.curves) {
    const std::string name = std::filesystem::path(c.file).filename().string();
    if (c.collective) {
      std::snprintf(buf, sizeof buf, "MAPE %-48s %6.2f%% (all sizes)\n", name.c_str(), c.mape_all);
      o << buf;
      for (const auto& range : c.ranges) {
        if (range.points == 0) continue;
        std::snprintf(buf, sizeof buf, "     %-48s %6.2f%% (%d sizes, %s)\n", "", range.mape,
                      range.points, range.label.c_str());
        o << buf;
      }
      continue;
    }
    std::snprintf(buf, sizeof buf, "MAPE %-48s %6.2f%% (sizes >= %lld B), %6.2f%% (all sizes)\n",
                  name.c_str(), c.mape_in_range, static_cast<long long>(r.min_bytes), c.mape_all);
    o << buf;
  }
  return o.str();
}

std::string report_csv(const CalibrationResult& r) {
  std::ostringstream o;
  o << "file,kind,switches,bytes,measured,simulated,error_pct,in_range,weight\n";
  char buf[320];
  for (const PointReport& p : r.points) {
    if (p.collective) {
      std::snprintf(buf, sizeof buf, "%s,collective_us,0,%lld,%.6g,%.6g,%.3f,%d,%.4f\n",
                    scen::csv_cell(std::filesystem::path(p.file).filename().string()).c_str(),
                    static_cast<long long>(p.bytes), p.measured, p.simulated, p.error_pct,
                    p.in_range ? 1 : 0, p.weight);
      o << buf;
      continue;
    }
    std::snprintf(buf, sizeof buf, "%s,%s,%d,%lld,%.6g,%.6g,%.3f,%d,%.4f\n",
                  scen::csv_cell(std::filesystem::path(p.file).filename().string()).c_str(),
                  p.latency ? "latency_us" : "bandwidth_MiBps", p.switches,
                  static_cast<long long>(p.bytes), p.latency ? p.measured : p.measured / 1048576.0,
                  p.latency ? p.simulated : p.simulated / 1048576.0, p.error_pct,
                  p.in_range ? 1 : 0, p.weight);
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
