// Algorithm "nvls" (NVLink SHARP): one all-reduce iteration of the GPUs of one server, reduced
// and multicast by the server's NVSwitch. NCCL's NVLS all-reduce (NVIDIA/nccl
// src/device/all_reduce.h, RunWorkElement<..., NCCL_ALGO_NVLS, NCCL_PROTO_SIMPLE>) has each
// GPU's data reduced in the switch (multimem.ld_reduce on the multicast address) and the
// result written back through the switch's multicast (multimem.st), chunk by chunk
// (NCCL_NVLS_CHUNKSIZE, 128 KiB); a GPU's NVLink carries about S up and S down, where a ring
// carries 2(G-1)/G·S each way. That is the SHARP data flow on a one-level tree whose
// aggregation node is the NVSwitch, so it runs on SharpAllReduce (models/sharp/): each rank
// takes part through its NVLink endpoint, the group's parameters are the server's (reduction
// rate and latency, topologies/gpu_nodes.hpp) and the collective's (chunk, window).
#include <stdexcept>

#include "models/collectives/collective_runner.hpp"
#include "models/sharp/sharp_allreduce.hpp"

namespace models {

void CollectiveRunner::run_nvls(int64_t size) {
  if (sharp_ == nullptr || !spec_.nvls_available || spec_.op != CollectiveOp::AllReduce) {
    throw std::logic_error(
        "collective algorithm nvls needs an all-reduce of the GPUs of one server with NVLS");
  }
  std::vector<uint32_t> hosts(spec_.rank_nvlink.begin(), spec_.rank_nvlink.end());
  const uint32_t group = sharp_->group(hosts, static_cast<uint8_t>(spec_.priority), spec_.nvls);
  protocol_ = CollectiveProtocol::Simple;  // NCCL runs NVLS with Simple only (tuning.cc)
  current_.protocol = CollectiveProtocol::Simple;
  iteration_start_ = ctx_.sim.now();
  begin_timeline(0);
  sharp_->start(group, size, [this, group] {
    if (timeline_) timeline_->all_ranks_until(ctx_.sim.now());
    const auto& counters = sharp_->counters(group);
    for (size_t r = 0; r < counters.size(); ++r) {
      current_.rank_data_sent[r] += counters[r].data_sent;
      current_.rank_data_received[r] += counters[r].data_received;
      current_.wire_bytes += counters[r].data_sent;
      current_.nvlink_bytes += counters[r].data_sent;  // all of it over NVLink
    }
    // A "message" is a chunk a GPU pushes (its result comes back as one too).
    current_.messages += static_cast<uint64_t>(sharp_->chunks(group).chunks()) * counters.size();
    finish_iteration();
  });
}

}  // namespace models
