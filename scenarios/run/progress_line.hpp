// `rdmasim run`'s progress line (when stderr is a terminal; `--quiet` turns it off): a line on
// stderr, refreshed in place, with the simulated time, the share of the run done, events per
// second and an estimate of the time left. Quiet for the first two seconds so short runs print
// nothing.
//
// The share is of the work when the run ends with its workload (stop.until "workload-done")
// and the workload is finite (flows' bytes delivered, collectives' and training steps' work
// done: progress_work in run_scenario.cpp); only otherwise of stop.time, which is then when the
// run ends (taken against a safety limit, an 11 s run would show "0.1 % ETA 20874 s").
#pragma once

#include <chrono>
#include <functional>
#include <string>

#include "sim/simulator.hpp"

namespace scen {

class ProgressLine final : public sim::ProgressHook {
 public:
  // `work`: the share of the work done (0..1), or empty to go by simulated time up to `limit`.
  ProgressLine(const sim::Simulator& sim, sim::Time limit, std::function<double()> work = {})
      : sim_(sim), limit_(limit), work_(std::move(work)) {
    start_ = std::chrono::steady_clock::now();
  }
  void on_progress() override;
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  ~ProgressLine();

  // The line's text: `share` done (< 0: unknown) of the work (`of_work`) or of stop.time,
  // after `wall` seconds and `events`.
  static std::string text(double sim_us, double share, bool of_work, double wall, double events);

 private:
  const sim::Simulator& sim_;
  sim::Time limit_;
  std::function<double()> work_;
  std::chrono::steady_clock::time_point start_;
  bool shown_ = false;
};

}  // namespace scen
