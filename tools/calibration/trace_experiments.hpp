// The traced experiments, re-enacted in rdmasim: perftest's latency test as a ping-pong of
// messages across an idle fabric (its half round trip = one message's one-way latency, post to
// delivery of the last byte), its bandwidth test as a stream of messages posted together
// (bytes over the time from the first post to the last completion).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "scenarios/traces/trace.hpp"
#include "tools/calibration/cluster.hpp"

namespace calib {

struct Experiment {
  std::string file;
  bool latency = true;   // else bandwidth
  std::string src, dst;  // host names
  int64_t mtu = 0;       // from the trace (0: not stated)
  int switches = 0;      // on the path (filled by `prepare`)
  std::vector<int64_t> bytes;
  std::vector<int64_t> iterations;
  std::vector<double> measured;  // latency: t_typical in us; bandwidth: average bytes per second
};

// A perftest trace as an experiment between `src` and `dst` (the cluster's pair when empty).
// nccl-tests traces are refused: fitting them needs the collective models (InputError).
Experiment experiment_from_trace(const traces::Trace& t, const ClusterSpec& c,
                                 const std::string& src, const std::string& dst);

// Steady state without the real tool's thousands of iterations: a bandwidth size streams
// max(16, ceil(64 MiB / size)) messages, at most the trace's iterations but never fewer than 16;
// a latency size is 16 ping-pong messages (alternating direction, each alone on the fabric).
int64_t stream_messages(int64_t bytes, int64_t iterations);
constexpr int64_t kPingPongMessages = 16;

// Simulates the sizes of `e` selected by `use` (all when empty) with parameters `p`; returns
// one value per selected size in the units of `measured`. Fills e.switches.
std::vector<double> simulate(const ClusterSpec& c, const FabricParams& p, Experiment& e,
                             const std::vector<bool>& use = {});

}  // namespace calib
