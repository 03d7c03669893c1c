// The InfiniBand fabric parameters a scenario sets (the "infiniband" section), described once
// (sim/param_spec.hpp).
#include "models/ib/ib_params.hpp"

#include "sim/param_spec.hpp"

namespace models {

const sim::ParamTable<IbParams>& ib_param_table() {
  using S = IbParams;
  static const sim::ParamTable<S> t = [] {
    sim::ParamTable<S> f;
    f.push_back(sim::choice_param<S>(
        "preset", &S::preset_rate_bps,
        "none | ndr | xdr: every link of the topology at 400 Gb/s (NDR, 4 lanes) or 800 Gb/s "
        "(XDR); none keeps the topology's rates",
        {{"none", 0}, {"ndr", 400'000'000'000}, {"xdr", 800'000'000'000}}));
    f.push_back(sim::int_param<S>("data_vls", &S::data_vls,
                                  "data virtual lanes per port, VL0..VL(n-1) (IBA: up to 15; VL15 "
                                  "is management only)",
                                  1, kIbMaxDataVls));
    f.push_back(sim::bytes_param<S>(
        "vl_buffer", &S::vl_buffer_bytes,
        "receive buffer per (input port, VL), switches and NICs, in whole 64-byte blocks; at "
        "least one largest packet",
        kIbBlockBytes));
    f.push_back(sim::custom_param<S>(
        "sl_to_vl", "list", &S::sl_to_vl,
        "VL of each service level (SL 0, 1, ...; up to 16 entries), the table of every port "
        "unless an override sets a switch port's (overrides[].set.sl_to_vl); default SL mod "
        "data_vls. A flow's priority is its SL (0..15)"));
    f.push_back(sim::custom_param<S>(
        "vl_arbitration", "object", &S::arbitration,
        "{\"high\": [{\"vl\", \"weight\"}...], \"low\": [...], \"high_limit\": 0..255}: VL "
        "arbitration tables of every output port, weights in 64-byte units (0..255), up to 64 "
        "entries each; high_limit in 4 KiB units (0 = one packet, 255 = none); default one low "
        "entry of weight 64 per data VL"));
    f.push_back(sim::time_param<S>(
        "fc_period", &S::fc_period,
        "each VL's credit limit is re-sent this often while its port sees traffic (a lost update "
        "heals); 0 = only on change"));
    f.push_back(sim::time_param<S>(
        "credit_log_min_stall", &S::credit_log_min_stall,
        "credits.csv lists credit stalls at least this long (all still count in the counters); "
        "0 = every stall"));
    f.push_back(sim::time_param<S>(
        "fc_min_interval", &S::fc_min_interval,
        "on-change credit updates per (port, VL) at least this far apart; changes in between "
        "go in one update at the end of the interval"));
    f.push_back(sim::bool_param<S>(
        "adaptive_routing", &S::adaptive_routing,
        "switches send each packet out of the least loaded port (queued bytes of its VL, credit "
        "for it) among the equal-cost ports to its destination; NICs accept packets out of order"));
    return f;
  }();
  return t;
}

}  // namespace models
