// Tagger (Hu et al., "Tagger: Practical PFC Deadlock Prevention in Data Center Networks",
// CoNEXT 2017): a packet that leaves the up*/down* path — goes up again after going down, a
// "valley" — is re-tagged onto the next lossless priority of an ordered list, so its buffers
// from there on are other buffers than the up*/down* traffic's. Every buffer dependency then
// either stays within a priority along an up*/down* stretch or moves to a later priority, and
// with one more lossless priority than the most valleys on any route no cycle can form. The
// ranks (levels) are those of up*/down* routing (updown_routing.hpp).
#pragma once

#include <array>
#include <vector>

#include "topologies/updown_routing.hpp"

namespace topo {

struct ValleyRetag {
  std::vector<int> level;     // updown_levels(fabric)
  std::array<int, 8> next{};  // priority after a valley; -1 = unchanged
};

// The re-tagging of an ordered list of lossless priorities: each moves to the next, the last
// stays (a packet past its last valley allowance keeps it).
ValleyRetag make_valley_retag(const Fabric& f, const std::vector<int>& priorities);

// Whether the hops prev -> node -> next turn up after going down at node.
inline bool is_valley(const std::vector<int>& level, int prev, int node, int next) {
  return updown_is_up(level, node, prev) && updown_is_up(level, node, next);
}

// The priority a packet of `priority` leaves `node` with, having come from `prev` and going
// to `next`.
inline int retagged(const ValleyRetag& r, int prev, int node, int next, int priority) {
  if (r.next[priority] < 0 || !is_valley(r.level, prev, node, next)) return priority;
  return r.next[priority];
}

}  // namespace topo
