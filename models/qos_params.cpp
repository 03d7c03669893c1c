// The QoS parameters a scenario sets (fabric.qos), described once (sim/param_spec.hpp).
#include "models/qos_params.hpp"

#include "sim/param_spec.hpp"

namespace models {

const sim::ParamTable<QosParams>& qos_param_table() {
  using S = QosParams;
  static const sim::ParamTable<S> t = [] {
    sim::ParamTable<S> f;
    f.push_back(sim::choice_param<S>(
        "trust", &S::trust,
        "pcp | dscp: switches keep the sender's priority tag, or classify on the DSCP by "
        "dscp_to_priority",
        {{"pcp", static_cast<int64_t>(Trust::Pcp)}, {"dscp", static_cast<int64_t>(Trust::Dscp)}}));
    f.push_back(sim::custom_param<S>(
        "dscp_to_priority", "map", &S::dscp_to_priority,
        "{\"DSCP\": priority} entries that differ from the class selector DSCP>>3 (which "
        "already maps RoCE data DSCP 26 to 3 and CNP DSCP 48 to 6)"));
    f.push_back(sim::custom_param<S>(
        "scheduler", "map", [](auto& q) -> auto& { return q.scheduler.weight; },
        "{\"priority\": \"strict\" | weight} per class at switch egress: strict classes first, "
        "highest first, then DWRR by weight"));
    f.push_back(sim::bytes_param<S>(
        "quantum", [](auto& q) -> auto& { return q.scheduler.quantum_bytes; },
        "DWRR bytes per unit of weight and round; 0 = one maximum frame (mtu + header_bytes + "
        "framing_bytes)"));
    return f;
  }();
  return t;
}

}  // namespace models
