// How a fabric is split into partitions for a run on several threads (issue "Speed", the
// threads): each partition runs its nodes' events in its own event list, and partitions meet
// only across links, whose latency is the lookahead — the simulated time one partition may run
// ahead of another without missing an event from it. A partition's nodes are whole units: a GPU
// server's NVLink domain and NICs stay together (they share the server's PCIe and NVLink, not
// only links). Pure data: the run decides what to do with it (ARCHITECTURE.md, "The event
// order").
#pragma once

#include <cstdint>
#include <vector>

#include "topologies/topology.hpp"

namespace topo {

struct Partitioning {
  int count = 1;               // partitions made (at most the number asked for)
  std::vector<int> partition;  // [node] its partition, 0 .. count - 1
  std::vector<int64_t> load;   // [partition] its nodes' ports (a proxy for their events)
  // The smallest latency of a link between two partitions (ps); with one partition, the
  // largest link latency (nothing crosses).
  int64_t lookahead_ps = 0;
};

// Splits `f` into at most `wanted` partitions of balanced load (no partition above 1.25 times
// the mean when the units allow it), cutting only the links of the largest latency that allows
// it, so the lookahead is as long as balance permits; fewer partitions when the fabric has fewer
// units. The same fabric and `wanted` give the same partitioning.
Partitioning partition_fabric(const Fabric& f, int wanted);

// A run over `ranks` processes (ranks <= p.count): the rank of each partition — blocks of
// neighbouring partitions (partition_fabric numbers them by locality) of about equal load, each
// rank at least one partition. (Equal counts instead would give, on a fabric of a few GPU
// servers, one process every server and the other the switches.)
std::vector<uint32_t> ranks_of_partitions(const Partitioning& p, int ranks);

}  // namespace topo
