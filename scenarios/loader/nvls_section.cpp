#include "scenarios/loader/nvls_section.hpp"

#include <algorithm>
#include <map>
#include <string>

#include "models/collectives/nccl_chunking.hpp"
#include "scenarios/loader/rail_heads.hpp"
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

}  // namespace scen
