// Where each rank of a point-to-point workload (pipeline stages, Chakra send/receive) enters
// the fabric: a GPU's NVLink endpoint and its first NIC (the rail NIC next to it), a plain
// host itself.
#pragma once

#include <vector>

#include "models/workloads/gpu_endpoints.hpp"
#include "topologies/topology.hpp"

namespace scen {

// The endpoints of the ranks on `rank_nodes` (node indices: GPUs' NVLink endpoints or hosts),
// in that order, with the messages' traffic class.
models::GpuEndpoints rank_endpoints(const topo::Fabric& f, const std::vector<int>& rank_nodes,
                                    int priority, int dscp);

}  // namespace scen
