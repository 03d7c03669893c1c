// Where NCCL puts each channel of a ring on multi-NIC GPU servers (docs/collectives.md
// "Channel placement"; docs/references.md "NCCL"). NCCL's topology search (src/graph/search.cc)
// builds, per channel, a ring that enters a server through a NIC, starts at the GPU next to
// it (the NIC's local GPU), visits every GPU of the server over NVLink — on an NVSwitch the
// next GPU is the previous index, NIC n → G(n) → G(n)−1 → … → G(n)+1 — and leaves through a
// NIC. Successive channels start at successive NICs, and the duplicated channels
// (src/graph/connect.cc, ncclTopoPostset) repeat the rings, so the channels spread evenly over
// the NICs. Across servers the ring goes from each server's last GPU to the next server's
// first, servers in the order of their first rank (connect.cc, connectRings).
//   - With PXN (NCCL_PXN_DISABLE=0, the default): the ring leaves through the NIC it entered
//     by (crossNic 0: a channel stays on one rail between servers); the last GPU reaches that
//     NIC over NVLink through the NIC's local GPU, whose proxy posts the send
//     (src/graph/paths.cc, PATH_PXN; src/transport/net.cc: send side only).
//   - Without PXN: rings leave through the last GPU's own NIC (crossNic 2); channels pair up,
//     channel 2k+1 entering where 2k leaves and visiting the GPUs in the reverse order, and
//     servers at odd positions swap the two (ncclTopoPostset "Alternate rings to avoid crossing
//     rails"), so a channel still changes rail only inside a server.
//
// Pure data in, pure data out: the loader hands in each rank's server and GPU, and each
// server's NICs by rail with the GPU next to each.
#pragma once

#include <cstdint>
#include <vector>

namespace models {

// One channel's ring: the ranks in ring order; per server (indexed by server, -1 where the
// ring does not pass) the rail it enters by and the rail it leaves by.
struct ChannelLayout {
  std::vector<uint32_t> ring;
  std::vector<int> entry_rail;
  std::vector<int> exit_rail;
};

// A server's NICs as the placement sees them: per rail k, the NIC's transport endpoint, the
// local index of the GPU next to it (the first GPU that uses it) and that GPU's NVLink
// endpoint (where a PXN send first goes).
struct ServerRails {
  std::vector<uint32_t> nic_endpoint;
  std::vector<int> nic_gpu;
  std::vector<uint32_t> nic_gpu_nvlink;
};

struct PlacementInput {
  std::vector<int> rank_server;     // [rank] server index into `servers`
  std::vector<int> rank_local_gpu;  // [rank] the GPU's index within its server
  std::vector<ServerRails> servers;
  int channels = 1;
  bool pxn = true;
};

// The rings of `channels` channels, or an empty list when the ranks do not span two servers
// or no rail has a rank next to its NIC on every server (then rings follow rank order and
// each rank sends through its own NIC of the channel, channel mod its NIC count).
std::vector<ChannelLayout> nccl_ring_layouts(const PlacementInput& in);

// The rails a ring may use: the NIC indices whose GPU is a rank on every server the ranks
// span, in NIC order.
std::vector<int> usable_rails(const PlacementInput& in);

// NCCL's trees on GPU ranks (src/graph/connect.cc ncclTopoPreset, connectTrees; trees.cc):
// inside each server a chain, from the GPU next to the channel's NIC (the tree's NIC, in and
// out alike: "trees are symmetric") down the GPUs in the ring's order; that first GPU joins
// the servers' binary tree (double_binary_tree.cpp), reaching parent and children through the
// channel's NIC. Per channel: `ring` holds the servers' chains one after another (servers in
// the order of their first rank), entry and exit rails the channel's rail (-1 on one server,
// or without a usable rail: then the chain starts at the server's first GPU and a rank sends
// through its own NIC). Empty when a rank is not a GPU.
std::vector<ChannelLayout> nccl_tree_layouts(const PlacementInput& in);

// NCCL's ring channel count for these ranks: one search channel per usable rail (a channel
// takes one NIC's bandwidth), duplicated (ncclTopoPostset), at most 64 (MAXCHANNELS); 0 when
// there is nothing to place.
int nccl_ring_channels(const PlacementInput& in);

}  // namespace models
