// Workload generators: pure functions from parameters and a seeded RNG to flow lists.
// Deterministic: the same parameters and seed give the same flows.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/workloads/flow_spec.hpp"
#include "sim/rng.hpp"

namespace models {

// N senders to one receiver, all starting at `start` (+ jitter).
struct IncastParams {
  std::vector<int> senders;  // host numbers
  int receiver = 0;
  int64_t bytes = 0;
  sim::Time start;
};
std::vector<FlowSpec> make_incast(const IncastParams& p);

// Random permutation: every host in `hosts` sends to exactly one other and receives from
// exactly one (a derangement: no host sends to itself), drawn with `rng`.
struct PermutationParams {
  std::vector<int> hosts;
  int64_t bytes = 0;
  sim::Time start;
};
std::vector<FlowSpec> make_permutation(const PermutationParams& p, sim::Rng& rng);

// Every host sends `bytes` to every other host.
struct AllToAllParams {
  std::vector<int> hosts;
  int64_t bytes = 0;
  sim::Time start;
};
std::vector<FlowSpec> make_all_to_all(const AllToAllParams& p);

// Flow-size distribution as an empirical CDF: points (size_bytes, cumulative probability),
// sizes non-decreasing, probabilities non-decreasing ending at 1. Sampling interpolates
// linearly between points (the convention of the ns-3 HPCC traffic generator).
struct SizeCdf {
  std::vector<std::pair<double, double>> points;  // (bytes, cdf)
  double mean_bytes() const;
  int64_t sample(sim::Rng& rng) const;
};
// Text format: one "size_bytes cdf" pair per line; '#' comments; cdf in [0,1] or [0,100]
// (percent, detected from the last line). Throws std::runtime_error naming the line.
SizeCdf parse_size_cdf(const std::string& text, const std::string& source_name);

// Poisson arrivals at a target load: each host pair (src != dst, uniform) gets flows whose
// sizes follow `cdf`; the aggregate arrival rate is load * host_rate * hosts / (8 * mean).
struct PoissonParams {
  std::vector<int> hosts;
  SizeCdf cdf;
  double load = 0.3;         // fraction of host link rate, (0, 1]
  int64_t host_rate_bps = 0;
  sim::Time start;
  sim::Time duration;        // arrivals in [start, start + duration)
};
std::vector<FlowSpec> make_poisson(const PoissonParams& p, sim::Rng& rng);

// Adds a uniform random delay in [0, jitter] to every start time (jitter 0 = unchanged).
void apply_start_jitter(std::vector<FlowSpec>& flows, sim::Time jitter, sim::Rng& rng);

}  // namespace models
