// What a run reports of its routing: the algorithm, whether switches routed adaptively, how
// many packets adaptive routing sent off their static port, and how many data packets reached
// their receiver out of order (0 whenever every QP's packets follow one path).
#pragma once

#include "models/network.hpp"
#include "scenarios/loader/scenario.hpp"

namespace scen {

// res["routing"] = {algorithm, adaptive, adaptive_reroutes, out_of_order_packets}.
void add_routing_results(const Scenario& s, const models::Network& net, Json& res);

}  // namespace scen
