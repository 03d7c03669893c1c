// The InfiniBand congestion control parameters a scenario sets (infiniband.cc), described once
// (sim/param_spec.hpp).
#include "models/ib/ib_cc_params.hpp"

#include "sim/param_spec.hpp"

namespace models {

const sim::ParamTable<IbCcParams>& ib_cc_param_table() {
  using S = IbCcParams;
  static const sim::ParamTable<S> t = [] {
    sim::ParamTable<S> f;
    f.push_back(sim::bool_param<S>(
        "enabled", &S::enabled,
        "congestion control (IBA annex A10): switches mark FECN, receivers return BECN in a CNP, "
        "senders pace each QP by its CCT entry"));
    f.push_back(sim::bytes_param<S>(
        "threshold", &S::threshold_bytes,
        "switch: a data packet joining a (port, VL) queue holding more than this gets FECN (the "
        "annex's 4-bit Threshold level, given as the depth)",
        0));
    f.push_back(sim::int_param<S>(
        "marking_rate", &S::marking_rate,
        "switch Marking_Rate: eligible packets left unmarked between two marks (0 = mark all)", 0,
        65535));
    f.push_back(sim::int_param<S>(
        "packet_size", &S::packet_size_blocks,
        "switch Packet_Size: packets of fewer 64-byte blocks are not marked (0 = any size)", 0,
        255));
    f.push_back(sim::bool_param<S>(
        "victim_mask", &S::victim_mask,
        "switch Victim_Mask (all ports): also mark at a port that is out of credit (a victim of "
        "congestion downstream); false marks only at the root"));
    f.push_back(sim::int_param<S>("ccti_increase", &S::ccti_increase,
                                  "CA CCTI_Increase: added to the QP's CCTI per BECN", 0, 255));
    f.push_back(sim::int_param<S>(
        "ccti_limit", &S::ccti_limit,
        "CA CCTI_Limit: highest CCTI; below the table's size (default table: 128 entries)", 0,
        16383));
    f.push_back(sim::int_param<S>(
        "ccti_min", &S::ccti_min,
        "CA CCTI_Min: the timer never lowers CCTI below it (a floor on the delay once notified)", 0,
        255));
    f.push_back(sim::time_param<S>(
        "ccti_timer", &S::ccti_timer,
        "CA CCTI_Timer: while CCTI > CCTI_Min it drops by one per period (the annex counts "
        "1.024 us units; give a time)",
        sim::Time(1)));
    f.push_back(sim::custom_param<S>(
        "cct", "list", &S::cct,
        "congestion control table, [\"shift:multiplier\", ...] (OpenSM cc_cct form): "
        "inter-packet delay = packet time x multiplier / 2^shift; default 128 entries i -> 3:i "
        "(a linear ramp, rate = line x 8 / (8 + i))"));
    return f;
  }();
  return t;
}

}  // namespace models
