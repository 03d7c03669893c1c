// The traced experiments, re-enacted in rdmasim: perftest's latency test as a ping-pong of
// messages across an idle fabric (its half round trip = one message's one-way latency, post to
// delivery of the last byte), its bandwidth test as a stream of messages posted together
// (bytes over the time from the first post to the last completion). nccl-tests' runs are
// simulated as the collective itself on the cluster's GPU servers (collective_experiments.hpp).
#pragma once

#include <cstdint>
#include <map>
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
                                 // collective: time in us
  int64_t min_bytes = -1;        // smallest size fitted and scored (-1: the command's --min-size)

  // nccl-tests traces: the collective on GPU ranks (collective_experiments.hpp).
  bool collective = false;
  std::string op;                   // a scenario's collective "op" (all_reduce, all_to_all, ...)
  std::string type = "float";       // element type
  int64_t root = 0;                 // broadcast root
  std::vector<std::string> ranks;   // GPU names "n<server>g<gpu>", rank order
  int servers = 0;                  // servers the ranks span
  bool in_place = false;            // which of nccl-tests' time columns `measured` holds
  std::string algorithm, protocol;  // "" = the cluster's "collective" choice (or the loader's)
  // Sizes up to this are simulated; larger ones lie on the steady-state line through the two
  // largest simulated sizes (time = a + S / bw).
  int64_t max_simulated_bytes = int64_t{256} << 20;
  // What the simulation ran at each size it simulated, "algorithm/protocol" (filled by
  // `simulate`; sizes on the steady-state line take the largest simulated size's).
  std::map<int64_t, std::string> ran;
};

// A perftest trace as an experiment between `src` and `dst` (the cluster's pair when empty).
// An nccl-tests trace becomes a collective experiment (experiment_from_nccl).
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
