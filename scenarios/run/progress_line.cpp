#include "scenarios/run/progress_line.hpp"

#include <cstdio>
#include <string>

namespace scen {

void ProgressLine::on_progress() {
  const double wall = seconds();
  if (wall < 2.0) return;
  const double sim_us = sim_.now().us();
  std::string pct = "";
  std::string eta = "";
  if (limit_ != sim::Time::max() && limit_.ps > 0) {
    const double frac = sim_.now().seconds() / limit_.seconds();
    char b[64];
    std::snprintf(b, sizeof b, " %5.1f%%", 100.0 * frac);
    pct = b;
    if (frac > 0) {
      std::snprintf(b, sizeof b, " ETA %.0fs", wall * (1 - frac) / frac);
      eta = b;
    }
  }
  std::fprintf(stderr, "\r  simulated %.3f us%s  %.2f M events/s%s   ", sim_us, pct.c_str(),
               static_cast<double>(sim_.events_executed()) / wall / 1e6, eta.c_str());
  shown_ = true;
}

ProgressLine::~ProgressLine() {
  if (shown_) std::fprintf(stderr, "\n");
}

}  // namespace scen
