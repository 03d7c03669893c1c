// `rdmasim run --progress`: a line on stderr, refreshed in place, with the simulated time, the
// share of the stop time reached, events per second and an estimate of the time left. Quiet for
// the first two seconds so short runs print nothing.
#pragma once

#include <chrono>

#include "sim/simulator.hpp"

namespace scen {

class ProgressLine final : public sim::ProgressHook {
 public:
  ProgressLine(const sim::Simulator& sim, sim::Time limit) : sim_(sim), limit_(limit) {
    start_ = std::chrono::steady_clock::now();
  }
  void on_progress() override;
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  ~ProgressLine();

 private:
  const sim::Simulator& sim_;
  sim::Time limit_;
  std::chrono::steady_clock::time_point start_;
  bool shown_ = false;
};

}  // namespace scen
