// How much memory a scenario will take, known before it runs, and the limit it must stay
// within (`--max-memory`, default: the machine's memory). Scenarios far beyond the machine —
// 10^8 flows, 50,000 hosts with their routing tables, a 1 ps sampling period — are refused
// with the estimate and the knob instead of running until the allocator fails.
//
// The terms are what grows: routing tables (distance and next-hop-set index per node and
// destination host, 8 B, and 2 B more with linear forwarding tables), ports (queues, counters,
// link rows), flows (the specification, the transport's state and the result row) and
// time-series samples. Their per-item costs are measured peak RSS on leaf-spine and fat-tree
// fabrics of 512 to 8,192 hosts and all-to-all workloads of 4k to 65k flows (the Release build;
// within 15 % there, and 19.7 GiB estimated against 19.6 GiB measured for a 50,016-host
// leaf-spine; docs/cli.md "Memory").
#pragma once

#include <cstdint>
#include <string>

#include "sim/scheduler.hpp"

namespace scen {

struct Scenario;

// Measured per-item costs (bytes). The fixed part: the process itself (8 MiB measured) and the
// room the event list's ring may keep in spent windows' arrays, at most 64 entries of 32 bytes
// in each of its 4,096 buckets (8 MiB; sim/scheduler.hpp).
inline constexpr int64_t kMemoryFixedBytes =
    (8LL << 20) + static_cast<int64_t>(sim::Scheduler::kMaxKeptBytes);
inline constexpr int64_t kMemoryPerRoutePair = 8;
inline constexpr int64_t kMemoryPerRoutePairLft = 2;
inline constexpr int64_t kMemoryPerPort = 3600;
inline constexpr int64_t kMemoryPerFlow = 1024;
inline constexpr int64_t kMemoryPerExtraQp = 256;
inline constexpr int64_t kMemoryPerSampleRow = 96;

struct MemoryEstimate {
  int64_t fixed = kMemoryFixedBytes;
  int64_t routes = 0;  // routing tables
  int64_t ports = 0;
  int64_t flows = 0;
  // Samples: per simulated millisecond, and over the whole run when it runs to a fixed time
  // (a run that ends with its workload is bounded while it runs, see MemoryGuard).
  int64_t samples_per_ms = 0;
  int64_t samples = 0;
  int64_t total() const;  // saturates at INT64_MAX
  // "1.2GiB (routing tables 1.1GiB, ports 88MiB, 65280 flows 64MiB, ...)"
  std::string describe() const;
  size_t flow_count = 0;
};

MemoryEstimate estimate_memory(const Scenario& s);

// The memory this process may use: physical memory, or the cgroup's limit when smaller.
int64_t machine_memory_bytes();

// `limit` (bytes; 0 = machine_memory_bytes()).
int64_t memory_limit(int64_t limit);

// Throws InputError("--max-memory", ...) naming the estimate when it exceeds the limit.
void check_memory_estimate(const MemoryEstimate& e, int64_t limit);

// The flows a generator may still add to `existing` ones within `limit` before the
// scenario's memory would exceed it (the loader asks before generating).
int64_t flows_within(int64_t limit, size_t existing);

// "--max-memory SIZE (default: this machine's 23.4GiB)": for messages.
std::string memory_limit_text(int64_t limit);

// "1.2GiB", "88.0MiB", "3.5KiB".
std::string memory_text(int64_t bytes);

// The resident set size of this process (bytes; 0 when unknown).
int64_t resident_bytes();

}  // namespace scen
