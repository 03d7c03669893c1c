#include "scenarios/builder/collective_hops.hpp"

#include "models/ideal_fct.hpp"
#include "models/nic.hpp"
#include "scenarios/builder/build_network.hpp"

namespace scen {
namespace {

// A step's smallest message: one LL line (8 bytes).
constexpr int64_t kMinimalMessage = 8;

sim::Time unloaded_delivery(const Scenario& s, const models::Network& net, uint32_t src,
                            uint32_t dst) {
  const auto path = trace_path(s, net, src, dst, /*udp_sport=*/49152, /*route_id=*/0);
  if (path.empty()) return sim::Time{};
  const models::Nic& from = *net.nics[src];
  return models::ideal_delivery(path, kMinimalMessage, from.params(), from.host_path(),
                                net.nics[dst]->host_path());
}

}  // namespace

void set_collective_hop_times(const Scenario& s, const models::Network& net,
                              models::CollectiveSpec& c) {
  if (!c.nccl_costs) return;
  const auto& server = c.rank_server;
  bool nvlink_done = false, network_done = false;
  for (size_t a = 0; a < server.size() && !(nvlink_done && network_done); ++a) {
    for (size_t b = 0; b < server.size(); ++b) {
      if (a == b || server[a] < 0 || server[b] < 0) continue;
      if (!nvlink_done && server[a] == server[b]) {
        c.nvlink_hop = unloaded_delivery(s, net, c.rank_nvlink[a], c.rank_nvlink[b]);
        nvlink_done = true;
      } else if (!network_done && server[a] != server[b]) {
        // Rail to rail where NCCL places the channels, else the ranks' own first NICs.
        const bool rails = static_cast<size_t>(server[b]) < c.server_rails.size();
        const uint32_t src =
            rails ? c.server_rails[server[a]].nic_endpoint[0] : c.rank_endpoints[a][0];
        const uint32_t dst =
            rails ? c.server_rails[server[b]].nic_endpoint[0] : c.rank_endpoints[b][0];
        c.network_hop = unloaded_delivery(s, net, src, dst);
        network_done = true;
      }
    }
  }
}

}  // namespace scen
