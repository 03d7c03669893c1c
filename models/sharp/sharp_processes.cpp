// In-network all-reduces (SHARP's and NVLS's) in a run over several processes
// (sharp_allreduce.hpp, run_over_processes). Every process starts each all-reduce — it is
// asked for at a boundary event, which every process runs — but each host sends by an event of
// its own partition (start_host: what a boundary event pushes for another process's handler is
// left out, for that process pushes it too), and its NIC takes its results; the aggregation nodes'
// engines run where their switches are, their packets crossing processes as any other. What a run
// of one process counts in shared memory — the hosts that have the whole result — the processes
// tell each other between windows: each host's end with its counters, where that host is. Every
// process then ends the all-reduce once it has learnt of every host's end, at the boundary after
// the window of the last one, in the order the ends were told (the same in every process); the
// call's end is the hosts' latest (collectives/in_network_run.cpp), not the boundary's time.
#include <stdexcept>
#include <string>

#include "models/sharp/sharp_allreduce.hpp"
#include "sim/partition_lists.hpp"

namespace models {

void SharpAllReduce::run_over_processes() {
  hosts_done_told_.resize(ctx_.sim.partitions());
}

void SharpAllReduce::start_host(uint32_t group, size_t i) {
  send_ready_chunks(*groups_.at(group), group, i);
}

void SharpAllReduce::pack_share(sim::Bytes& out) {
  sim::pack_partition_lists(ctx_.sim, hosts_done_told_, out);
}

void SharpAllReduce::take_share(sim::ByteReader& in, uint32_t rank) {
  const bool own = rank == ctx_.sim.ranks()->rank();
  const auto count = in.get<uint64_t>();
  for (uint64_t n = 0; n < count; ++n) {
    const auto d = in.get<HostDone>();
    if (d.group >= groups_.size() || d.index >= groups_[d.group]->hosts.size() ||
        !groups_[d.group]->done || !groups_[d.group]->over_processes) {
      throw std::runtime_error("rank " + std::to_string(rank) + " told of host " +
                               std::to_string(d.index) + " of in-network group " +
                               std::to_string(d.group) + " that runs no all-reduce here");
    }
    Group& g = *groups_[d.group];
    if (!own) g.counters[d.index] = d.counters;  // the host's process counted them
    if (g.hosts_done.fetch_add(1, std::memory_order_relaxed) + 1 == g.hosts.size()) {
      groups_ended_.push_back(d.group);
    }
  }
}

void SharpAllReduce::shares_taken() {
  std::vector<uint32_t> ended;
  ended.swap(groups_ended_);
  for (const uint32_t group : ended) end_all_reduce(*groups_[group]);
}

bool SharpAllReduce::share_pending() const {
  return !groups_ended_.empty() || sim::partition_lists_pending(ctx_.sim, hosts_done_told_);
}

}  // namespace models
