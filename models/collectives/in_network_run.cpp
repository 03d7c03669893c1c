// Algorithms whose reduction happens in a switch (models/sharp/sharp_allreduce.hpp): "sharp",
// one all-reduce iteration on an InfiniBand fabric's in-network reduction, each rank taking
// part through its first endpoint; and "nvls" (NVLink SHARP), one all-reduce of the GPUs of
// one server, reduced and multicast by the server's NVSwitch. NCCL's NVLS all-reduce (NVIDIA/nccl
// src/device/all_reduce.h, RunWorkElement<..., NCCL_ALGO_NVLS, NCCL_PROTO_SIMPLE>) has each
// GPU's data reduced in the switch (multimem.ld_reduce on the multicast address) and the
// result written back through the switch's multicast (multimem.st), chunk by chunk
// (NCCL_NVLS_CHUNKSIZE, 128 KiB); a GPU's NVLink carries about S up and S down, where a ring
// carries 2(G-1)/G·S each way. That is the SHARP data flow on a one-level tree whose
// aggregation node is the NVSwitch, so both run on SharpAllReduce: the group (and its tree) is
// the ranks' hosts (NVLink endpoints for NVLS), built once; NVLS's parameters are the server's
// (reduction rate and latency, topologies/gpu_nodes.hpp) and the collective's (chunk, window).
#include <algorithm>
#include <stdexcept>

#include "models/collectives/collective_runner.hpp"
#include "models/collectives/nccl_chunking.hpp"
#include "models/sharp/sharp_allreduce.hpp"
#include "sim/event_arg.hpp"

namespace models {

uint32_t CollectiveRunner::sharp_group() {
  if (sharp_ == nullptr || spec_.op != CollectiveOp::AllReduce) {
    throw std::logic_error(
        "collective algorithm sharp needs an all-reduce on an InfiniBand fabric");
  }
  std::vector<uint32_t> hosts;
  hosts.reserve(spec_.rank_endpoints.size());
  for (const auto& ends : spec_.rank_endpoints) hosts.push_back(ends.front());
  return sharp_->group(hosts, static_cast<uint8_t>(spec_.priority));
}

uint32_t CollectiveRunner::nvls_group() {
  if (sharp_ == nullptr || !spec_.nvls_available || spec_.op != CollectiveOp::AllReduce) {
    throw std::logic_error(
        "collective algorithm nvls needs an all-reduce of the GPUs of one server with NVLS");
  }
  std::vector<uint32_t> hosts(spec_.rank_nvlink.begin(), spec_.rank_nvlink.end());
  return sharp_->group(hosts, static_cast<uint8_t>(spec_.priority), spec_.nvls);
}

void CollectiveRunner::prepare_in_network(int64_t size) {
  if (sharp_ == nullptr || spec_.op != CollectiveOp::AllReduce) return;
  const CollectiveAlgorithm a = resolve_algorithm(spec_, size);
  if (a == CollectiveAlgorithm::Sharp) (void)sharp_group();
  if (a == CollectiveAlgorithm::Nvls && spec_.nvls_available) (void)nvls_group();
}

void CollectiveRunner::run_sharp(int64_t size) {
  run_in_network(size, sharp_group(), /*nvlink=*/false);
}

void CollectiveRunner::run_nvls(int64_t size) {
  const uint32_t group = nvls_group();
  // NCCL's chunk for the call unless the collective sets one (nccl_chunking.hpp).
  const int64_t chunk = nccl_nvls_call_chunk(spec_, CollectiveAlgorithm::Nvls, size);
  current_.chunk_bytes = chunk > 0 ? chunk : spec_.nvls.chunk_bytes;
  run_in_network(size, group, /*nvlink=*/true, chunk);
}

void CollectiveRunner::run_in_network(int64_t size, uint32_t group, bool nvlink,
                                      int64_t chunk_bytes) {
  protocol_ = CollectiveProtocol::Simple;  // NCCL runs NVLS and CollNet with Simple only
  current_.protocol = CollectiveProtocol::Simple;
  iteration_start_ = ctx_.sim.now();
  begin_timeline();
  sharp_->start(
      group, size,
      [this, group, nvlink] {
        // The last host's result ends the call: in a split run, found where that host is, maybe
        // before another partition's host got its own (each noted when).
        note_group_done_times(group);
        std::vector<uint32_t> ranks(sharp_->counters(group).size());
        for (size_t r = 0; r < ranks.size(); ++r) ranks[r] = static_cast<uint32_t>(r);
        add_in_network_counters(group, ranks, nvlink);
        finish_iteration();
      },
      {}, chunk_bytes, over_processes_);
  if (!over_processes_) return;
  // The group's hosts are the ranks', in rank order.
  std::vector<uint32_t> ranks(agents_.size());
  for (uint32_t r = 0; r < ranks.size(); ++r) ranks[r] = r;
  start_in_network_hosts(group, ranks);
}

// Over processes each host starts where it is, first among the events of its time there (as a
// schedule call's ranks launch: rank_calls.cpp, launch_ranks_here).
void CollectiveRunner::start_in_network_hosts(uint32_t group, const std::vector<uint32_t>& ranks) {
  const sim::Time now = ctx_.sim.now();
  for (uint32_t i = 0; i < ranks.size(); ++i) {
    RankAgent& a = agent(ranks[i]);
    if (!ctx_.sim.is_local(a.partition())) continue;
    ctx_.sim.at(sim::Scheduler::take_first_place_for(now, a), &a, kInNetworkStart,
                sim::pack_arg(group, i));
  }
}

void CollectiveRunner::start_in_network_host(uint32_t group, uint32_t position) {
  sharp_->start_host(group, position);
}

void CollectiveRunner::note_group_done_times(uint32_t group) {
  Tally& t = tally_.local();
  for (const SharpHostCounters& k : sharp_->counters(group)) t.latest = std::max(t.latest, k.done);
}

void CollectiveRunner::add_in_network_counters(uint32_t group, const std::vector<uint32_t>& ranks,
                                               bool nvlink) {
  const auto& counters = sharp_->counters(group);
  for (size_t i = 0; i < counters.size(); ++i) {
    current_.rank_data_sent[ranks[i]] += counters[i].data_sent;
    current_.rank_data_received[ranks[i]] += counters[i].data_received;
    current_.wire_bytes += counters[i].data_sent;
    (nvlink ? current_.nvlink_bytes : current_.network_bytes) += counters[i].data_sent;
  }
  // A "message" is a chunk a host sends (its result comes back as one too).
  current_.messages += static_cast<uint64_t>(sharp_->chunks(group).chunks()) * counters.size();
}

}  // namespace models
