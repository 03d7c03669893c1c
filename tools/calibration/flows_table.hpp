// flows.csv read back (the file `rdmasim run` and `rdmasim-probe replay` write) and two runs'
// flow completion times side by side: `rdmasim compare SIM_OUT REAL_OUT`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace calib {

struct FlowRow {
  int64_t flow_id = 0;
  std::string src, dst;
  int64_t bytes = 0;
  int64_t start_ps = 0;
  int64_t fct_ps = 0;  // valid when completed
  bool completed = false;
};

// Reads flows.csv (or DIR/flows.csv when `path` is a folder); InputError "file:line" when the
// header differs from rdmasim's or a row is malformed.
std::vector<FlowRow> read_flows_csv(const std::string& path);

struct FctComparison {
  struct Line {
    std::string statistic;  // "p50", "p90", "p99", "p99.9", "max", "mean"
    double sim_us = 0, real_us = 0;
    double error_pct = 0;  // (sim - real) / real x 100
  };
  size_t sim_flows = 0, real_flows = 0, sim_completed = 0, real_completed = 0;
  size_t matched = 0;            // flows present in both with the same src, dst and bytes
  double per_flow_mape_pct = 0;  // over matched completed flows
  std::vector<Line> lines;
};

// Percentiles are nearest-rank over each run's completed flows. Flows are matched by id; a
// pair whose src, dst or bytes differ means the runs are of different scenarios (InputError).
FctComparison compare_fct(const std::vector<FlowRow>& sim, const std::vector<FlowRow>& real,
                          const std::string& sim_name, const std::string& real_name);

std::string format_comparison(const FctComparison& c);

}  // namespace calib
