#include "scenarios/run/routing_results.hpp"

#include "scenarios/loader/routing_section.hpp"

namespace scen {

void add_routing_results(const Scenario& s, const models::Network& net, Json& res) {
  bool adaptive = false;
  uint64_t reroutes = 0, out_of_order = 0;
  for (const auto& sw : net.switches) {
    adaptive = adaptive || sw->adaptive_routing();
    reroutes += sw->stats().adaptive_reroutes;
  }
  for (const auto& nic : net.nics) out_of_order += nic->stats().out_of_order_received;
  res["routing"] = {{"algorithm", routing_name(s)},
                    {"adaptive", adaptive},
                    {"adaptive_reroutes", reroutes},
                    {"out_of_order_packets", out_of_order}};
}

}  // namespace scen
