#include "topologies/updown_routing.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>

namespace topo {

std::vector<int> updown_levels(const Fabric& f) {
  const int nodes = static_cast<int>(f.ports.size());
  std::vector<int> level(nodes, -1);
  std::vector<int> queue;
  for (const int h : f.host_node) {
    level[h] = 0;
    queue.push_back(h);
  }
  for (size_t head = 0; head < queue.size(); ++head) {
    const int n = queue[head];
    for (const PortRef& p : f.ports[n]) {
      if (p.link < 0 || level[p.peer_node] >= 0) continue;
      level[p.peer_node] = level[n] + 1;
      queue.push_back(p.peer_node);
    }
  }
  return level;
}

RoutingTables compute_updown_routes(const Fabric& f, const std::vector<bool>& link_up) {
  // The shortest-path tables validate link_up and the size limit; their distance array is
  // reused as storage.
  RoutingTables rt = compute_routes(f, link_up);
  const int nodes = static_cast<int>(f.ports.size());
  const int hosts = static_cast<int>(f.host_node.size());
  const std::vector<int> level = updown_levels(f);
  // Nodes in increasing rank: down-only distances need every lower-ranked node first.
  std::vector<int> order(nodes);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](int a, int b) { return level[a] != level[b] ? level[a] < level[b] : a < b; });
  auto usable = [&](const PortRef& p) {
    return p.link >= 0 && (link_up.empty() || link_up[p.link]);
  };
  auto is_host = [&](int n) { return f.host_index[n] >= 0; };

  constexpr int32_t kNone = std::numeric_limits<int32_t>::max();
  std::vector<int32_t> down(nodes), cost(nodes);
  std::fill(rt.distance.begin(), rt.distance.end(), -1);
  rt.set_of.assign(rt.set_of.size(), 0);
  rt.sets.assign(1, {0, 0});
  rt.ports.clear();
  std::map<std::vector<uint16_t>, uint32_t> set_index;
  std::vector<uint16_t> hops;
  for (int dst = 0; dst < hosts; ++dst) {
    const int dst_node = f.host_node[dst];
    // down[n]: hops of the shortest down-only path n -> dst (through switches only).
    for (const int n : order) {
      down[n] = kNone;
      if (n == dst_node) {
        down[n] = 0;
        continue;
      }
      if (is_host(n)) continue;  // hosts never forward
      for (const PortRef& p : f.ports[n]) {
        if (!usable(p) || updown_is_up(level, n, p.peer_node)) continue;
        if (down[p.peer_node] != kNone) down[n] = std::min(down[n], down[p.peer_node] + 1);
      }
    }
    // cost[n]: down[n] when there is a down-only path, else one more than the cheapest
    // higher-ranked neighbour's (the ranks above are done first).
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      const int n = *it;
      cost[n] = down[n];
      if (cost[n] != kNone) continue;
      for (const PortRef& p : f.ports[n]) {
        if (!usable(p) || !updown_is_up(level, n, p.peer_node) || is_host(p.peer_node)) continue;
        if (cost[p.peer_node] != kNone) cost[n] = std::min(cost[n], cost[p.peer_node] + 1);
      }
    }
    for (int n = 0; n < nodes; ++n) {
      if (cost[n] == kNone) continue;
      rt.distance[static_cast<size_t>(n) * hosts + dst] = cost[n];
      if (n == dst_node) continue;
      hops.clear();
      const bool going_down = down[n] != kNone;
      for (size_t port = 0; port < f.ports[n].size(); ++port) {
        const PortRef& p = f.ports[n][port];
        if (!usable(p)) continue;
        const int m = p.peer_node;
        if (updown_is_up(level, n, m) == going_down) continue;
        if (m != dst_node && is_host(m)) continue;
        if ((going_down ? down[m] : cost[m]) == cost[n] - 1) {
          hops.push_back(static_cast<uint16_t>(port));
        }
      }
      auto [entry, inserted] = set_index.try_emplace(hops, static_cast<uint32_t>(rt.sets.size()));
      if (inserted) {
        rt.sets.push_back(
            {static_cast<uint32_t>(rt.ports.size()), static_cast<uint32_t>(hops.size())});
        rt.ports.insert(rt.ports.end(), hops.begin(), hops.end());
      }
      rt.set_of[static_cast<size_t>(n) * hosts + dst] = entry->second;
    }
  }
  return rt;
}

}  // namespace topo
