#include "scenarios/loader/nvls_section.hpp"

#include <string>

#include "topologies/gpu_nodes.hpp"

namespace scen {

void read_nvls(JsonReader& r, const topo::Fabric& f, models::CollectiveSpec& s) {
  const topo::GpuCluster& gpus = f.topo.gpus;
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
  s.nvls.reduction_rate_bps = gpus.params.nvls_reduction_rate_bps;
  s.nvls.latency = sim::Time(gpus.params.nvls_latency_ps);
  // NCCL_NVLS_CHUNKSIZE: 128 KiB (NVIDIA/nccl src/transport/nvls.cc), unless the collective
  // sets its chunk; the window is its slots (NCCL_STEPS).
  s.nvls.chunk_bytes = s.chunk_bytes > 0 ? s.chunk_bytes : 128 * 1024;
  s.nvls.max_outstanding_chunks = s.slots;
}

}  // namespace scen
