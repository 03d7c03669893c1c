// The ECN marking parameters a scenario sets (fabric.ecn, overrides' ecn), described once
// (sim/param_spec.hpp).
#include "models/roce/ecn_marker.hpp"
#include "sim/param_spec.hpp"

namespace models {

const sim::ParamTable<EcnParams>& ecn_port_param_table() {
  using S = EcnParams;
  static const sim::ParamTable<S> t = {
      sim::bool_param<S>("enabled", &S::enabled,
                         "RED-style ECN marking (RFC 3168) at every switch egress"),
      sim::bytes_param<S>(
          "kmin", &S::kmin_bytes,
          "egress (port, priority) bytes up to which nothing is marked (HPCC ns-3 at 100G: 400KB)"),
      sim::bytes_param<S>("kmax", &S::kmax_bytes,
                          "bytes at which the probability reaches pmax; everything above is marked",
                          1),
      sim::number_param<S>("pmax", &S::pmax, "marking probability at kmax", 0.0, 1.0),
  };
  return t;
}

const sim::ParamTable<EcnParams>& ecn_param_table() {
  static const sim::ParamTable<EcnParams> t = [] {
    sim::ParamTable<EcnParams> f = ecn_port_param_table();
    f.push_back(sim::choice_param<EcnParams>(
        "mark_at", &EcnParams::mark_at_dequeue,
        "enqueue (the queue the packet joins) | dequeue (the queue it leaves behind)",
        {{"enqueue", 0}, {"dequeue", 1}}));
    return f;
  }();
  return t;
}

}  // namespace models
