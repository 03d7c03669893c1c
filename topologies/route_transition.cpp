#include "topologies/route_transition.hpp"

#include <map>
#include <stdexcept>

namespace topo {

RoutingTables mix_routes(const RoutingTables& stale, const RoutingTables& fresh,
                         const std::vector<bool>& use_fresh) {
  if (stale.num_hosts != fresh.num_hosts || stale.set_of.size() != fresh.set_of.size() ||
      use_fresh.size() * static_cast<size_t>(stale.num_hosts) != stale.set_of.size()) {
    throw std::invalid_argument("mix_routes: tables of different fabrics");
  }
  const int hosts = stale.num_hosts;
  RoutingTables rt;
  rt.num_hosts = hosts;
  rt.distance.resize(stale.distance.size());
  rt.set_of.resize(stale.set_of.size());
  rt.sets.push_back({0, 0});
  std::map<std::vector<uint16_t>, uint32_t> set_index;
  set_index.emplace(std::vector<uint16_t>{}, 0);
  for (size_t node = 0; node < use_fresh.size(); ++node) {
    const RoutingTables& from = use_fresh[node] ? fresh : stale;
    for (int dst = 0; dst < hosts; ++dst) {
      const size_t i = node * hosts + dst;
      rt.distance[i] = from.distance[i];
      const auto hops = from.next_hops(static_cast<int>(node), dst);
      std::vector<uint16_t> key(hops.begin(), hops.end());
      auto [it, inserted] = set_index.try_emplace(key, static_cast<uint32_t>(rt.sets.size()));
      if (inserted) {
        rt.sets.push_back(
            {static_cast<uint32_t>(rt.ports.size()), static_cast<uint32_t>(key.size())});
        rt.ports.insert(rt.ports.end(), key.begin(), key.end());
      }
      rt.set_of[i] = it->second;
    }
  }
  return rt;
}

}  // namespace topo
