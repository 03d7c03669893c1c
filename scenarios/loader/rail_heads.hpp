// The rail heads of GPU ranks on several servers: per server and rail its NIC and the rank on
// the GPU next to it — the heads of NCCL's NVLS-tree and CollNet (nvls_section.cpp,
// collnet_section.cpp).
#pragma once

#include <string>
#include <vector>

#include "models/collectives/collective_spec.hpp"
#include "topologies/topology.hpp"

namespace scen {

// The servers of GPU ranks spanning two servers or more, with per rail its NIC and its head
// (the rank on the GPU next to the NIC, as NCCL's NVLS-tree and CollNet heads): why they
// cannot be had ("" when they can; `one_server` says what to use inside one server).
std::string rail_head_servers(const topo::Fabric& f, const models::CollectiveSpec& s,
                              const std::string& one_server,
                              std::vector<models::NvlsTreeServer>& out);

}  // namespace scen
