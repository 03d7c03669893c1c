#include "scenarios/loader/topology_section.hpp"

#include <filesystem>
#include <optional>
#include <unordered_map>

#include "scenarios/loader/gpu_nodes_section.hpp"
#include "sim/units.hpp"
#include "topologies/generators.hpp"

namespace scen {
namespace {

constexpr const char* kRoutingEntriesExpected =
    "at most 2^32 routing-table entries (nodes x hosts): a smaller topology";

int count(JsonReader& r, std::string_view key, int def, int min, int max) {
  return static_cast<int>(r.integer(key, def, min, max));
}

// "nodes" as GPU servers (gpu_nodes_section.hpp): the generator's host keys that the servers
// set are refused, so that no scenario says two different things.
std::optional<GpuNodesSection> read_gpu_servers(JsonReader& r, const char* rate_key,
                                                const char* count_key) {
  if (!r.has("nodes") || !r.json()["nodes"].is_object()) return std::nullopt;
  JsonReader n = r.at("nodes");
  GpuNodesSection g = read_gpu_nodes(n);
  for (const char* key : {rate_key, count_key}) {
    if (key != nullptr && r.has(key)) {
      throw InputError(r.child_path(key), r.value_text(key),
                       "no value: with GPU nodes the NICs and their rate are nodes.nics and "
                       "nodes.nic_rate");
    }
  }
  return g;
}

// NIC k of server s is the host `first + s * nics + k`.
void attach_gpu_servers(topo::Topology& t, const GpuNodesSection& g) {
  std::vector<std::vector<int>> nic_node(static_cast<size_t>(g.count));
  for (int s = 0; s < g.count; ++s) {
    for (int k = 0; k < g.params.nics; ++k) nic_node[s].push_back(s * g.params.nics + k);
  }
  topo::add_gpu_nodes(t, nic_node, g.params);
}

// The routing tables hold an entry per (node, host) in 32-bit indices (topologies/routing.cpp);
// build_fabric_checked refuses beyond that with the exact counts. A generator's parameters give
// lower bounds of both before anything is built: a topology already beyond the indices with
// them is refused at once, instead of after building a graph of a million nodes to learn it
// (seconds; a minute under the sanitizers).
void check_routing_entries_before_building(const JsonReader& r, int64_t min_nodes,
                                           int64_t min_hosts) {
  if (static_cast<double>(min_nodes) * static_cast<double>(min_hosts) < 4294967295.0) return;
  throw InputError(
      r.path(),
      "at least " + std::to_string(min_nodes) + " nodes x " + std::to_string(min_hosts) + " hosts",
      kRoutingEntriesExpected);
}

// A GPU server's GPUs are hosts too (topologies/gpu_nodes.cpp), beside its NICs.
int64_t gpu_hosts(const std::optional<GpuNodesSection>& gpu) {
  return gpu ? int64_t{gpu->count} * gpu->params.gpus : 0;
}

topo::Topology read_generator(JsonReader& r) {
  const std::string g = r.choice("generator", {"leaf-spine", "fat-tree", "clos3", "rail"}, "");
  topo::Topology t;
  std::optional<GpuNodesSection> gpu;
  try {
    if (g == "leaf-spine") {
      topo::LeafSpineParams p;
      gpu = read_gpu_servers(r, "host_rate", nullptr);
      p.leaves = count(r, "leaves", p.leaves, 1, 100000);
      p.spines = count(r, "spines", p.spines, 1, 100000);
      p.hosts_per_leaf = count(r, "hosts_per_leaf", p.hosts_per_leaf, 1, 100000);
      p.uplinks_per_pair = count(r, "uplinks_per_pair", p.uplinks_per_pair, 1, 1024);
      p.host_rate_bps = r.rate_bps("host_rate", p.host_rate_bps);
      p.fabric_rate_bps = r.rate_bps("fabric_rate", p.fabric_rate_bps);
      p.host_latency_ps = r.time("host_latency", sim::Time(p.host_latency_ps), sim::Time(1)).ps;
      p.fabric_latency_ps =
          r.time("fabric_latency", sim::Time(p.fabric_latency_ps), sim::Time(1)).ps;
      const int64_t hosts = int64_t{p.leaves} * p.hosts_per_leaf + gpu_hosts(gpu);
      check_routing_entries_before_building(r, hosts + p.leaves + p.spines, hosts);
      if (gpu) {
        // The servers' NICs fill the leaves in order (h0 .. h<count*nics-1>); any hosts left
        // over stay plain endpoints.
        p.host_rate_bps = gpu->params.nic_rate_bps;
        const int64_t nics = int64_t{gpu->count} * gpu->params.nics;
        if (nics > int64_t{p.leaves} * p.hosts_per_leaf) {
          throw InputError(r.child_path("nodes") + ".count", std::to_string(gpu->count),
                           "at most leaves x hosts_per_leaf = " +
                               std::to_string(int64_t{p.leaves} * p.hosts_per_leaf) +
                               " NICs in all (" + std::to_string(gpu->params.nics) +
                               " per server)");
        }
      }
      t = topo::make_leaf_spine(p);
    } else if (g == "fat-tree") {
      topo::FatTreeParams p;
      p.k = count(r, "k", p.k, 2, 128);
      p.rate_bps = r.rate_bps("rate", p.rate_bps);
      p.latency_ps = r.time("latency", sim::Time(p.latency_ps), sim::Time(1)).ps;
      const int64_t k = p.k;  // k^3/4 hosts, 5k^2/4 switches
      check_routing_entries_before_building(r, k * k * k / 4 + 5 * k * k / 4, k * k * k / 4);
      t = topo::make_fat_tree(p);
    } else if (g == "clos3") {
      topo::ClosParams p;
      p.pods = count(r, "pods", p.pods, 1, 10000);
      p.tors_per_pod = count(r, "tors_per_pod", p.tors_per_pod, 1, 10000);
      p.aggs_per_pod = count(r, "aggs_per_pod", p.aggs_per_pod, 1, 10000);
      p.cores = count(r, "cores", p.cores, 1, 100000);
      p.hosts_per_tor = count(r, "hosts_per_tor", p.hosts_per_tor, 1, 10000);
      p.host_rate_bps = r.rate_bps("host_rate", p.host_rate_bps);
      p.tor_agg_rate_bps = r.rate_bps("tor_agg_rate", p.tor_agg_rate_bps);
      p.agg_core_rate_bps = r.rate_bps("agg_core_rate", p.agg_core_rate_bps);
      p.latency_ps = r.time("latency", sim::Time(p.latency_ps), sim::Time(1)).ps;
      const int64_t hosts = int64_t{p.pods} * p.tors_per_pod * p.hosts_per_tor;
      check_routing_entries_before_building(
          r, hosts + int64_t{p.pods} * (p.tors_per_pod + p.aggs_per_pod) + p.cores, hosts);
      t = topo::make_clos3(p);
    } else if (g == "rail") {
      topo::RailParams p;
      gpu = read_gpu_servers(r, "host_rate", "rails");
      if (gpu) {
        p.nodes = gpu->count;
        p.rails = gpu->params.nics;
        p.host_rate_bps = gpu->params.nic_rate_bps;
      } else {
        p.nodes = count(r, "nodes", p.nodes, 1, 100000);
        p.rails = count(r, "rails", p.rails, 1, 64);
      }
      p.nodes_per_leaf = count(r, "nodes_per_leaf", p.nodes_per_leaf, 1, 100000);
      p.spines = count(r, "spines", p.spines, 1, 100000);
      p.uplinks_per_pair = count(r, "uplinks_per_pair", p.uplinks_per_pair, 1, 1024);
      p.host_rate_bps = r.rate_bps("host_rate", p.host_rate_bps);
      p.fabric_rate_bps = r.rate_bps("fabric_rate", p.fabric_rate_bps);
      p.host_latency_ps = r.time("host_latency", sim::Time(p.host_latency_ps), sim::Time(1)).ps;
      p.fabric_latency_ps =
          r.time("fabric_latency", sim::Time(p.fabric_latency_ps), sim::Time(1)).ps;
      const int64_t hosts = int64_t{p.nodes} * p.rails + gpu_hosts(gpu);
      check_routing_entries_before_building(r, hosts + p.spines, hosts);
      t = topo::make_rail(p);
    }
  } catch (const topo::TopologyError& e) {
    throw InputError(r.child_path(e.path), r.value_text(e.path), e.what());
  }
  if (gpu) attach_gpu_servers(t, *gpu);
  t.name = r.string("name", g);
  r.finish();
  return t;
}

topo::Topology read_inline(JsonReader& r) {
  topo::Topology t;
  t.name = r.string("name", "topology");
  int64_t default_rate = 0;
  sim::Time default_latency;
  double default_loss = 0.0;
  if (auto d = r.get("defaults")) {
    d->expect_object();
    default_rate = d->rate_bps("rate", 0);
    default_latency = d->time("latency", sim::Time(0), sim::Time(1));
    default_loss = d->number("loss_rate", 0.0, 0.0, 0.999999);
    d->finish();
  }
  JsonReader nodes = r.at("nodes");
  nodes.expect_array();
  std::unordered_map<std::string, int> index;
  for (size_t i = 0; i < nodes.size(); ++i) {
    JsonReader n = nodes.element(i);
    n.expect_object();
    topo::Node node;
    node.name = n.string("name");
    const std::string kind = n.choice("kind", {"host", "switch"}, "");
    if (kind.empty()) throw InputError(n.child_path("kind"), "", "\"host\" or \"switch\"");
    node.kind = kind == "host" ? topo::NodeKind::Host : topo::NodeKind::Switch;
    node.radix = static_cast<int>(n.integer("radix", 0, 0, 65535));
    node.tier =
        static_cast<int>(n.integer("tier", node.kind == topo::NodeKind::Host ? 0 : 1, 0, 16));
    node.group = static_cast<int>(n.integer("group", -1, -1, 1 << 30));
    n.finish();
    if (!index.emplace(node.name, static_cast<int>(i)).second) {
      throw InputError(n.child_path("name"), "\"" + node.name + "\"",
                       "a name not used by another node (duplicate id)");
    }
    t.nodes.push_back(std::move(node));
  }
  JsonReader links = r.at("links");
  links.expect_array();
  auto node_ref = [&](JsonReader& l, std::string_view key) {
    const std::string name = l.string(key);
    auto it = index.find(name);
    if (it == index.end()) {
      throw InputError(l.child_path(key), "\"" + name + "\"", "the name of a node in \"nodes\"");
    }
    return it->second;
  };
  for (size_t i = 0; i < links.size(); ++i) {
    JsonReader l = links.element(i);
    l.expect_object();
    topo::Link link;
    link.a = node_ref(l, "a");
    link.b = node_ref(l, "b");
    link.rate_bps = l.has("rate") || default_rate == 0 ? l.rate_bps("rate") : default_rate;
    if (l.has("latency") && l.has("cable")) {
      throw InputError(l.child_path("cable"), l.value_text("cable"),
                       "either \"latency\" or \"cable\", not both");
    }
    if (l.has("cable")) {
      const std::string text = l.string("cable");
      int64_t mm = 0;
      try {
        mm = sim::parse_length_mm(text);
      } catch (const sim::UnitError& e) {
        throw InputError(l.child_path("cable"), "\"" + text + "\"", e.what());
      }
      if (mm <= 0) throw InputError(l.child_path("cable"), "\"" + text + "\"", "a positive length");
      link.latency_ps = mm * kFibrePsPerMm;
    } else if (l.has("latency") || default_latency.ps == 0) {
      link.latency_ps = l.time("latency", sim::Time(1)).ps;
    } else {
      link.latency_ps = default_latency.ps;
    }
    link.loss_rate = l.number("loss_rate", default_loss, 0.0, 0.999999);
    link.a_port = static_cast<int>(l.integer("a_port", -1, 0, 65535));
    link.b_port = static_cast<int>(l.integer("b_port", -1, 0, 65535));
    l.finish();
    t.links.push_back(link);
  }
  if (auto g = r.get("gpu_servers")) {  // hosts grouped as GPU servers (gpu_nodes_section.hpp)
    read_inline_gpu_servers(*g, t, [&](JsonReader& server, size_t k) {
      const Json& v = server.json()[k];
      auto it = v.is_string() ? index.find(v.get<std::string>()) : index.end();
      if (it == index.end()) {
        throw InputError(server.index_path(k), message_text(v), "the name of a host in \"nodes\"");
      }
      return it->second;
    });
  }
  r.finish();
  return t;
}

}  // namespace

topo::Topology read_topology_section(JsonReader& r, const std::string& base_dir) {
  r.expect_object();
  if (r.has("file")) {
    const std::string file = r.string("file");
    r.finish();
    const std::filesystem::path p = std::filesystem::path(file).is_absolute()
                                        ? std::filesystem::path(file)
                                        : std::filesystem::path(base_dir) / file;
    const Json j = read_json_file(p.string());
    JsonReader fr(j, "");
    fr.expect_object();
    try {
      return read_inline(fr);
    } catch (const InputError& e) {
      throw InputError(p.string() + ": " + e.path, e.value, e.expected);
    }
  }
  if (r.has("generator")) return read_generator(r);
  if (r.has("nodes") || r.has("links")) return read_inline(r);
  throw InputError(r.path(), message_text(r.json()),
                   "{\"file\": ...}, {\"generator\": ...} or {\"nodes\": [...], \"links\": [...]}");
}

topo::Fabric build_fabric_checked(topo::Topology t, const std::string& path_prefix) {
  topo::Fabric f;
  try {
    f = topo::build_fabric(std::move(t));
  } catch (const topo::TopologyError& e) {
    throw InputError(path_prefix.empty() ? e.path : path_prefix + "." + e.path, "", e.what());
  }
  // The routing tables hold an entry per (node, host) in 32-bit indices (topologies/routing.cpp).
  const uint64_t entries = static_cast<uint64_t>(f.ports.size()) * f.host_node.size();
  if (entries >= (uint64_t{1} << 32) - 1) {
    throw InputError(path_prefix.empty() ? "topology" : path_prefix,
                     std::to_string(f.ports.size()) + " nodes x " +
                         std::to_string(f.host_node.size()) + " hosts",
                     kRoutingEntriesExpected);
  }
  return f;
}

Json topology_to_json(const topo::Topology& t) {
  Json j;
  j["name"] = t.name;
  // GPU servers' NVSwitches and NVLink endpoints are not listed: "gpu_servers" adds them back
  // on load, in the same order (they come after every other node and link).
  std::vector<bool> nvlink(t.nodes.size(), false);
  for (int n : t.gpus.nvswitch_node) nvlink[static_cast<size_t>(n)] = true;
  for (int n : t.gpus.nvlink_node) nvlink[static_cast<size_t>(n)] = true;
  Json nodes = Json::array();
  for (size_t i = 0; i < t.nodes.size(); ++i) {
    const topo::Node& n = t.nodes[i];
    if (nvlink[i]) continue;
    Json o{{"name", n.name}, {"kind", n.kind == topo::NodeKind::Host ? "host" : "switch"}};
    if (n.radix > 0) o["radix"] = n.radix;
    o["tier"] = n.tier;
    if (n.group >= 0) o["group"] = n.group;
    nodes.push_back(std::move(o));
  }
  Json links = Json::array();
  for (const auto& l : t.links) {
    if (nvlink[static_cast<size_t>(l.a)] || nvlink[static_cast<size_t>(l.b)]) continue;
    Json o{{"a", t.nodes[l.a].name},
           {"b", t.nodes[l.b].name},
           {"rate", sim::format_rate(l.rate_bps)},
           {"latency", sim::format_time(sim::Time(l.latency_ps))}};
    if (l.loss_rate > 0) o["loss_rate"] = l.loss_rate;
    if (l.a_port >= 0) o["a_port"] = l.a_port;
    if (l.b_port >= 0) o["b_port"] = l.b_port;
    links.push_back(std::move(o));
  }
  j["nodes"] = std::move(nodes);
  j["links"] = std::move(links);
  if (!t.gpus.empty()) j["gpu_servers"] = gpu_servers_to_json(t);
  return j;
}

}  // namespace scen
