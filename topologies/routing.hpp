// Routing tables as pure data: all shortest paths as ECMP next-hop port sets, per destination
// host, for every node; recomputed on link failures. Hosts never forward (no transit hosts).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "topologies/topology.hpp"

namespace topo {

// No port: a linear forwarding table's entry for an unreachable destination.
inline constexpr uint16_t kNoPort = 0xffff;

struct RoutingTables {
  int num_hosts = 0;
  // next_hops(node, dst_host): ports of `node` on a shortest path to host `dst_host`;
  // empty when unreachable or node is the destination itself.
  std::span<const uint16_t> next_hops(int node, int dst_host) const {
    const PortSet& s = sets[set_of[static_cast<size_t>(node) * num_hosts + dst_host]];
    return {ports.data() + s.offset, s.count};
  }
  // distance in hops from node to host (links traversed); -1 if unreachable
  std::vector<int32_t> distance;  // [node * num_hosts + host]
  // Next-hop sets are deduplicated: a fabric has few distinct ones (a leaf's uplinks, one
  // down port each), so the per-packet lookup touches one 4-byte entry plus a small table that
  // stays in cache.
  struct PortSet {
    uint32_t offset = 0;
    uint32_t count = 0;
  };
  std::vector<uint32_t> set_of;  // [node * num_hosts + host] -> index into sets
  std::vector<PortSet> sets;     // sets[0] is the empty set
  std::vector<uint16_t> ports;
  // Linear forwarding tables (topologies/forwarding_tables.hpp): when not empty, the one port
  // a subnet manager programmed for (node, host), kNoPort for none. Static forwarding then
  // uses it instead of a per-flow hash over next_hops (which adaptive routing chooses among).
  std::vector<uint16_t> lft;  // [node * num_hosts + host]
};

// link_up[i] == false removes links[i]; empty vector = all up.
RoutingTables compute_routes(const Fabric& f, const std::vector<bool>& link_up = {});

// Deterministic ECMP choice among `n` next hops from flow identifiers; a different `seed`
// gives a different (but fixed) choice, so ECMP collisions change with the run's seed.
// Pick with next_hops[ecmp_hash(...) % n]; the hash is uniform over 32 bits.
uint32_t ecmp_hash(uint64_t seed, uint32_t switch_node, uint32_t src_host, uint32_t dst_host,
                   uint16_t udp_sport);

// splitmix64's finaliser (Steele, Lea, Flood, "Fast splittable pseudorandom number
// generators", OOPSLA 2014; constants from Stafford's "Mix13"): every input bit affects every
// output bit, and it is plain integer arithmetic, so it is the same on every machine.
constexpr uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
// ecmp_hash in two parts, for a switch that hashes every packet: the seed's part, mixed on its
// own first so that changing the seed reshuffles every choice rather than relabelling sources
// (computed once), and the packet's, inlined. The switch is part of the key so that consecutive
// tiers choose independently (no hash polarisation).
// ecmp_hash(seed, ...) == ecmp_hash_keyed(ecmp_seed_key(seed), ...).
constexpr uint64_t ecmp_seed_key(uint64_t seed) {
  return mix64(seed + 0x9e3779b97f4a7c15ULL);
}
constexpr uint32_t ecmp_hash_keyed(uint64_t seed_key, uint32_t switch_node, uint32_t src_host,
                                   uint32_t dst_host, uint16_t udp_sport) {
  uint64_t h = mix64(seed_key ^ ((uint64_t{switch_node} << 32) | src_host));
  h = mix64(h ^ ((uint64_t{dst_host} << 16) | udp_sport));
  return static_cast<uint32_t>(h >> 32);
}

// Number of distinct shortest paths from src_host to dst_host through the ECMP next hops
// (parallel links count separately); 0 if unreachable, 1 if src_host == dst_host. Saturates
// at INT_MAX.
int count_shortest_paths(const Fabric& f, const RoutingTables& rt, int src_host, int dst_host);

}  // namespace topo
