// Congestion control driven by ACKs at the sender NIC (`fabric.cc`): HPCC (in-band telemetry),
// DCTCP (fraction of ECN-marked ACKs) and TIMELY (RTT gradient), as their papers define them
// and as the ns-3 HPCC simulator implements them for RDMA (its rdma-hw.cc, which is what the
// peer files in ../shared/peers/hpcc were run with; docs/references.md, "Congestion control").
// DCQCN keeps its own section (models/roce/dcqcn_params.hpp); `algorithm: dcqcn` turns it on.
//
// All three are rate-based in that implementation: each QP's `rate_bps` paces its packets, and
// a window of bytes in flight (`window`, optionally scaled by rate/line rate) bounds it too.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/param_spec_fwd.hpp"
#include "sim/time.hpp"

namespace models {

enum class CcAlgorithm : uint8_t { None, Dcqcn, Hpcc, Dctcp, Timely };

struct CcParams {
  CcAlgorithm algorithm = CcAlgorithm::None;
  std::string preset = "paper";  // the set the knobs started from (the echo)
  // The traffic classes whose flows it controls (bit c: priority c); the others run without
  // it — or under DCQCN, for DCQCN's classes.
  uint8_t classes = 0xff;

  // --- Common to HPCC, DCTCP and TIMELY ---
  // Base RTT T of the network: HPCC's utilisation averaging period and reference for the
  // queue term. 0 = the largest unloaded RTT over the workload's flows (the builder's).
  sim::Time base_rtt{0};
  // Bytes in flight per QP: -1 = none, 0 = one BDP (base_rtt x the NIC's line rate), else bytes.
  int64_t window_bytes = -1;
  // The window scales with the QP's rate / line rate (HPCC's W = R x T; ns-3 VAR_WIN).
  bool window_follows_rate = false;
  int64_t min_rate_bps = 100'000'000;  // no algorithm takes a QP below this (ns-3 MinRate)
  // Additive increase per update: HPCC's W_AI (as a rate), DCTCP's per-RTT increase, TIMELY's
  // delta.
  int64_t rate_ai_bps = 5'000'000;
  int64_t rate_hai_bps = 50'000'000;  // TIMELY's hyper-active increase

  // --- HPCC (Li et al., SIGCOMM 2019, Algorithm 1) ---
  double hpcc_eta = 0.95;      // target utilisation
  int64_t hpcc_max_stage = 5;  // additive steps before a multiplicative one
  // React to every ACK between the once-per-RTT updates, without committing the reference
  // rate (the paper's per-ACK reaction).
  bool hpcc_fast_react = true;
  // The INT header on every data packet and its ACK: 5 hops x 8 bytes + 2 (the paper's, and
  // the ns-3 simulator's IntHeader).
  int64_t hpcc_int_bytes = 42;
  // Granularity of the INT counters a switch writes: transmitted bytes and queue length go
  // into the header's fixed-width fields in these units (1 = exact). The ns-3 HPCC simulator
  // encodes 128-byte and 80-byte units times its INT_MULTI (4 in its run script).
  int64_t hpcc_int_byte_unit = 1;
  int64_t hpcc_int_queue_unit = 1;

  // --- DCTCP (Alizadeh et al., SIGCOMM 2010), rate-based for RDMA as in ns-3 HPCC ---
  double dctcp_g = 1.0 / 16;  // alpha gain (the paper's 1/16)

  // --- TIMELY (Mittal et al., SIGCOMM 2015) ---
  double timely_alpha = 0.875;           // EWMA weight of the newest RTT difference
  double timely_beta = 0.8;              // multiplicative decrease factor
  sim::Time timely_t_low{50'000'000};    // 50 us: below, always increase
  sim::Time timely_t_high{500'000'000};  // 500 us: above, decrease by 1 - beta(1 - T_high/rtt)
  sim::Time timely_min_rtt{20'000'000};  // 20 us: normalises the gradient
  int64_t timely_hai_after = 5;          // consecutive increases before hyper-active increase
  // The send timestamp on every data packet, echoed by its ACK (ns-3: 8 bytes).
  int64_t timely_timestamp_bytes = 8;
};

const char* cc_algorithm_name(CcAlgorithm a);
// Every algorithm's name, in enum order; and the algorithm of a name (false: none has it).
const std::vector<std::string>& cc_algorithm_names();
bool cc_algorithm_from_name(const std::string& name, CcAlgorithm& out);
// The presets of `algorithm` (the first is the default).
const std::vector<std::string>& cc_preset_names();
// Sets every knob of `out` but `algorithm` to the preset `name` of `out.algorithm`; false for
// an unknown name.
bool cc_preset(const std::string& name, CcParams& out);

// The parameters of CcParams a scenario sets (fabric.cc; models/cc/cc_params.cpp).
const sim::ParamTable<CcParams>& cc_param_table();

}  // namespace models
