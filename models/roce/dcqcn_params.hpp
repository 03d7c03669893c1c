// DCQCN (Zhu et al., "Congestion Control for Large-Scale RDMA Deployments", SIGCOMM 2015)
// parameters, named after the NVIDIA ConnectX firmware knobs (mlxconfig / sysfs roce_rp and
// roce_np), and the three published default sets shipped as presets (docs/references.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/param_spec_fwd.hpp"
#include "sim/time.hpp"

namespace models {

struct DcqcnParams {
  bool enabled = false;
  std::string preset = "nvidia-default";  // the set the values below started from
  // The traffic classes whose flows it controls (bit c: priority c).
  uint8_t classes = 0xff;

  // --- Notification point (receiver NIC) ---
  // How the receiver tells the sender: `cnp` sends a congestion notification packet per QP at
  // most once per `min_time_between_cnps`; `ack` sets a congestion flag on the ACK of every
  // marked packet (the ns-3 HPCC simulator's behaviour: no CNP, no interval).
  enum class Feedback : uint8_t { Cnp, AckFlag } feedback = Feedback::Cnp;
  sim::Time min_time_between_cnps{4'000'000};  // 4 us; 0 = a CNP for every marked packet

  // --- Reaction point (sender NIC), one state per QP ---
  // Alpha, the congestion estimate, in [0, 1]. Firmware keeps it in 10-bit fixed point; here it
  // is a double with g = (1024 - dce_tcp_g) / 1024.
  //   periodic (firmware, ns-3 HPCC): every dce_tcp_rtt, alpha = (1-g)alpha + g if a CNP came
  //     in that period, else (1-g)alpha;
  //   on-cnp (DCQCN paper): alpha = (1-g)alpha + g on each CNP; (1-g)alpha after every
  //     dce_tcp_rtt without one.
  enum class AlphaUpdate : uint8_t { Periodic, OnCnp } alpha_update = AlphaUpdate::Periodic;
  int64_t dce_tcp_g = 1019;            // 1024 x (1 - g)
  sim::Time dce_tcp_rtt{1'000'000};    // 1 us: alpha update period
  int64_t initial_alpha_value = 1023;  // alpha x 1024 when the rate limiter starts
  // Rate decrease: rate x (1 - alpha x 1024 / 2^rpg_gd) (rpg_gd 11: the paper's alpha/2), never
  // below rpg_min_dec_fac % of the rate before, nor below rpg_min_rate.
  int64_t rpg_gd = 11;
  int64_t rpg_min_dec_fac = 50;  // percent
  // At most one decrease per period, and only if a CNP came since the last one; 0 = decrease on
  // every CNP at once (paper).
  sim::Time rate_reduce_monitor_period{4'000'000};  // 4 us
  // Current and target rate when a rate limiter is allocated on a QP's first CNP; 0 = keep the
  // rate it was sending at.
  int64_t rate_to_set_on_first_cnp_bps = 85'000'000'000;
  // Target clamping on a decrease: clamp_tgt_rate sets target := current on every decrease;
  // clamp_tgt_rate_after_time_inc does so only if the timer raised the rate since the last
  // decrease. Otherwise the target stays and fast recovery climbs back to it.
  bool clamp_tgt_rate = false;
  bool clamp_tgt_rate_after_time_inc = true;
  // Rate increase: an event every rpg_time_reset (timer stage T) and every rpg_byte_reset bytes
  // sent (byte stage BC; 0 = no byte counter). Fast recovery while max(T, BC) < rpg_threshold
  // (current := (target + current) / 2); hyper increase (target += rpg_hai_rate) once
  // min(T, BC) > rpg_threshold; additive increase (target += rpg_ai_rate) in between.
  sim::Time rpg_time_reset{300'000'000};  // 300 us
  int64_t rpg_byte_reset = 32767;
  int64_t rpg_threshold = 1;
  int64_t rpg_ai_rate_bps = 5'000'000;    // 5 Mb/s
  int64_t rpg_hai_rate_bps = 50'000'000;  // 50 Mb/s
  int64_t rpg_min_rate_bps = 1'000'000;   // 1 Mb/s
  int64_t rpg_max_rate_bps = 0;           // 0 = the NIC's line rate; reaching it frees the QP
};

// The preset names, in the order --list-params shows them.
const std::vector<std::string>& dcqcn_preset_names();
// A preset's full parameter set (enabled stays false; the scenario turns DCQCN on). Returns
// false for an unknown name.
bool dcqcn_preset(const std::string& name, DcqcnParams& out);

// The parameters of DcqcnParams a scenario sets (fabric.dcqcn; models/roce/dcqcn_params.cpp).
const sim::ParamTable<DcqcnParams>& dcqcn_param_table();

}  // namespace models
