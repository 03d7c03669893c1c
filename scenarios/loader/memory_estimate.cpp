#include "scenarios/loader/memory_estimate.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <limits>
#include <string>

#include "scenarios/loader/input_error.hpp"
#include "scenarios/loader/scenario.hpp"
#include "sim/units.hpp"

namespace scen {

namespace {

int64_t saturating_mul(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  if (a > std::numeric_limits<int64_t>::max() / b) return std::numeric_limits<int64_t>::max();
  return a * b;
}

int64_t saturating_add(int64_t a, int64_t b) {
  return a > std::numeric_limits<int64_t>::max() - b ? std::numeric_limits<int64_t>::max() : a + b;
}

}  // namespace

std::string memory_text(int64_t bytes) {
  char b[32];
  if (bytes >= (1LL << 30)) {
    std::snprintf(b, sizeof b, "%.1fGiB", static_cast<double>(bytes) / (1LL << 30));
  } else if (bytes >= (1LL << 20)) {
    std::snprintf(b, sizeof b, "%.1fMiB", static_cast<double>(bytes) / (1LL << 20));
  } else {
    std::snprintf(b, sizeof b, "%.1fKiB", static_cast<double>(bytes) / 1024);
  }
  return b;
}

int64_t MemoryEstimate::total() const {
  int64_t t = fixed;
  for (const int64_t term : {routes, ports, flows, samples}) t = saturating_add(t, term);
  return t;
}

std::string MemoryEstimate::describe() const {
  std::string s = memory_text(total()) + " (routing tables " + memory_text(routes) + ", ports " +
                  memory_text(ports) + ", " + std::to_string(flow_count) + " flows " +
                  memory_text(flows);
  if (samples > 0) s += ", samples " + memory_text(samples);
  return s + ")";
}

MemoryEstimate estimate_memory(const Scenario& s) {
  MemoryEstimate e;
  const auto nodes = static_cast<int64_t>(s.fabric.topo.nodes.size());
  const auto hosts = static_cast<int64_t>(s.fabric.host_node.size());
  const int64_t per_pair = kMemoryPerRoutePair + (s.lft_routing ? kMemoryPerRoutePairLft : 0);
  e.routes = saturating_mul(saturating_mul(nodes, hosts), per_pair);
  e.ports = saturating_mul(2 * static_cast<int64_t>(s.fabric.topo.links.size()), kMemoryPerPort);
  e.flow_count = s.flows.size();
  for (const auto& f : s.flows) {
    e.flows = saturating_add(e.flows, kMemoryPerFlow + kMemoryPerExtraQp * (f.qps - 1));
  }
  if (s.has_timeseries && s.timeseries.interval.ps > 0) {
    const auto series = static_cast<int64_t>(s.timeseries.ports.size() + s.timeseries.flows.size());
    const int64_t rows_per_ms =
        series * (1'000'000'000LL / std::max<int64_t>(1, s.timeseries.interval.ps));
    e.samples_per_ms = saturating_mul(rows_per_ms, kMemoryPerSampleRow);
    if (!s.stop_when_done && s.stop_time != sim::Time::max()) {
      const int64_t rows = saturating_mul(series, s.stop_time.ps / s.timeseries.interval.ps);
      e.samples = saturating_mul(rows, kMemoryPerSampleRow);
    }
  }
  return e;
}

int64_t machine_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page = ::sysconf(_SC_PAGESIZE);
  int64_t bytes = pages > 0 && page > 0 ? static_cast<int64_t>(pages) * page
                                        : std::numeric_limits<int64_t>::max();
  // A container's limit (cgroup v2) is the machine a run really has.
  std::ifstream cgroup("/sys/fs/cgroup/memory.max");
  std::string text;
  if (cgroup >> text && !text.empty() && text != "max" &&
      text.find_first_not_of("0123456789") == std::string::npos && text.size() < 19) {
    bytes = std::min<int64_t>(bytes, std::stoll(text));
  }
  return bytes;
}

int64_t memory_limit(int64_t limit) {
  return limit > 0 ? limit : machine_memory_bytes();
}

std::string memory_limit_text(int64_t limit) {
  return limit > 0 ? "--max-memory " + memory_text(limit)
                   : "--max-memory (default: this machine's " + memory_text(memory_limit(0)) + ")";
}

void check_memory_estimate(const MemoryEstimate& e, int64_t limit) {
  if (e.total() <= memory_limit(limit)) return;
  throw InputError(
      "--max-memory", memory_text(memory_limit(limit)),
      "a scenario within it: it needs an estimated " + e.describe() + ", beyond " +
          memory_limit_text(limit) +
          "; make the fabric or the workload smaller, or raise --max-memory if the machine has "
          "the memory");
}

int64_t flows_within(int64_t limit, size_t existing) {
  const int64_t room = memory_limit(limit) - kMemoryFixedBytes -
                       saturating_mul(static_cast<int64_t>(existing), kMemoryPerFlow);
  return room > 0 ? room / kMemoryPerFlow : 0;
}

int64_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  int64_t size = 0, resident = 0;
  if (!(statm >> size >> resident)) return 0;
  return resident * ::sysconf(_SC_PAGESIZE);
}

}  // namespace scen
