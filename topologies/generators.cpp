// Generated fabrics. Every generator lists hosts first (so host number == node index), then
// switches tier by tier; links are listed host links first, then tier by tier upwards. Node
// names are stable, since scenarios and outputs refer to them:
//   hosts "h<i>" (rail: "n<server>r<rail>"), leaf-spine "leaf<i>"/"spine<j>", fat-tree
//   "edge<pod>_<i>"/"agg<pod>_<i>"/"core<i>", Clos "tor<pod>_<i>"/"agg<pod>_<i>"/"core<i>",
//   rail "rail<r>_leaf<i>"/"spine<j>".
#include "topologies/generators.hpp"

#include <cstdint>
#include <string>

namespace topo {
namespace {

// Generous bounds that stop a typo (an extra zero) from allocating gigabytes; each is well
// above the largest fabric a packet-level simulation can run.
constexpr int64_t kMaxGeneratedHosts = int64_t{1} << 20;
constexpr int64_t kMaxGeneratedLinks = int64_t{1} << 24;

void require_count(const char* name, int value, int min) {
  if (value < min || value > kMaxPortsPerNode) {
    throw TopologyError(name, std::string(name) + " must be in [" + std::to_string(min) + ", " +
                                  std::to_string(kMaxPortsPerNode) + "], got " +
                                  std::to_string(value));
  }
}

void require_positive(const char* name, int64_t value, const char* unit) {
  if (value <= 0) {
    throw TopologyError(name, std::string(name) + " must be > 0 " + unit + ", got " +
                                  std::to_string(value) + " " + unit);
  }
}

void require_size(const char* name, const char* what, int64_t value, int64_t limit) {
  if (value > limit) {
    throw TopologyError(name, std::string("these parameters give ") + std::to_string(value) + " " +
                                  what + ", more than the supported " + std::to_string(limit));
  }
}

// Names built by appending: GCC 12 reports a false -Wrestrict on "literal" + std::string
// (a known GCC 12 false positive at -O3).
std::string numbered(const char* prefix, int n) {
  std::string name = prefix;
  name += std::to_string(n);
  return name;
}
std::string numbered(const char* prefix, int a, const char* separator, int b) {
  std::string name = numbered(prefix, a);
  name += separator;
  name += std::to_string(b);
  return name;
}
std::string sw(const char* prefix, int pod, int i) {
  return numbered(prefix, pod, "_", i);
}

// Appends nodes and links; keeps the generators themselves about the wiring.
class Builder {
 public:
  explicit Builder(std::string name) { t_.name = std::move(name); }

  int add(std::string name, NodeKind kind, int tier, int group, int radix = 0) {
    t_.nodes.push_back(Node{std::move(name), kind, radix, tier, group});
    return static_cast<int>(t_.nodes.size()) - 1;
  }
  int host(int number, int group) { return add(numbered("h", number), NodeKind::Host, 0, group); }
  void connect(int a, int b, int64_t rate_bps, int64_t latency_ps) {
    t_.links.push_back(Link{a, b, rate_bps, latency_ps, 0.0, -1, -1});
  }
  Topology take() { return std::move(t_); }

 private:
  Topology t_;
};

}  // namespace

Topology make_leaf_spine(const LeafSpineParams& p) {
  require_count("leaves", p.leaves, 1);
  require_count("spines", p.spines, 1);
  require_count("hosts_per_leaf", p.hosts_per_leaf, 1);
  require_count("uplinks_per_pair", p.uplinks_per_pair, 1);
  require_positive("host_rate_bps", p.host_rate_bps, "bit/s");
  require_positive("fabric_rate_bps", p.fabric_rate_bps, "bit/s");
  require_positive("host_latency_ps", p.host_latency_ps, "ps");
  require_positive("fabric_latency_ps", p.fabric_latency_ps, "ps");
  const int64_t hosts = int64_t{p.leaves} * p.hosts_per_leaf;
  require_size("hosts_per_leaf", "hosts", hosts, kMaxGeneratedHosts);
  require_size("uplinks_per_pair", "leaf-spine links",
               int64_t{p.leaves} * p.spines * p.uplinks_per_pair, kMaxGeneratedLinks);

  Builder b("leaf_spine");
  for (int h = 0; h < hosts; ++h) b.host(h, h / p.hosts_per_leaf);
  const int first_leaf = static_cast<int>(hosts);
  for (int l = 0; l < p.leaves; ++l) b.add(numbered("leaf", l), NodeKind::Switch, 1, l);
  const int first_spine = first_leaf + p.leaves;
  for (int s = 0; s < p.spines; ++s) b.add(numbered("spine", s), NodeKind::Switch, 2, -1);

  for (int h = 0; h < hosts; ++h) {
    b.connect(h, first_leaf + h / p.hosts_per_leaf, p.host_rate_bps, p.host_latency_ps);
  }
  for (int l = 0; l < p.leaves; ++l) {
    for (int s = 0; s < p.spines; ++s) {
      for (int u = 0; u < p.uplinks_per_pair; ++u) {
        b.connect(first_leaf + l, first_spine + s, p.fabric_rate_bps, p.fabric_latency_ps);
      }
    }
  }
  return b.take();
}

// Al-Fares, Loukissas, Vahdat, "A Scalable, Commodity Data Center Network Architecture",
// SIGCOMM 2008, section 2.2: pod p has k/2 edge and k/2 aggregation switches in a full
// bipartite graph; each edge switch serves k/2 hosts; aggregation switch i of every pod
// connects to the k/2 cores i*(k/2) .. i*(k/2)+k/2-1 (the paper's core grid, row-major).
Topology make_fat_tree(const FatTreeParams& p) {
  // k = 128 already means 524,288 hosts; real switch radices stop there too.
  if (p.k < 2 || p.k % 2 != 0 || p.k > 128) {
    throw TopologyError("k", "k must be even and >= 2 (and <= 128), got " + std::to_string(p.k));
  }
  require_positive("rate_bps", p.rate_bps, "bit/s");
  require_positive("latency_ps", p.latency_ps, "ps");
  const int k = p.k;
  const int half = k / 2;
  const int hosts = k * half * half;

  Builder b(numbered("fat_tree_k", k));
  for (int h = 0; h < hosts; ++h) b.host(h, h / (half * half));
  const int first_edge = hosts;
  for (int pod = 0; pod < k; ++pod) {
    for (int i = 0; i < half; ++i) b.add(sw("edge", pod, i), NodeKind::Switch, 1, pod, k);
  }
  const int first_agg = first_edge + k * half;
  for (int pod = 0; pod < k; ++pod) {
    for (int i = 0; i < half; ++i) b.add(sw("agg", pod, i), NodeKind::Switch, 2, pod, k);
  }
  const int first_core = first_agg + k * half;
  for (int c = 0; c < half * half; ++c) {
    b.add(numbered("core", c), NodeKind::Switch, 3, -1, k);
  }

  // Host h sits in pod h / (k/2)^2 on edge switch (h / (k/2)) % (k/2), i.e. edge h / (k/2)
  // counting edge switches pod-major.
  for (int h = 0; h < hosts; ++h) b.connect(h, first_edge + h / half, p.rate_bps, p.latency_ps);
  for (int pod = 0; pod < k; ++pod) {
    for (int e = 0; e < half; ++e) {
      for (int a = 0; a < half; ++a) {
        b.connect(first_edge + pod * half + e, first_agg + pod * half + a, p.rate_bps,
                  p.latency_ps);
      }
    }
  }
  for (int pod = 0; pod < k; ++pod) {
    for (int a = 0; a < half; ++a) {
      for (int j = 0; j < half; ++j) {
        b.connect(first_agg + pod * half + a, first_core + a * half + j, p.rate_bps, p.latency_ps);
      }
    }
  }
  return b.take();
}

// Node and link order reproduce the ns-3 HPCC simulator's mix/fat.txt exactly (hosts, then
// ToRs, aggregation switches and cores pod-major; links host-ToR, ToR-agg, agg-core), so a
// node index here is the node id there.
Topology make_clos3(const ClosParams& p) {
  require_count("pods", p.pods, 1);
  require_count("tors_per_pod", p.tors_per_pod, 1);
  require_count("aggs_per_pod", p.aggs_per_pod, 1);
  require_count("cores", p.cores, 1);
  require_count("hosts_per_tor", p.hosts_per_tor, 1);
  if (p.cores % p.aggs_per_pod != 0) {
    throw TopologyError("cores", "cores must be a multiple of aggs_per_pod (" +
                                     std::to_string(p.aggs_per_pod) + "), got " +
                                     std::to_string(p.cores));
  }
  require_positive("host_rate_bps", p.host_rate_bps, "bit/s");
  require_positive("tor_agg_rate_bps", p.tor_agg_rate_bps, "bit/s");
  require_positive("agg_core_rate_bps", p.agg_core_rate_bps, "bit/s");
  require_positive("latency_ps", p.latency_ps, "ps");
  const int64_t tors64 = int64_t{p.pods} * p.tors_per_pod;
  const int64_t aggs64 = int64_t{p.pods} * p.aggs_per_pod;
  require_size("hosts_per_tor", "hosts", tors64 * p.hosts_per_tor, kMaxGeneratedHosts);
  require_size("pods", "switch links",
               tors64 * p.aggs_per_pod + aggs64 * (p.cores / p.aggs_per_pod), kMaxGeneratedLinks);
  const int tors = static_cast<int>(tors64);
  const int hosts = tors * p.hosts_per_tor;
  const int cores_per_agg = p.cores / p.aggs_per_pod;

  Builder b("clos3");
  for (int h = 0; h < hosts; ++h) b.host(h, h / p.hosts_per_tor / p.tors_per_pod);
  const int first_tor = hosts;
  for (int pod = 0; pod < p.pods; ++pod) {
    for (int i = 0; i < p.tors_per_pod; ++i) b.add(sw("tor", pod, i), NodeKind::Switch, 1, pod);
  }
  const int first_agg = first_tor + tors;
  for (int pod = 0; pod < p.pods; ++pod) {
    for (int i = 0; i < p.aggs_per_pod; ++i) b.add(sw("agg", pod, i), NodeKind::Switch, 2, pod);
  }
  const int first_core = first_agg + p.pods * p.aggs_per_pod;
  for (int c = 0; c < p.cores; ++c) b.add(numbered("core", c), NodeKind::Switch, 3, -1);

  for (int h = 0; h < hosts; ++h) {
    b.connect(h, first_tor + h / p.hosts_per_tor, p.host_rate_bps, p.latency_ps);
  }
  for (int t = 0; t < tors; ++t) {
    const int pod = t / p.tors_per_pod;
    for (int a = 0; a < p.aggs_per_pod; ++a) {
      b.connect(first_tor + t, first_agg + pod * p.aggs_per_pod + a, p.tor_agg_rate_bps,
                p.latency_ps);
    }
  }
  for (int pod = 0; pod < p.pods; ++pod) {
    for (int a = 0; a < p.aggs_per_pod; ++a) {
      for (int j = 0; j < cores_per_agg; ++j) {
        b.connect(first_agg + pod * p.aggs_per_pod + a, first_core + a * cores_per_agg + j,
                  p.agg_core_rate_bps, p.latency_ps);
      }
    }
  }
  return b.take();
}

// Rail-optimised layout as NVIDIA's DGX SuperPOD reference architecture describes it: NIC r of
// every server goes to a leaf of rail r, so same-rank GPUs of different servers are one switch
// apart; rails meet only at the spines.
Topology make_rail(const RailParams& p) {
  require_count("nodes", p.nodes, 1);
  require_count("rails", p.rails, 1);
  require_count("nodes_per_leaf", p.nodes_per_leaf, 1);
  require_count("spines", p.spines, 1);
  require_count("uplinks_per_pair", p.uplinks_per_pair, 1);
  require_positive("host_rate_bps", p.host_rate_bps, "bit/s");
  require_positive("fabric_rate_bps", p.fabric_rate_bps, "bit/s");
  require_positive("host_latency_ps", p.host_latency_ps, "ps");
  require_positive("fabric_latency_ps", p.fabric_latency_ps, "ps");
  const int64_t hosts64 = int64_t{p.nodes} * p.rails;
  require_size("nodes", "host endpoints", hosts64, kMaxGeneratedHosts);
  const int leaves_per_rail = (p.nodes + p.nodes_per_leaf - 1) / p.nodes_per_leaf;
  const int64_t leaves64 = int64_t{p.rails} * leaves_per_rail;
  require_size("spines", "leaf-spine links", leaves64 * p.spines * p.uplinks_per_pair,
               kMaxGeneratedLinks);
  const int leaves = static_cast<int>(leaves64);

  Builder b("rail");
  for (int n = 0; n < p.nodes; ++n) {
    for (int r = 0; r < p.rails; ++r) {
      b.add(numbered("n", n, "r", r), NodeKind::Host, 0, r);
    }
  }
  const int first_leaf = static_cast<int>(hosts64);
  for (int r = 0; r < p.rails; ++r) {
    for (int i = 0; i < leaves_per_rail; ++i) {
      b.add(numbered("rail", r, "_leaf", i), NodeKind::Switch, 1, r);
    }
  }
  const int first_spine = first_leaf + leaves;
  for (int s = 0; s < p.spines; ++s) b.add(numbered("spine", s), NodeKind::Switch, 2, -1);

  for (int n = 0; n < p.nodes; ++n) {
    for (int r = 0; r < p.rails; ++r) {
      b.connect(n * p.rails + r, first_leaf + r * leaves_per_rail + n / p.nodes_per_leaf,
                p.host_rate_bps, p.host_latency_ps);
    }
  }
  for (int l = 0; l < leaves; ++l) {
    for (int s = 0; s < p.spines; ++s) {
      for (int u = 0; u < p.uplinks_per_pair; ++u) {
        b.connect(first_leaf + l, first_spine + s, p.fabric_rate_bps, p.fabric_latency_ps);
      }
    }
  }
  return b.take();
}

}  // namespace topo
