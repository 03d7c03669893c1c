#include "topologies/circuits.hpp"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/hawick_circuits.hpp>

namespace topo {
namespace {

struct Stop {};

// Collects circuits, stopping the search once `max` + 1 are known.
struct Collector {
  std::vector<std::vector<int>>* out;
  size_t max;
  template <typename Path, typename Graph>
  void cycle(const Path& p, const Graph&) {
    out->emplace_back(p.begin(), p.end());
    if (out->size() > max) throw Stop{};
  }
};

}  // namespace

Circuits elementary_circuits(size_t vertices, const std::vector<std::pair<int, int>>& edges,
                             size_t max_circuits) {
  // vecS out-edge lists keep the edges' order: the search follows them as given.
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
  const Graph g(edges.begin(), edges.end(), vertices);
  Circuits result;
  try {
    boost::hawick_circuits(g, Collector{&result.circuits, max_circuits});
  } catch (const Stop&) {
    result.truncated = true;
    result.circuits.resize(max_circuits);
  }
  return result;
}

}  // namespace topo
