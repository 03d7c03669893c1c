// Routing tables during convergence: after a link changes state, the switches at its ends
// know at once and route by the new tables, while the others still route by the old ones
// until the change has propagated. The mix of the two is what forwards packets meanwhile;
// a transient loop (A sends to B what B still sends back to A) lives only in it (Hu et al.,
// "Deadlocks in Datacenter Networks", HotNets 2016, on routing-loop deadlocks).
#pragma once

#include <vector>

#include "topologies/routing.hpp"

namespace topo {

// Rows of `fresh` for the nodes with use_fresh[node], of `stale` for the others.
RoutingTables mix_routes(const RoutingTables& stale, const RoutingTables& fresh,
                         const std::vector<bool>& use_fresh);

}  // namespace topo
