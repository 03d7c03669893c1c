// Elementary circuits of a directed graph: the one cycle search of the project, behind the
// static buffer-dependency analysis (buffer_dependency.hpp) and the run-time PFC deadlock
// detector (models/roce/deadlock_detector.hpp). Boost.Graph's hawick_circuits (Hawick and
// James, "Enumerating Circuits and Loops in Graphs with Self-Arcs and Multiple-Arcs", 2008):
// from each start vertex in index order, a depth-first search over the vertices of a higher
// index, following each vertex's edges in the order given, with Johnson's blocking so that no
// fruitless branch is walked twice.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace topo {

struct Circuits {
  // Each circuit's vertices in order (each has an edge to the next, the last to the first),
  // starting at its smallest index; in the order found (by start vertex, then depth first).
  std::vector<std::vector<int>> circuits;
  bool truncated = false;  // more circuits exist than `max_circuits`
};

// The elementary circuits of the graph on vertices 0..vertices-1 with `edges` (from, to), at
// most `max_circuits` of them. Each edge must appear once: a repeated edge lists its circuits
// twice.
Circuits elementary_circuits(size_t vertices, const std::vector<std::pair<int, int>>& edges,
                             size_t max_circuits);

}  // namespace topo
