// Open-loop Poisson arrivals at a target offered load.
#include <cmath>
#include <set>
#include <stdexcept>
#include <string>

#include "models/workloads/generators.hpp"

namespace models {

// The aggregate arrivals of all hosts form one Poisson process of rate
//   λ = load · host_rate · hosts / (8 · mean_bytes)   flows per second,
// so that the expected bits offered per second are load × the hosts' total link rate. Each
// arrival draws, in this order: its exponential inter-arrival gap, its source (uniform over
// hosts) and destination (uniform over the other hosts), and its size from the CDF.
//
// Start times are integer picoseconds: each gap is rounded to the nearest picosecond and
// added to an integer clock, so no floating-point error accumulates over a long run.
//
// Unlike the ns-3 HPCC traffic_gen.py, which runs one process per host and writes a host's
// flow only if that host's next arrival still falls inside the window (one arrival per host
// is lost, so short windows fall well short of the target: its 320-host, 1 ms WebSearch file
// has 388 flows where 701 are expected), every arrival in [start, start + duration) is kept.
std::vector<FlowSpec> make_poisson(const PoissonParams& p, sim::Rng& rng) {
  auto require = [](bool ok, const char* what) {
    if (!ok) throw std::invalid_argument(std::string("workload generator: poisson: ") + what);
  };
  require(p.hosts.size() >= 2, "needs at least 2 hosts");
  require(std::set<int>(p.hosts.begin(), p.hosts.end()).size() == p.hosts.size(),
          "a host is listed twice");
  require(p.load > 0.0 && p.load <= 1.0, "load must be in (0, 1]");
  require(p.host_rate_bps > 0, "host_rate_bps must be > 0");
  require(p.duration.ps >= 0, "duration must be >= 0");
  require(!p.cdf.points.empty(), "the size distribution is empty");
  const double mean_bytes = p.cdf.mean_bytes();
  require(mean_bytes > 0.0, "the size distribution has a zero mean");

  const double n_hosts = static_cast<double>(p.hosts.size());
  const double flows_per_second =
      p.load * static_cast<double>(p.host_rate_bps) * n_hosts / (8.0 * mean_bytes);
  const double mean_gap_ps = 1e12 / flows_per_second;

  const sim::Time end = p.start + p.duration;
  std::vector<FlowSpec> flows;
  sim::Time t = p.start;
  for (;;) {
    t += sim::Time(std::llround(rng.exponential(mean_gap_ps)));
    if (t >= end) break;
    const uint64_t n = p.hosts.size();
    const uint64_t src = rng.below(n);
    uint64_t dst = rng.below(n - 1);
    if (dst >= src) ++dst;  // uniform over the n - 1 other hosts
    FlowSpec f;
    f.src_host = p.hosts[src];
    f.dst_host = p.hosts[dst];
    f.bytes = p.cdf.sample(rng);
    f.start = t;
    f.tag = "poisson";
    flows.push_back(std::move(f));
  }
  return flows;
}

}  // namespace models
