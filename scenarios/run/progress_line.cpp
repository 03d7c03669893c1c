#include "scenarios/run/progress_line.hpp"

#include <cstdio>

namespace scen {

std::string ProgressLine::text(double sim_us, double share, bool of_work, double wall,
                               double events) {
  char b[256];
  std::string pct, eta;
  if (share >= 0) {
    std::snprintf(b, sizeof b, " %5.1f %% of the %s", 100.0 * share,
                  of_work ? "work" : "stop time");
    pct = b;
    if (share > 0 && wall > 0) {
      std::snprintf(b, sizeof b, " ETA %.0fs", wall * (1 - share) / share);
      eta = b;
    }
  }
  std::snprintf(b, sizeof b, "  simulated %.3f us%s  %.2f M events/s%s", sim_us, pct.c_str(),
                wall > 0 ? events / wall / 1e6 : 0.0, eta.c_str());
  return b;
}

void ProgressLine::on_progress() {
  const double wall = seconds();
  if (wall < 2.0) return;
  double share = -1;
  if (work_) {
    share = work_();
  } else if (limit_ != sim::Time::max() && limit_.ps > 0) {
    share = sim_.now().seconds() / limit_.seconds();
  }
  std::fprintf(stderr, "\r%s   ",
               text(sim_.now().us(), share, static_cast<bool>(work_), wall,
                    static_cast<double>(sim_.events_executed()))
                   .c_str());
  shown_ = true;
}

ProgressLine::~ProgressLine() {
  if (shown_) std::fprintf(stderr, "\n");
}

}  // namespace scen
