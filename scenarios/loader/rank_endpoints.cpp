#include "scenarios/loader/rank_endpoints.hpp"

namespace scen {

models::GpuEndpoints rank_endpoints(const topo::Fabric& f, const std::vector<int>& rank_nodes,
                                    int priority, int dscp) {
  const topo::GpuCluster& gpus = f.topo.gpus;
  std::vector<int> gpu_of_node(f.topo.nodes.size(), -1);
  for (int g = 0; g < gpus.gpus(); ++g) gpu_of_node[gpus.nvlink_node[g]] = g;
  models::GpuEndpoints e;
  for (int node : rank_nodes) {
    const int g = gpu_of_node[node];
    const auto host = static_cast<uint32_t>(f.host_index[node]);
    if (g >= 0) {
      e.add(static_cast<uint32_t>(f.host_index[gpus.nic_nodes[g].front()]), host,
            gpus.server_of(g));
    } else {
      e.add(host, host, -1);
    }
  }
  e.priority = priority;
  e.dscp = dscp;
  return e;
}

}  // namespace scen
