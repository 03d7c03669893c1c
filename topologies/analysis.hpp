// Figures a network architect reads off a fabric before simulating it: size, capacity,
// bisection bandwidth, path diversity, diameter; and a Graphviz drawing.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "topologies/routing.hpp"
#include "topologies/topology.hpp"

namespace topo {

struct TopologySummary {
  int hosts = 0;
  int switches = 0;
  int links = 0;
  // Sum of link rates, one direction (a full-duplex link counts once).
  int64_t total_capacity_bps = 0;
  // Maximum flow, in one direction, from hosts 0..H/2-1 to hosts H/2..H-1 with every link
  // carrying its rate in each direction. This is the bisection of that natural split (for
  // generated fabrics: the first half of the pods / leaves against the second), not the
  // minimum over all balanced cuts, which is NP-hard to find.
  int64_t bisection_bps = 0;
  // Host-link capacity of the smaller half; bisection_bps / this = bisection_ratio, 1.0 for a
  // non-blocking fabric, 1/oversubscription otherwise.
  int64_t half_injection_bps = 0;
  double bisection_ratio = 0.0;
  // Number of equal-cost shortest paths over the sampled host pairs (see summarize).
  int path_pairs_sampled = 0;
  int unreachable_pairs = 0;  // sampled pairs with no path (0 paths; counted in min_paths)
  int min_paths = 0;
  int max_paths = 0;
  double mean_paths = 0.0;
  // Longest shortest path between two hosts, in links (the host-to-host diameter).
  int max_hops = 0;
  // ports in use -> number of switches with that many
  std::map<int, int> switch_radix_histogram;
};

// Path diversity is measured on `path_sample_pairs` host pairs whose hosts sit on different
// first-hop switches (all such pairs when there are fewer), drawn with a fixed seed so the
// summary is the same on every run. The bisection uses all links of `f`, whatever the
// routing tables say about failed links.
TopologySummary summarize(const Fabric& f, const RoutingTables& rt, int path_sample_pairs = 256);

// Graphviz (undirected graph): hosts as boxes, switches as ellipses, each link labelled
// with its rate ("100G").
std::string to_dot(const Fabric& f);

// A rate in the largest of T, G, M, K that divides it exactly, so nothing is rounded:
// 100000000000 -> "100G", 1600000000000 -> "1600G", 12500000000 -> "12500M", 7 -> "7".
std::string format_rate(int64_t rate_bps);

}  // namespace topo
