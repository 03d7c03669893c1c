// Shortest-path ECMP routing tables, one breadth-first search per destination host.
#include "topologies/routing.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace topo {
namespace {

// One usable port: where it leads. Built once so the per-destination loops touch flat arrays.
struct Adjacency {
  std::vector<uint32_t> begin;  // [node] -> first entry in port/peer, size nodes + 1
  std::vector<uint16_t> port;
  std::vector<int32_t> peer;
};

Adjacency up_adjacency(const Fabric& f, const std::vector<bool>& link_up) {
  Adjacency adj;
  const int num_nodes = static_cast<int>(f.ports.size());
  adj.begin.reserve(num_nodes + 1);
  for (int n = 0; n < num_nodes; ++n) {
    adj.begin.push_back(static_cast<uint32_t>(adj.port.size()));
    for (int p = 0; p < static_cast<int>(f.ports[n].size()); ++p) {
      const PortRef& ref = f.ports[n][p];
      if (ref.link < 0) continue;  // unused index between explicit ports
      if (!link_up.empty() && !link_up[ref.link]) continue;
      adj.port.push_back(static_cast<uint16_t>(p));
      adj.peer.push_back(ref.peer_node);
    }
  }
  adj.begin.push_back(static_cast<uint32_t>(adj.port.size()));
  return adj;
}

}  // namespace

RoutingTables compute_routes(const Fabric& f, const std::vector<bool>& link_up) {
  if (!link_up.empty() && link_up.size() != f.topo.links.size()) {
    throw TopologyError("link_up", "link_up has " + std::to_string(link_up.size()) +
                                       " entries, expected one per link (" +
                                       std::to_string(f.topo.links.size()) + ") or none");
  }
  const int num_nodes = static_cast<int>(f.ports.size());
  const int num_hosts = static_cast<int>(f.host_node.size());
  const uint64_t entries = static_cast<uint64_t>(num_nodes) * num_hosts;
  if (entries >= std::numeric_limits<uint32_t>::max()) {
    throw TopologyError("nodes", std::to_string(num_nodes) + " nodes x " +
                                     std::to_string(num_hosts) +
                                     " hosts is too large for the routing tables (limit 2^32 "
                                     "entries)");
  }
  const Adjacency adj = up_adjacency(f, link_up);
  auto is_host = [&](int node) { return f.host_index[node] >= 0; };

  RoutingTables rt;
  rt.num_hosts = num_hosts;
  rt.distance.assign(entries, -1);

  // Distances: BFS outwards from each destination. A host other than the destination gets a
  // distance (it can be a source) but is never expanded, so no path transits a host. The
  // search runs on one contiguous column (the table's layout puts a destination's distances
  // num_hosts entries apart: a cache miss per visit) and is copied out at the end.
  std::vector<int32_t> queue(num_nodes);
  std::vector<int32_t> column(num_nodes);
  for (int dst = 0; dst < num_hosts; ++dst) {
    std::fill(column.begin(), column.end(), -1);
    const int dst_node = f.host_node[dst];
    size_t head = 0, tail = 0;
    queue[tail++] = dst_node;
    column[dst_node] = 0;
    while (head < tail) {
      const int node = queue[head++];
      if (node != dst_node && is_host(node)) continue;
      const int32_t next = column[node] + 1;
      for (uint32_t e = adj.begin[node]; e < adj.begin[node + 1]; ++e) {
        const int peer = adj.peer[e];
        if (column[peer] != -1) continue;
        column[peer] = next;
        queue[tail++] = peer;
      }
    }
    for (int node = 0; node < num_nodes; ++node) {
      rt.distance[size_t(node) * num_hosts + dst] = column[node];
    }
  }

  // Next hops: every up port whose peer is one hop closer and may forward (a switch) or is
  // the destination itself; identical port lists share one set. Port by port, the comparison
  // with the peer's distances runs over all destinations at once (two contiguous rows; the
  // compiler vectorises it) into a bit mask per destination — 64 ports a word — and the
  // masks then become port lists. Neighbouring destinations (hosts under one leaf) mostly
  // share a mask, so most lists come from the previous destination's without a map lookup.
  rt.set_of.assign(entries, 0);
  rt.sets.push_back({0, 0});
  std::map<std::vector<uint16_t>, uint32_t> set_index;
  std::vector<uint16_t> hops;
  std::vector<uint64_t> masks;  // [word * num_hosts + dst]
  std::vector<uint64_t> last_mask;
  for (int node = 0; node < num_nodes; ++node) {
    const int32_t* row = &rt.distance[size_t(node) * num_hosts];
    const uint32_t first_edge = adj.begin[node];
    const uint32_t degree = adj.begin[node + 1] - first_edge;
    const size_t words = (degree + 63) / 64;
    masks.assign(words * num_hosts, 0);
    for (uint32_t i = 0; i < degree; ++i) {
      const int peer = adj.peer[first_edge + i];
      const uint64_t bit = uint64_t{1} << (i % 64);
      uint64_t* m = &masks[(i / 64) * num_hosts];
      if (is_host(peer)) {  // only towards itself: hosts never forward
        const int h = f.host_index[peer];
        if (row[h] == 1) m[h] |= bit;
        continue;
      }
      const int32_t* peer_row = &rt.distance[size_t(peer) * num_hosts];
      for (int dst = 0; dst < num_hosts; ++dst) {
        m[dst] |= peer_row[dst] == row[dst] - 1 ? bit : 0;
      }
    }
    last_mask.assign(words, 0);
    uint32_t last_set = 0;
    for (int dst = 0; dst < num_hosts; ++dst) {
      if (row[dst] <= 0) continue;  // unreachable, or the destination itself
      bool any = false, same = last_set != 0;
      for (size_t w = 0; w < words; ++w) {
        const uint64_t m = masks[w * num_hosts + dst];
        any |= m != 0;
        same &= m == last_mask[w];
      }
      if (!any) continue;
      if (same) {
        rt.set_of[size_t(node) * num_hosts + dst] = last_set;
        continue;
      }
      hops.clear();
      for (size_t w = 0; w < words; ++w) {
        uint64_t m = masks[w * num_hosts + dst];
        last_mask[w] = m;
        for (; m != 0; m &= m - 1) {
          hops.push_back(
              adj.port[first_edge + w * 64 + static_cast<uint32_t>(std::countr_zero(m))]);
        }
      }
      auto [it, inserted] = set_index.try_emplace(hops, static_cast<uint32_t>(rt.sets.size()));
      if (inserted) {
        rt.sets.push_back(
            {static_cast<uint32_t>(rt.ports.size()), static_cast<uint32_t>(hops.size())});
        rt.ports.insert(rt.ports.end(), hops.begin(), hops.end());
      }
      rt.set_of[size_t(node) * num_hosts + dst] = it->second;
      last_set = it->second;
    }
  }
  return rt;
}

int count_shortest_paths(const Fabric& f, const RoutingTables& rt, int src_host, int dst_host) {
  const int src = f.host_node.at(src_host);
  const int dst = f.host_node.at(dst_host);
  if (src == dst) return 1;
  // paths(n) = sum of paths(peer) over next hops of n; next hops strictly decrease the
  // distance, so the recursion ends (depth <= diameter) and the memo makes it linear.
  std::vector<int64_t> memo(f.ports.size(), -1);
  constexpr int64_t kCap = std::numeric_limits<int>::max();
  auto paths = [&](auto&& self, int node) -> int64_t {
    if (node == dst) return 1;
    int64_t& m = memo[node];
    if (m >= 0) return m;
    int64_t sum = 0;
    for (const uint16_t port : rt.next_hops(node, dst_host)) {
      sum = std::min(kCap, sum + self(self, f.ports[node][port].peer_node));
    }
    return m = sum;
  };
  return static_cast<int>(paths(paths, src));
}

uint32_t ecmp_hash(uint64_t seed, uint32_t switch_node, uint32_t src_host, uint32_t dst_host,
                   uint16_t udp_sport) {
  return ecmp_hash_keyed(ecmp_seed_key(seed), switch_node, src_host, dst_host, udp_sport);
}

}  // namespace topo
