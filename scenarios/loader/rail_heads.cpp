#include "scenarios/loader/rail_heads.hpp"

#include <algorithm>
#include <map>

#include "topologies/gpu_nodes.hpp"

namespace scen {

std::string rail_head_servers(const topo::Fabric& f, const models::CollectiveSpec& s,
                              const std::string& one_server,
                              std::vector<models::NvlsTreeServer>& out) {
  const topo::GpuCluster& gpus = f.topo.gpus;
  std::map<int, std::vector<uint32_t>> ranks_of;
  for (size_t i = 0; i < s.rank_server.size(); ++i) {
    if (s.rank_server[i] < 0) {
      return "GPU ranks (rank " + s.rank_names[i] +
             " is a plain host; topology.nodes makes GPU servers)";
    }
    ranks_of[s.rank_server[i]].push_back(static_cast<uint32_t>(i));
  }
  if (ranks_of.size() < 2) return "ranks on at least two GPU servers (" + one_server + ")";
  out.clear();
  for (const auto& [server, ranks] : ranks_of) {
    models::NvlsTreeServer t;
    t.server = server;
    t.ranks = ranks;
    const int per = gpus.params.gpus;
    const int nics = static_cast<int>(gpus.server_nics[server].size());
    for (int k = 0; k < nics; ++k) {
      // The head of rail k: the first GPU (by local index) whose NIC it is
      // (topo::gpu_nic_indices).
      int owner = -1;
      for (int local = per - 1; local >= 0; --local) {
        for (int nic : topo::gpu_nic_indices(local, per, nics)) {
          if (nic == k) owner = local;
        }
      }
      const auto nvlink =
          static_cast<uint32_t>(f.host_index[gpus.nvlink_node[server * per + owner]]);
      const auto head = std::find_if(ranks.begin(), ranks.end(),
                                     [&](uint32_t r) { return s.rank_nvlink[r] == nvlink; });
      if (head == ranks.end()) {
        return "a rank on the GPU next to every NIC of its servers (GPU " + std::to_string(owner) +
               " of server " + std::to_string(server) + ", next to NIC " + std::to_string(k) +
               ", is not a rank: it heads that rail)";
      }
      t.nic.push_back(static_cast<uint32_t>(f.host_index[gpus.server_nics[server][k]]));
      t.head_rank.push_back(*head);
    }
    if (!out.empty() && t.nic.size() != out.front().nic.size()) {
      return "servers with as many NICs each";
    }
    out.push_back(std::move(t));
  }
  return "";
}

}  // namespace scen
