#include "scenarios/loader/nvls_section.hpp"

#include <algorithm>
#include <map>
#include <string>

#include "models/collectives/nccl_chunking.hpp"
#include "topologies/gpu_nodes.hpp"

namespace scen {

namespace {

// The NVSwitch's side of an NVLS or NVLS-tree group: its reduction rate and latency, and the
// chunk (the collective's "chunk", else NCCL_NVLS_CHUNKSIZE's 128 KiB, src/transport/nvls.cc).
// The window is set by the caller.
models::SharpParams nvswitch_params(const topo::GpuCluster& gpus, const models::CollectiveSpec& s) {
  models::SharpParams p;
  p.reduction_rate_bps = gpus.params.nvls_reduction_rate_bps;
  p.latency = sim::Time(gpus.params.nvls_latency_ps);
  p.chunk_cost = sim::Time(gpus.params.nvls_chunk_cost_ps);
  p.chunk_bytes = s.chunk_bytes > 0 ? s.chunk_bytes : models::kNcclNvlsChunk;
  return p;
}

// The servers of GPU ranks spanning two servers or more, with per rail its NIC and its head
// (the rank on the GPU next to the NIC, as NCCL's NVLS-tree and CollNet heads): why they
// cannot be had ("" when they can; `one_server` says what to use inside one server).
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

// NVLS-tree: why it does not exist for these ranks ("" when it does); fills
// s.nvls_tree_servers when it does.
std::string nvls_tree_servers(const topo::Fabric& f, models::CollectiveSpec& s) {
  const topo::GpuCluster& gpus = f.topo.gpus;
  std::vector<models::NvlsTreeServer> out;
  const std::string why = rail_head_servers(
      f, s, "inside one server use nvls: NCCL runs NVLS_TREE only across servers", out);
  if (!why.empty()) return why;
  if (!gpus.nvls()) {
    return "servers whose NVSwitch reduces (NVLS: topology.nodes.nvls_reduction_rate is 0 for "
           "preset " +
           gpus.params.preset + ")";
  }
  for (const models::NvlsTreeServer& t : out) {
    // NCCL enables NVLS only with more than two GPUs (src/transport/nvls.cc).
    if (t.ranks.size() < 3) {
      return "more than two ranks on every server (server " + std::to_string(t.server) + " has " +
             std::to_string(t.ranks.size()) + "; NCCL needs more than two GPUs for NVLS)";
    }
  }
  s.nvls_tree_servers = std::move(out);
  return "";
}

}  // namespace

void read_nvls(JsonReader& r, const topo::Fabric& f, models::CollectiveSpec& s) {
  if (s.algorithm == models::CollectiveAlgorithm::NvlsTree) {
    const std::string why = nvls_tree_servers(f, s);
    if (!why.empty()) throw InputError(r.child_path("algorithm"), "\"nvls_tree\"", why);
    if (s.protocol != models::CollectiveProtocol::Simple) {
      throw InputError(r.child_path("protocol"), r.value_text("protocol"),
                       "\"simple\" with algorithm nvls_tree (NCCL runs NVLS_TREE with Simple "
                       "only)");
    }
    s.nvls_tree_available = true;
    s.nvls_tree = nvswitch_params(f.topo.gpus, s);
    // The window (channels x slots) is set with the channels (collective_section.cpp).
    return;
  }
  const topo::GpuCluster& gpus = f.topo.gpus;
  if (s.algorithm == models::CollectiveAlgorithm::Auto && nvls_tree_servers(f, s).empty()) {
    // `auto` may pick NVLS-tree (NCCL's tuning model), on NCCL's 16 NVLS channels.
    s.nvls_tree_available = true;
    s.nvls_tree = nvswitch_params(gpus, s);
    s.nvls_tree.max_outstanding_chunks = models::kNcclNvlsChannels * s.slots;
    return;
  }
  const bool asked = s.algorithm == models::CollectiveAlgorithm::Nvls;
  // Why NVLS does not exist for these ranks ("" when it does).
  std::string why;
  for (size_t i = 0; i < s.rank_server.size() && why.empty(); ++i) {
    if (s.rank_server[i] < 0) {
      why = "GPU ranks of one server (rank " + s.rank_names[i] +
            " is a plain host; topology.nodes makes GPU servers)";
    } else if (s.rank_server[i] != s.rank_server.front()) {
      why = "ranks inside one GPU server: the NVSwitch reduces its own GPUs' data (ranks " +
            s.rank_names.front() + " and " + s.rank_names[i] +
            " are on different servers; across servers use hierarchical, ring or "
            "double_binary_tree)";
    }
  }
  if (why.empty() && !gpus.nvls()) {
    why =
        "a server whose NVSwitch reduces (NVLS: topology.nodes.nvls_reduction_rate is 0 for "
        "preset " +
        gpus.params.preset + "; dgx-h100 has it, dgx-a100's NVSwitch does not)";
  }
  if (!why.empty()) {
    if (asked) throw InputError(r.child_path("algorithm"), "\"nvls\"", why);
    return;
  }
  if (asked && s.protocol != models::CollectiveProtocol::Simple) {
    throw InputError(r.child_path("protocol"), r.value_text("protocol"),
                     "\"simple\" with algorithm nvls (NCCL runs NVLS with Simple only; the "
                     "NVSwitch reduces the data itself)");
  }
  s.nvls_available = true;
  s.nvls = nvswitch_params(gpus, s);
  // NCCL's 16 NVLS channels, each with `slots` chunks in flight.
  s.nvls.max_outstanding_chunks = models::kNcclNvlsChannels * s.slots;
}

void read_collnet(JsonReader& r, const topo::Fabric& f, models::CollectiveSpec& s) {
  const bool direct = s.algorithm == models::CollectiveAlgorithm::CollNetDirect;
  if (!direct && s.algorithm != models::CollectiveAlgorithm::CollNetChain) return;
  const std::string name = direct ? "\"collnet_direct\"" : "\"collnet_chain\"";
  std::vector<models::NvlsTreeServer> out;
  std::string why = rail_head_servers(
      f, s, "CollNet joins servers through SHARP; inside one server use nvls or ring", out);
  for (size_t i = 0; why.empty() && i < out.size(); ++i) {
    // NCCL_MAX_DIRECT_ARITY + 1 (src/include/device.h); NCCL disables CollNet beyond.
    if (out[i].ranks.size() > 8) {
      why = "at most 8 ranks on every server (server " + std::to_string(out[i].server) + " has " +
            std::to_string(out[i].ranks.size()) + "; NCCL runs CollNet with up to 8 local GPUs)";
    } else if (i > 0 && out[i].ranks.size() != out[0].ranks.size()) {
      why = "as many ranks on every server";
    }
  }
  if (!why.empty()) throw InputError(r.child_path("algorithm"), name, why);
  if (s.protocol != models::CollectiveProtocol::Simple) {
    throw InputError(r.child_path("protocol"), r.value_text("protocol"),
                     "\"simple\" with algorithm " + name.substr(1, name.size() - 2) +
                         " (NCCL runs CollNet with Simple only; the switches reduce the data)");
  }
  s.collnet_available = true;
  s.collnet_servers = std::move(out);
}

}  // namespace scen
