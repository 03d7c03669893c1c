// What a model's partitions note during the windows for every process of a run over several to
// learn (a sim::RankShare's usual pack): a list per partition, written by that partition's
// events only, packed by the process that runs it — the count, then the values, partition by
// partition — and emptied.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/rank_exchange.hpp"
#include "sim/simulator.hpp"

namespace sim {

template <class T>
void pack_partition_lists(const Simulator& sim, std::vector<std::vector<T>>& lists, Bytes& out) {
  uint64_t count = 0;
  for (uint32_t p = 0; p < lists.size(); ++p) {
    if (sim.is_local(p)) count += lists[p].size();
  }
  put_bytes(out, count);
  for (uint32_t p = 0; p < lists.size(); ++p) {
    if (!sim.is_local(p)) continue;
    for (const T& v : lists[p]) put_bytes(out, v);
    lists[p].clear();
  }
}

// Something of this process's partitions waits to be packed.
template <class T>
bool partition_lists_pending(const Simulator& sim, const std::vector<std::vector<T>>& lists) {
  for (uint32_t p = 0; p < lists.size(); ++p) {
    if (sim.is_local(p) && !lists[p].empty()) return true;
  }
  return false;
}

}  // namespace sim
