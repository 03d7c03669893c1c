// nccl-tests runs re-enacted in rdmasim: each traced size is one collective (the trace's op,
// on the trace's ranks mapped to the cluster's GPU servers) with the algorithm and protocol of
// the cluster's "collective" object (or the command line), timed from its start to its last
// completion, as nccl-tests times one iteration.
//
// Which time column: out-of-place by default. It is the column nccl-tests lists first and the
// one its summaries and most published figures quote; the simulator moves the same bytes for
// both (it does not model the local copy an in-place run saves), so either can be fitted
// (--nccl-column in-place).
//
// Large sizes: a collective of S bytes moves about 2S per rank, so simulating 16 GiB packet by
// packet would take long and tell nothing new: past the latency floor the time is affine in S.
// Sizes up to `max_simulated_bytes` are simulated; larger ones are placed on the steady-state
// line time = a + S / bw through the two largest simulated sizes (tests check the line
// against a direct simulation within 1 %).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "scenarios/traces/trace.hpp"
#include "tools/calibration/cluster.hpp"
#include "tools/calibration/trace_experiments.hpp"

namespace calib {

// The trace's ranks ("Using devices": host and device per rank) on the cluster's GPU servers:
// the k-th distinct host is server k, the device its GPU. Without rank lines every GPU of the
// cluster is a rank, node-major. InputError (file, rank) when the cluster cannot hold them.
Experiment experiment_from_nccl(const traces::NcclTrace& t, const ClusterSpec& c, bool in_place);

// The steady-state line through (s1, t1) and (s2, t2), s1 < s2: time = a + S / bw.
struct SteadyLine {
  double a = 0;   // same unit as the times
  double bw = 0;  // bytes per time unit
  double at(double bytes) const { return a + bytes / bw; }
};
SteadyLine steady_line(double s1, double t1, double s2, double t2);

// Simulates the selected sizes of a collective experiment (all when `use` is empty); times in
// microseconds, one per selected size. `ran`, when given, gets what ran at each size
// ("algorithm/protocol"; sizes on the steady-state line: the largest simulated size's).
std::vector<double> simulate_collective(const ClusterSpec& c, const FabricParams& p,
                                        const Experiment& e, const std::vector<bool>& use = {},
                                        std::map<int64_t, std::string>* ran = nullptr);

}  // namespace calib
