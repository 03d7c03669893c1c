#include "scenarios/run/memory_guard.hpp"

#include <string>

#include "scenarios/loader/input_error.hpp"
#include "sim/units.hpp"

namespace scen {

void MemoryGuard::on_progress() {
  const int64_t resident = resident_bytes();
  if (resident > limit_) {
    std::string grew;
    if (estimate_.samples_per_ms > 0) {
      grew = "; its time-series samples take an estimated " +
             memory_text(estimate_.samples_per_ms) +
             " per simulated ms (outputs.timeseries.interval)";
    }
    throw InputError("--max-memory", memory_text(limit_),
                     "a run within it: the process reached " + memory_text(resident) +
                         " at simulated time " + sim::format_time(sim_.now()) +
                         " (estimate before the run: " + estimate_.describe() + ")" + grew +
                         "; nothing was written. Shorten stop.time, sample less often or make "
                         "the workload smaller, or raise " +
                         memory_limit_text(limit_option_));
  }
  if (next_ != nullptr) next_->on_progress();
}

}  // namespace scen
