// InfiniBand congestion control (IBA specification volume 1, annex A10; docs/references.md
// "InfiniBand congestion control"): the parameters, named as in the annex's
// SwitchCongestionSetting, CACongestionSetting and CongestionControlTable attributes (and
// OpenSM's cc_* options), and the arithmetic of the congestion control table, kept here as pure
// functions so that tests can check them against hand values.
//
//   switch port (congestion point): a data packet joining a VL queue of more than `threshold`
//     bytes gets FECN, unless smaller than Packet_Size, skipped by Marking_Rate, or the port is a
//     victim (its VL out of credit) and the victim mask is off;
//   receiving channel adapter: returns a BECN for each FECN-marked packet (a congestion
//     notification packet, models/ib/ib_cc.hpp says why);
//   sending channel adapter, per QP: CCTI += CCTI_Increase on each BECN, capped at CCTI_Limit;
//     every CCTI_Timer while CCTI > CCTI_Min, CCTI -= 1; the QP's inter-packet delay is
//     CCT[CCTI].
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/param_spec_fwd.hpp"
#include "sim/time.hpp"

namespace models {

// One congestion control table entry (annex A10: a 16-bit word, CCT_Shift in bits 15-14 and
// CCT_Multiplier in bits 13-0). Its inter-packet delay, the idle time inserted after a packet
// before the next packet of the same QP, is the packet's own transmission time at line rate
// times multiplier / 2^shift: the hfi1 driver computes (max_pkt_time >> shift) * multiplier, and
// QLogic PSM (time_to_send >> shift) * ipd, from the same fields.
struct CctEntry {
  uint8_t shift = 0;        // 0..3
  uint16_t multiplier = 0;  // 0..16383
};
constexpr int kCctMaxShift = 3;
constexpr int kCctMaxMultiplier = 16383;

struct IbCcParams {
  bool enabled = false;

  // --- Switch: SwitchCongestionSetting ---
  // Queue depth of a (port, VL) above which packets joining it are marked. The annex's Threshold
  // is a 4-bit aggressiveness (0 none, 1 loose .. 15 aggressive) whose depth is left to the
  // switch; here the depth itself is the parameter. 32 KiB: 8 MTU packets, half an input VL
  // buffer (infiniband.vl_buffer 64 KiB), far above the one or two packets a port fed at no more
  // than its line rate holds.
  int64_t threshold_bytes = 32'768;
  // Marking_Rate: eligible packets left unmarked between two marked ones (0 = mark every one).
  int64_t marking_rate = 0;
  // Packet_Size: packets of fewer 64-byte blocks are never marked (0 = any size).
  int64_t packet_size_blocks = 0;
  // Victim_Mask (every port's bit at once): a port whose VL is over the threshold but out of
  // credit is a victim of congestion downstream, not its root; it marks only with the mask set.
  // Off by default so that flows merely passing a backed-up port are not slowed (annex A10).
  bool victim_mask = false;

  // --- Channel adapter: CACongestionSetting and CongestionControlTable ---
  int64_t ccti_increase = 1;  // CCTI_Increase: added to a QP's CCTI per BECN
  int64_t ccti_limit = 127;   // CCTI_Limit: highest CCTI (an index into the CCT)
  int64_t ccti_min = 0;       // CCTI_Min: the timer never takes CCTI below it
  // CCTI_Timer: the annex counts it in 1.024 us units; given here as a time. 10 us: about eight
  // 4 KiB packets at a sixteenth of 400 Gb/s, so that a QP receiving a BECN every few packets
  // holds its index while one receiving none recovers a step of the table in 10 us.
  sim::Time ccti_timer{10'000'000};
  // The table; empty = the default table (default_cct()).
  std::vector<CctEntry> cct;
};

// Default table, 128 entries: entry i = shift 3, multiplier i, i.e. an inter-packet delay of
// i/8 packet times, a linear ramp of the delay (the form OpenSM's cc_cct option writes,
// "shift:multiplier,..."; CC studies with OpenSM load quadratic ramps of the same form). Rates
// as a fraction of line: index 0 -> 1, 8 -> 1/2, 24 -> 1/4, 56 -> 1/8, 120 -> 1/16,
// 127 -> 8/135.
inline std::vector<CctEntry> default_cct() {
  std::vector<CctEntry> t(128);
  for (std::size_t i = 0; i < t.size(); ++i) t[i] = {3, static_cast<uint16_t>(i)};
  return t;
}

// The injection rate an entry leaves a QP on a port of `line_bps`: packet starts are spaced by
// packet time + IPD = packet time x (2^shift + multiplier) / 2^shift, so
// rate = line x 2^shift / (2^shift + multiplier) for every packet size (rounded down).
inline int64_t cct_rate_bps(int64_t line_bps, CctEntry e) {
  const int64_t unit = int64_t{1} << e.shift;
  return static_cast<int64_t>(static_cast<__int128>(line_bps) * unit / (unit + e.multiplier));
}

// The inter-packet delay of an entry after a packet of `wire_bytes` at `line_bps`.
inline sim::Time cct_ipd(int64_t line_bps, CctEntry e, int64_t wire_bytes) {
  const sim::Time t = sim::serialization_time(wire_bytes, line_bps);
  return sim::Time(static_cast<int64_t>(static_cast<__int128>(t.ps) * e.multiplier >> e.shift));
}

// CCTI after one BECN: raised by CCTI_Increase, never above CCTI_Limit.
inline int64_t ccti_after_becn(int64_t ccti, const IbCcParams& p) {
  return ccti + p.ccti_increase > p.ccti_limit ? p.ccti_limit : ccti + p.ccti_increase;
}

// CCTI after one CCTI_Timer expiry: lowered by one, never below CCTI_Min.
inline int64_t ccti_after_timer(int64_t ccti, const IbCcParams& p) {
  return ccti > p.ccti_min ? ccti - 1 : ccti;
}

// The parameters of IbCcParams a scenario sets (infiniband.cc; models/ib/ib_cc_params.cpp).
const sim::ParamTable<IbCcParams>& ib_cc_param_table();

}  // namespace models
