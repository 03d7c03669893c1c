// Topology generators. Hosts come first in node order (h0..hN-1), then switches, so host
// number == node index for generated fabrics. Every generator validates its parameters and
// throws TopologyError with the parameter name as path.
//
// Names, tiers and groups (Node::group):
//   leaf-spine  hosts "h<i>" (group = leaf), "leaf<i>" (tier 1, group = i), "spine<j>" (tier 2)
//   fat-tree    hosts "h<i>" (group = pod), "edge<pod>_<i>" (1), "agg<pod>_<i>" (2),
//               "core<i>" (3); switches have radix k; edge/agg/tor switches have group = pod
//   clos3       hosts "h<i>" (group = pod), "tor<pod>_<i>" (1), "agg<pod>_<i>" (2), "core<i>" (3)
//   rail        hosts "n<server>r<rail>" (group = rail; host number = server*rails + rail),
//               "rail<r>_leaf<i>" (1, group = r), "spine<j>" (2)
// Switches that belong to no group have group -1. Links come host links first (host order),
// then tier by tier upwards.
#pragma once

#include <cstdint>

#include "topologies/topology.hpp"

namespace topo {

// Two tiers: every leaf connects to every spine with `uplinks_per_pair` parallel links.
// Oversubscription = hosts_per_leaf*host_rate / (spines*uplinks_per_pair*fabric_rate).
struct LeafSpineParams {
  int leaves = 4;
  int spines = 2;
  int hosts_per_leaf = 4;
  int uplinks_per_pair = 1;
  int64_t host_rate_bps = 100'000'000'000;
  int64_t fabric_rate_bps = 100'000'000'000;
  int64_t host_latency_ps = 1'000'000;
  int64_t fabric_latency_ps = 1'000'000;
};
Topology make_leaf_spine(const LeafSpineParams& p);

// Three-tier k-ary fat-tree (Al-Fares et al., SIGCOMM 2008): k pods of k/2 edge and k/2
// aggregation switches, (k/2)^2 cores, k^3/4 hosts. k even, >= 2.
struct FatTreeParams {
  int k = 4;
  int64_t rate_bps = 100'000'000'000;
  int64_t latency_ps = 1'000'000;
};
Topology make_fat_tree(const FatTreeParams& p);

// General three-tier Clos: pods of ToRs and aggregation switches (full bipartite inside a
// pod); aggregation switch j of every pod connects to cores j*(cores/aggs_per_pod) ..
// (j+1)*(cores/aggs_per_pod)-1 (cores must be a multiple of aggs_per_pod). This is the
// layout of the ns-3 HPCC peer's fat.txt (5 pods, 4 ToRs, 4 aggs, 16 cores, 16 hosts/ToR).
struct ClosParams {
  int pods = 5;
  int tors_per_pod = 4;
  int aggs_per_pod = 4;
  int cores = 16;
  int hosts_per_tor = 16;
  int64_t host_rate_bps = 100'000'000'000;
  int64_t tor_agg_rate_bps = 400'000'000'000;
  int64_t agg_core_rate_bps = 400'000'000'000;
  int64_t latency_ps = 1'000'000;
};
Topology make_clos3(const ClosParams& p);

// Rail-optimised GPU cluster: `nodes` servers with `rails` NICs each; NIC r of every server
// connects to a leaf of rail group r (nodes_per_leaf servers per leaf); every leaf connects
// to every spine. Host endpoints are named "n<node>r<rail>" and numbered node-major.
struct RailParams {
  int nodes = 4;
  int rails = 8;
  int nodes_per_leaf = 32;
  int spines = 8;
  int uplinks_per_pair = 1;
  int64_t host_rate_bps = 400'000'000'000;
  int64_t fabric_rate_bps = 400'000'000'000;
  int64_t host_latency_ps = 1'000'000;
  int64_t fabric_latency_ps = 1'000'000;
};
Topology make_rail(const RailParams& p);

}  // namespace topo
