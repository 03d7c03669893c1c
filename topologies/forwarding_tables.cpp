#include "topologies/forwarding_tables.hpp"

#include <algorithm>
#include <cstdint>

#include "topologies/updown_routing.hpp"

namespace topo {
namespace {

// OpenSM min-hop: per switch, destinations in order, each to the least-used port of its set.
void fill_min_hop(const Fabric& f, const RoutingTables& rt, std::vector<uint16_t>& lft) {
  const int nodes = static_cast<int>(f.ports.size());
  const int hosts = rt.num_hosts;
  std::vector<int> used;
  for (int n = 0; n < nodes; ++n) {
    used.assign(f.ports[n].size(), 0);
    for (int d = 0; d < hosts; ++d) {
      const auto hops = rt.next_hops(n, d);
      if (hops.empty()) continue;
      uint16_t best = hops[0];
      for (const uint16_t p : hops) {
        if (used[p] < used[best]) best = p;  // ties keep the lower port (sets are ascending)
      }
      ++used[best];
      lft[static_cast<size_t>(n) * hosts + d] = best;
    }
  }
}

// d-mod-k over the up*/down* sets.
void fill_fat_tree(const Fabric& f, const RoutingTables& rt, std::vector<uint16_t>& lft) {
  const int nodes = static_cast<int>(f.ports.size());
  const int hosts = rt.num_hosts;
  const std::vector<int> level = updown_levels(f);
  const int top = std::max(0, *std::max_element(level.begin(), level.end()));
  // Up ports (to a higher level) of the widest switch of each level, on the full topology so
  // that a failed link changes no switch's divisor.
  std::vector<uint64_t> up_width(static_cast<size_t>(top) + 1, 1);
  for (int n = 0; n < nodes; ++n) {
    if (f.host_index[n] >= 0 || level[n] < 1) continue;
    uint64_t up = 0;
    for (const PortRef& p : f.ports[n]) {
      if (p.link >= 0 && level[p.peer_node] > level[n]) ++up;
    }
    up_width[level[n]] = std::max(up_width[level[n]], up);
  }
  // divisor[L] = product of the up widths of levels 1 .. L-1, capped (beyond the host count
  // it is the same as infinity: every destination gives quotient 0).
  std::vector<uint64_t> divisor(static_cast<size_t>(top) + 1, 1);
  for (int l = 2; l <= top; ++l) {
    divisor[l] = std::min<uint64_t>(divisor[l - 1] * up_width[l - 1], uint64_t{1} << 32);
  }
  for (int n = 0; n < nodes; ++n) {
    for (int d = 0; d < hosts; ++d) {
      const auto hops = rt.next_hops(n, d);
      if (hops.empty()) continue;
      const bool up = updown_is_up(level, n, f.ports[n][hops[0]].peer_node);
      const uint64_t key = up && level[n] >= 1 ? static_cast<uint64_t>(d) / divisor[level[n]]
                                               : static_cast<uint64_t>(d);
      lft[static_cast<size_t>(n) * hosts + d] = hops[key % hops.size()];
    }
  }
}

}  // namespace

const char* lft_algorithm_name(LftAlgorithm a) {
  return a == LftAlgorithm::MinHop ? "minhop" : "ftree";
}

std::vector<uint16_t> compute_lft(const Fabric& f, const RoutingTables& candidates,
                                  LftAlgorithm algorithm) {
  std::vector<uint16_t> lft(f.ports.size() * static_cast<size_t>(candidates.num_hosts), kNoPort);
  if (algorithm == LftAlgorithm::MinHop) {
    fill_min_hop(f, candidates, lft);
  } else {
    fill_fat_tree(f, candidates, lft);
  }
  return lft;
}

std::vector<int> lft_port_loads(const Fabric& f, const RoutingTables& rt, int node) {
  std::vector<int> loads(f.ports[node].size(), 0);
  for (int d = 0; d < rt.num_hosts; ++d) {
    const uint16_t p = rt.lft[static_cast<size_t>(node) * rt.num_hosts + d];
    if (p != kNoPort) ++loads[p];
  }
  return loads;
}

}  // namespace topo
