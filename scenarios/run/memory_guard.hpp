// The run-time half of --max-memory (the estimate before the run is memory_estimate.hpp):
// what only the run knows — samples of a run that ends with its workload, a collective's
// messages, packets in flight — is bounded by watching the process's resident size every 2^20
// events and stopping the run, with the limit and what grew, before the allocator fails.
// Reading /proc/self/statm then costs about a microsecond per 2^20 events.
#pragma once

#include <cstdint>

#include "scenarios/loader/memory_estimate.hpp"
#include "sim/simulator.hpp"

namespace scen {

class MemoryGuard final : public sim::ProgressHook {
 public:
  // `limit_option`: --max-memory as given (0 = the machine's memory); `next`: the progress
  // line, called after the check (may be null).
  MemoryGuard(const sim::Simulator& sim, int64_t limit_option, const MemoryEstimate& estimate,
              sim::ProgressHook* next)
      : sim_(sim),
        limit_option_(limit_option),
        limit_(memory_limit(limit_option)),
        estimate_(estimate),
        next_(next) {}
  // Throws InputError("--max-memory", ...) when the resident size is beyond the limit.
  void on_progress() override;

 private:
  const sim::Simulator& sim_;
  int64_t limit_option_;
  int64_t limit_;
  MemoryEstimate estimate_;
  sim::ProgressHook* next_;
};

}  // namespace scen
