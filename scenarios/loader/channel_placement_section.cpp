#include "scenarios/loader/channel_placement_section.hpp"

#include <algorithm>
#include <set>

#include "topologies/gpu_nodes.hpp"

namespace scen {
namespace {

// Server s's NICs by rail: the endpoint, the first GPU that uses it (the GPU on its PCIe
// switch, topo::gpu_nic_indices) and that GPU's NVLink endpoint.
models::ServerRails server_rails(const topo::Fabric& f, int s) {
  const topo::GpuCluster& g = f.topo.gpus;
  const int gpus = g.params.gpus;
  const int nics = static_cast<int>(g.server_nics[s].size());
  models::ServerRails out;
  for (int k = 0; k < nics; ++k) {
    int owner = 0;
    for (int local = gpus - 1; local >= 0; --local) {
      for (int nic : topo::gpu_nic_indices(local, gpus, nics)) {
        if (nic == k) owner = local;
      }
    }
    out.nic_endpoint.push_back(static_cast<uint32_t>(f.host_index[g.server_nics[s][k]]));
    out.nic_gpu.push_back(owner);
    out.nic_gpu_nvlink.push_back(
        static_cast<uint32_t>(f.host_index[g.nvlink_node[s * gpus + owner]]));
  }
  return out;
}

// NCCL's tuning model's view of these ranks: the GPU generation (from the preset; generic
// servers are taken as Hopper), the servers and ranks, the search graph from the servers'
// NVLink and NIC rates and the rails the ranks can use (every NIC of a server without one).
models::NcclTuning nccl_tuning(const topo::GpuCluster& g, const models::PlacementInput& in,
                               const models::CollectiveSpec& s) {
  models::NcclTuning t;
  t.enabled = true;
  const std::string& preset = g.params.preset;
  t.generation = preset == "dgx-a100"      ? models::GpuGeneration::Ampere
                 : preset == "gb200-nvl72" ? models::GpuGeneration::Blackwell
                                           : models::GpuGeneration::Hopper;
  std::set<int> servers(in.rank_server.begin(), in.rank_server.end());
  t.nodes = static_cast<int>(servers.size());
  t.ranks = s.ranks();
  const size_t usable = models::usable_rails(in).size();
  const int rails = usable > 0 ? static_cast<int>(usable) : g.params.nics;
  models::nccl_search_graph(t.generation, static_cast<double>(g.params.nvlink_rate_bps) / 8e9,
                            static_cast<double>(g.params.nic_rate_bps) / 8e9, rails, t.nodes,
                            t.graph_channels, t.graph_bw);
  t.comm_channels = s.channels;
  if (s.nvls_available || s.nvls_tree_available) {
    // NVLS's graph: the ranks of a server are its GPUs in NCCL's topology.
    models::nccl_nvls_graph(t.generation, static_cast<double>(g.params.nvlink_rate_bps) / 8e9,
                            t.ranks / t.nodes, static_cast<double>(g.params.nic_rate_bps) / 8e9,
                            rails, t.nodes, t.nvls_channels, t.nvls_bw_intra, t.nvls_bw_inter);
    t.nvls_tree = s.nvls_tree_available;
  }
  return t;
}

}  // namespace

void read_channel_placement(JsonReader& r, const topo::Fabric& f, models::CollectiveSpec& s) {
  const std::string placement = r.choice("channel_placement", {"nccl", "rank-order"}, "nccl");
  s.pxn = r.boolean("pxn", true);
  const std::string tuning = r.choice("tuning", {"nccl", "thresholds"}, "nccl");
  const std::string costs = r.choice("costs", {"nccl", "none"}, "nccl");
  bool gpu_ranks = !s.rank_server.empty();
  for (int server : s.rank_server) gpu_ranks = gpu_ranks && server >= 0;
  const bool auto_channels = s.channels == 0;
  if (auto_channels) s.channels = 1;
  if (!gpu_ranks) {
    if (r.has("tuning") && tuning == "nccl") {
      throw InputError(r.child_path("tuning"), r.value_text("tuning"),
                       "\"thresholds\": NCCL's tuning model needs GPU ranks (topology.nodes), and "
                       "these ranks include plain hosts");
    }
    for (const char* key : {"launch_scale", "step_scale"}) {
      if (r.has(key)) {
        throw InputError(r.child_path(key), r.value_text(key),
                         "no such key here: it scales NCCL's software costs, which need GPU "
                         "ranks (topology.nodes), and these ranks include plain hosts");
      }
    }
    if (r.has("costs") && costs == "nccl") {
      throw InputError(r.child_path("costs"), r.value_text("costs"),
                       "\"none\": NCCL's software costs need GPU ranks (topology.nodes), and "
                       "these ranks include plain hosts");
    }
    for (const char* key : {"channel_placement", "pxn"}) {
      if (r.has(key)) {
        throw InputError(r.child_path(key), r.value_text(key),
                         "no such key here: it places channels on GPU servers' NICs "
                         "(topology.nodes), and these ranks include plain hosts");
      }
    }
    return;
  }
  const topo::GpuCluster& g = f.topo.gpus;
  if (!g.params.gpudirect_rdma) s.staging_rate_bps = g.params.gpu_pcie_rate_bps;
  models::PlacementInput in;
  for (int server = 0; server < g.servers; ++server) in.servers.push_back(server_rails(f, server));
  std::vector<int> gpu_of_host(f.host_node.size(), -1);
  for (int gpu = 0; gpu < g.gpus(); ++gpu) gpu_of_host[f.host_index[g.nvlink_node[gpu]]] = gpu;
  for (size_t rank = 0; rank < s.rank_server.size(); ++rank) {
    in.rank_server.push_back(s.rank_server[rank]);
    in.rank_local_gpu.push_back(gpu_of_host[s.rank_nvlink[rank]] % g.params.gpus);
  }
  if (auto_channels) s.channels = std::max(1, models::nccl_ring_channels(in));
  in.channels = s.channels;
  in.pxn = s.pxn;
  s.tuning = nccl_tuning(g, in, s);
  s.tuning.enabled = tuning == "nccl";
  s.nccl_costs = costs == "nccl";
  if (!s.nccl_costs) {
    for (const char* key : {"launch_scale", "step_scale"}) {
      if (r.has(key)) {
        throw InputError(r.child_path(key), r.value_text(key),
                         "no such key with \"costs\": \"none\": it scales NCCL's software "
                         "costs");
      }
    }
  }
  if (placement != "nccl") return;
  s.ring_layouts = models::nccl_ring_layouts(in);
  s.tree_layouts = models::nccl_tree_layouts(in);
  s.server_rails = std::move(in.servers);
}

}  // namespace scen
