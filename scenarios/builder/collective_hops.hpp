// The hardware part of a collective's step: how long a minimal message takes, unloaded,
// between two GPUs of a server (NVLink) and between two servers' NICs. NCCL's per-step
// latencies include it, so the runner charges only the rest as software time
// (CollectiveSpec::nccl_costs).
#pragma once

#include "models/collectives/collective_spec.hpp"
#include "models/network.hpp"
#include "scenarios/loader/scenario.hpp"

namespace scen {

// Sets c.nvlink_hop and c.network_hop from the built network (zero where the ranks have no
// such pair) when c.nccl_costs.
void set_collective_hop_times(const Scenario& s, const models::Network& net,
                              models::CollectiveSpec& c);

}  // namespace scen
