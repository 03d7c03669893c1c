// The parameters of a switch a scenario sets (fabric.switch and overrides), described once
// (sim/param_spec.hpp); the scenario loader reads, echoes and documents them from here.
#include "models/switch.hpp"
#include "sim/param_spec.hpp"

namespace models {

const sim::ParamTable<SwitchParams>& switch_param_table() {
  using S = SwitchParams;
  static const sim::ParamTable<S> t = {
      sim::time_param<S>(
          "latency", &S::latency,
          "switching latency, first bit in to first bit out, header reception included "
          "(Ethernet 350-600 ns, InfiniBand 100-130 ns per switch)"),
      sim::choice_param<S>(
          "forwarding", &S::forwarding,
          "cut-through | store-and-forward; cut-through waits for the last bit "
          "when the egress is faster than the ingress",
          {{"cut-through", static_cast<int64_t>(Forwarding::CutThrough)},
           {"store-and-forward", static_cast<int64_t>(Forwarding::StoreAndForward)}}),
      sim::bytes_param<S>(
          "buffer", [](auto& s) -> auto& { return s.buffer.buffer_bytes; },
          "packet memory of the switch: reserves + PFC headroom pool + shared pool (the rest); a "
          "lossy packet that does not fit is tail-dropped",
          1),
      sim::choice_param<S>(
          "threshold_mode", [](auto& s) -> auto& { return s.buffer.threshold_mode; },
          "static | dynamic: a (port, priority)'s shared-pool threshold is fixed (fabric.pfc.xoff "
          "for lossless classes; lossy ones only by the pool and queue_limit) or alpha x free "
          "shared pool (Choudhury-Hahne dynamic threshold, Broadcom-style MMU)",
          {{"static", static_cast<int64_t>(ThresholdMode::Static)},
           {"dynamic", static_cast<int64_t>(ThresholdMode::Dynamic)}}),
      sim::bool_param<S>(
          "adaptive_routing", &S::adaptive_routing,
          "each packet leaves by the least loaded port (queued bytes of its class) among the "
          "equal-cost ports to its destination, instead of the per-flow hash; NICs then accept "
          "packets out of order (on InfiniBand: infiniband.adaptive_routing)"),
  };
  return t;
}

const sim::ParamTable<SwitchParams>& port_param_table() {
  using S = SwitchParams;
  static const sim::ParamTable<S> t = {
      sim::bytes_param<S>(
          "queue_limit", [](auto& s) -> auto& { return s.buffer.queue_limit_bytes; },
          "cap on one egress (port, priority) queue, 0 = only the shared buffer limits it"),
      sim::bytes_param<S>(
          "reserve", [](auto& s) -> auto& { return s.buffer.reserve_bytes; },
          "guaranteed bytes per (ingress port, priority), counted before the shared pool; set "
          "aside from the buffer for all 8 priorities unless overridden per priority"),
      sim::custom_param<S>(
          "alpha", "fraction", [](auto& s) -> auto& { return s.buffer.alpha; },
          "dynamic threshold factor: a (port, priority) may hold alpha x free shared pool "
          "(1/8 typical; docs/references.md, ns-3 HPCC); 1/1024..64"),
  };
  return t;
}

}  // namespace models
