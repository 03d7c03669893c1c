#include "models/collectives/channel_placement.hpp"

#include <algorithm>
#include <map>

namespace models {
namespace {

// The servers the ranks span, in the order of their first rank, each with its ranks sorted
// by GPU index.
std::vector<std::pair<int, std::vector<uint32_t>>> servers_in_order(const PlacementInput& in) {
  std::vector<std::pair<int, std::vector<uint32_t>>> out;
  std::map<int, size_t> index;
  for (size_t r = 0; r < in.rank_server.size(); ++r) {
    const int s = in.rank_server[r];
    const auto [it, fresh] = index.emplace(s, out.size());
    if (fresh) out.push_back({s, {}});
    out[it->second].second.push_back(static_cast<uint32_t>(r));
  }
  for (auto& [server, ranks] : out) {
    std::stable_sort(ranks.begin(), ranks.end(), [&](uint32_t a, uint32_t b) {
      return in.rank_local_gpu[a] < in.rank_local_gpu[b];
    });
  }
  return out;
}

bool placeable(const PlacementInput& in) {
  if (in.rank_server.size() != in.rank_local_gpu.size()) return false;
  for (int s : in.rank_server) {
    if (s < 0 || s >= static_cast<int>(in.servers.size())) return false;
  }
  return true;
}

// A server's part of a ring: its ranks from the one on `entry_gpu`, in descending GPU order,
// wrapping around (`ranks` sorted by GPU).
std::vector<uint32_t> descending_from(const PlacementInput& in, const std::vector<uint32_t>& ranks,
                                      int entry_gpu) {
  size_t first = 0;
  while (in.rank_local_gpu[ranks[first]] != entry_gpu) ++first;
  std::vector<uint32_t> out;
  const size_t n = ranks.size();
  for (size_t i = 0; i < n; ++i) out.push_back(ranks[(first + n - i) % n]);
  return out;
}

// The rail of the NIC next to `gpu` on server `s` (its first), or `fallback` when none of
// the usable rails is.
int own_rail(const PlacementInput& in, int s, int gpu, const std::vector<int>& rails,
             int fallback) {
  for (int k : rails) {
    if (in.servers[s].nic_gpu[k] == gpu) return k;
  }
  return fallback;
}

}  // namespace

std::vector<int> usable_rails(const PlacementInput& in) {
  std::vector<int> rails;
  if (!placeable(in)) return rails;
  const auto servers = servers_in_order(in);
  if (servers.size() < 2) return rails;
  size_t nics = in.servers[servers[0].first].nic_endpoint.size();
  for (const auto& [s, ranks] : servers) nics = std::min(nics, in.servers[s].nic_endpoint.size());
  for (size_t k = 0; k < nics; ++k) {
    const bool every_server = std::all_of(servers.begin(), servers.end(), [&](const auto& e) {
      const int gpu = in.servers[e.first].nic_gpu[k];
      return std::any_of(e.second.begin(), e.second.end(),
                         [&](uint32_t r) { return in.rank_local_gpu[r] == gpu; });
    });
    if (every_server) rails.push_back(static_cast<int>(k));
  }
  return rails;
}

int nccl_ring_channels(const PlacementInput& in) {
  return std::min(64, 2 * static_cast<int>(usable_rails(in).size()));
}

std::vector<ChannelLayout> nccl_tree_layouts(const PlacementInput& in) {
  std::vector<ChannelLayout> out;
  if (!placeable(in) || in.rank_server.empty()) return out;
  const std::vector<int> rails = usable_rails(in);
  const auto servers = servers_in_order(in);
  for (int c = 0; c < in.channels; ++c) {
    ChannelLayout layout;
    layout.entry_rail.assign(in.servers.size(), -1);
    layout.exit_rail.assign(in.servers.size(), -1);
    const int rail = rails.empty() ? -1 : rails[static_cast<size_t>(c) % rails.size()];
    for (const auto& [s, ranks] : servers) {
      const int first_gpu = rail >= 0 ? in.servers[s].nic_gpu[rail] : in.rank_local_gpu[ranks[0]];
      const std::vector<uint32_t> chain = descending_from(in, ranks, first_gpu);
      layout.ring.insert(layout.ring.end(), chain.begin(), chain.end());
      layout.entry_rail[s] = layout.exit_rail[s] = rail;
    }
    out.push_back(std::move(layout));
  }
  return out;
}

std::vector<ChannelLayout> nccl_ring_layouts(const PlacementInput& in) {
  std::vector<ChannelLayout> out;
  const std::vector<int> rails = usable_rails(in);
  if (rails.empty()) return out;
  const auto servers = servers_in_order(in);
  const size_t server_count = in.servers.size();
  // Per channel and server: the ring's part there and its entry and exit rails, as every
  // server's search finds them (the same on every server).
  struct Part {
    std::vector<uint32_t> order;
    int entry = 0, exit = 0;
  };
  std::vector<std::vector<Part>> parts(static_cast<size_t>(in.channels));  // [channel][position]
  for (int c = 0; c < in.channels; ++c) {
    for (const auto& [s, ranks] : servers) {
      Part p;
      if (in.pxn || c % 2 == 0) {
        // Enter by the channel's NIC, at its GPU, then descending GPU order.
        p.entry = rails[static_cast<size_t>(c) % rails.size()];
        p.order = descending_from(in, ranks, in.servers[s].nic_gpu[p.entry]);
        p.exit =
            in.pxn ? p.entry : own_rail(in, s, in.rank_local_gpu[p.order.back()], rails, p.entry);
      } else {
        // Without PXN, channel 2k+1 is 2k reversed: in where 2k goes out, out where it came in.
        const Part& prev = parts[c - 1][parts[c].size()];
        p.entry = prev.exit;
        p.exit = prev.entry;
        p.order.assign(prev.order.rbegin(), prev.order.rend());
      }
      parts[c].push_back(std::move(p));
    }
  }
  for (int c = 0; c < in.channels; ++c) {
    ChannelLayout layout;
    layout.entry_rail.assign(server_count, -1);
    layout.exit_rail.assign(server_count, -1);
    for (size_t pos = 0; pos < servers.size(); ++pos) {
      // Without PXN, servers at odd positions swap the rings of each channel pair.
      int use = c;
      if (!in.pxn && pos % 2 == 1 && (c ^ 1) < in.channels) use = c ^ 1;
      const Part& p = parts[use][pos];
      const int s = servers[pos].first;
      layout.entry_rail[s] = p.entry;
      layout.exit_rail[s] = p.exit;
      layout.ring.insert(layout.ring.end(), p.order.begin(), p.order.end());
    }
    out.push_back(std::move(layout));
  }
  return out;
}

}  // namespace models
