// `rdmasim calibrate` and `rdmasim validate`: the traced experiments simulated with a set of
// fabric parameters, fitted (calibrate) or given (validate), and the table of measured against
// simulated values per size with the errors and the MAPE.
#pragma once

#include <string>
#include <vector>

#include "tools/calibration/cluster.hpp"
#include "tools/calibration/robust_fit.hpp"
#include "tools/calibration/trace_experiments.hpp"

namespace calib {

struct PointReport {
  std::string file;
  bool latency = true;
  int switches = 0;
  int64_t bytes = 0;
  double measured = 0, simulated = 0;  // us (latency) or bytes per second (bandwidth)
  double error_pct = 0;                // (simulated - measured) / measured x 100
  bool in_range = false;               // bytes >= min_bytes: fitted (calibrate) or scored
  // Collectives: times in us; bus bandwidth = bytes / time x busbw_factor (nccl-tests).
  bool collective = false;
  bool extrapolated = false;  // beyond the simulated bound: on the steady-state line
  double busbw_factor = 1;
  double weight = 1;  // Huber weight of the point at the result (1: within delta)
  std::string ran;    // collectives: the simulated "algorithm/protocol"
};

struct CurveSummary {
  std::string file;
  bool latency = true;
  int switches = 0;
  double mape_in_range = 0;  // sizes >= min_bytes
  double mape_all = 0;
  // Collectives: what ran, and the MAPE per size range.
  bool collective = false;
  std::string what;  // "all_reduce, 8 ranks on 1 server, ring/simple, out-of-place time"
  struct Range {
    int64_t lo = 0, hi = 0;  // [lo, hi) bytes
    std::string label;
    int points = 0;
    double mape = 0;
  };
  std::vector<Range> ranges;
};

struct CalibrationResult {
  FabricParams params;
  std::vector<std::string> fitted;  // names of the parameters the traces determined
  std::vector<std::string> notes;   // what was not fitted and why
  std::vector<PointReport> points;
  std::vector<CurveSummary> curves;
  int64_t min_bytes = 0;
  int simulations = 0;
  bool gpus = false;  // the cluster has GPU servers: the collective parameters are reported
};

// Huber's delta of the fit (relative error); a point beyond it weighs delta / |error|.
constexpr double kHuberDelta = 0.02;
// NCCL's cost scales: their bounds, and the weight of their prior at 1 (a pseudo-residual
// kScalePrior x ln(scale)).
constexpr double kMinCostScale = 0.05, kMaxCostScale = 20;
constexpr double kScalePrior = 0.01;

// The prior a parameter keeps when no trace determines it: the per-switch latency of the
// fabric kind (docs/references.md "Fabric figures": InfiniBand 100-130 ns, RoCE Ethernet
// 350-600 ns).
FabricParams prior_params(const ClusterSpec& c);

CalibrationResult calibrate(const ClusterSpec& c, std::vector<Experiment>& experiments,
                            int64_t min_bytes);
CalibrationResult predict(const ClusterSpec& c, std::vector<Experiment>& experiments,
                          const FabricParams& p, int64_t min_bytes);

std::string format_report(const CalibrationResult& r);
std::string report_csv(const CalibrationResult& r);  // file,kind,switches,bytes,measured,...

// Runs tools/plot_calibration.py on a report CSV (RDMASIM_PYTHON, RDMASIM_CALIBRATION_PLOT
// override the interpreter and the script); false (and a message on stderr) when it fails.
bool plot_report(const std::string& csv_path, const std::string& png_path);

}  // namespace calib
