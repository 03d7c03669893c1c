#include "scenarios/loader/workload_section.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "models/workloads/generators.hpp"
#include "scenarios/loader/memory_estimate.hpp"
#include "scenarios/loader/qos_section.hpp"
#include "scenarios/loader/shipped_cdfs.hpp"
#include "sim/rng.hpp"

namespace scen {
namespace {

// Random-stream ids of the generators (stable: adding a generator never shifts another's).
enum : uint64_t {
  kStreamPermutation = 0x5045524dULL,
  kStreamPoisson = 0x504f4953ULL,
  kStreamJitter = 0x4a495454ULL,
  kStreamIncast = 0x494e4341ULL,
};

int host_ref(const Json& v, const std::string& path, const topo::Fabric& f) {
  const int hosts = static_cast<int>(f.host_node.size());
  if (v.is_number_integer()) {
    const int64_t h = v.get<int64_t>();
    if (h < 0 || h >= hosts) {
      throw InputError(path, message_text(v),
                       "a host number in [0, " + std::to_string(hosts - 1) + "]");
    }
    return static_cast<int>(h);
  }
  if (v.is_string()) {
    const int node = f.node_by_name(v.get<std::string>());
    if (node < 0) throw InputError(path, message_text(v), "the name of a host in the topology");
    if (f.host_index[node] < 0) throw InputError(path, message_text(v), "a host, not a switch");
    return f.host_index[node];
  }
  throw InputError(path, message_text(v), "a host name (\"h3\") or host number");
}

int host_at(JsonReader& r, std::string_view key, const topo::Fabric& f) {
  const JsonReader v = r.at(key);  // refuses a missing key (InputError); marks it as read
  return host_ref(v.json(), v.path(), f);
}

bool adjacent(const topo::Fabric& f, int a, int b) {
  for (const auto& p : f.ports[a]) {
    if (p.peer_node == b) return true;
  }
  return false;
}

// An explicit route must be walkable: src host - first switch - ... - last switch - dst host.
void check_route_adjacency(const JsonReader& route, const models::FlowSpec& fs,
                           const topo::Fabric& f) {
  const int src = f.host_node[fs.src_host];
  const int dst = f.host_node[fs.dst_host];
  int prev = src;
  for (size_t k = 0; k < fs.route.size(); ++k) {
    if (!adjacent(f, prev, fs.route[k])) {
      throw InputError(route.index_path(k), "\"" + f.topo.nodes[fs.route[k]].name + "\"",
                       "a switch linked to \"" + f.topo.nodes[prev].name +
                           "\" (each hop of a route must follow a link)");
    }
    prev = fs.route[k];
  }
  if (!adjacent(f, prev, dst)) {
    throw InputError(route.path(), "\"" + f.topo.nodes[prev].name + "\"",
                     "a route whose last switch is linked to the destination \"" +
                         f.topo.nodes[dst].name + "\"");
  }
}

// "all", or a list of hosts.
std::vector<int> host_list(JsonReader& r, std::string_view key, const topo::Fabric& f) {
  std::vector<int> hosts;
  if (!r.has(key) || (r.json().at(std::string(key)).is_string() &&
                      r.json().at(std::string(key)).get<std::string>() == "all")) {
    if (r.has(key)) r.at(key);
    for (size_t h = 0; h < f.host_node.size(); ++h) hosts.push_back(static_cast<int>(h));
    return hosts;
  }
  JsonReader list = r.at(key);
  list.expect_array();
  for (size_t i = 0; i < list.size(); ++i) {
    const int h = host_ref(list.json()[i], list.index_path(i), f);
    for (size_t e = 0; e < hosts.size(); ++e) {  // the generators take distinct hosts
      if (hosts[e] == h) {
        throw InputError(
            list.index_path(i), message_text(list.json()[i]),
            "a host not already listed (" + std::string(key) + "[" + std::to_string(e) + "])");
      }
    }
    hosts.push_back(h);
  }
  return hosts;
}

// A generator key may hold one object or an array of them.
template <typename Fn>
void for_each_instance(JsonReader& w, std::string_view key, Fn fn) {
  auto sec = w.get(key);
  if (!sec) return;
  if (sec->json().is_array()) {
    for (size_t i = 0; i < sec->size(); ++i) {
      JsonReader e = sec->element(i);
      e.expect_object();
      fn(e, i);
      e.finish();
    }
  } else {
    sec->expect_object();
    fn(*sec, 0);
    sec->finish();
  }
}

std::string read_text_file(const std::string& file, const std::string& path) {
  std::ifstream in(file);
  if (!in) throw InputError(path, "\"" + file + "\"", "a readable file");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

std::vector<models::FlowSpec> read_workload_section(JsonReader& w, const topo::Fabric& f,
                                                    const models::NicParams& nic,
                                                    const models::QosParams& qos, uint64_t seed,
                                                    const std::string& base_dir,
                                                    bool allow_no_flows, int64_t max_memory_bytes,
                                                    bool tcp_allowed) {
  w.expect_object();
  // "transport": "rdma" | "tcp" — the workload's default, and per generator.
  const auto read_transport = [&](JsonReader& r, models::FlowTransport def) {
    if (!r.has("transport")) return def;
    const std::string v = r.choice("transport", {"rdma", "tcp"}, "rdma");
    if (v == "tcp" && !tcp_allowed) {
      throw InputError(r.child_path("transport"), "\"tcp\"",
                       "\"rdma\": an InfiniBand fabric carries RDMA only (kernel TCP runs on "
                       "Ethernet: \"fabric\": \"tcp\", or fabric.transport on a RoCE fabric)");
    }
    return v == "tcp" ? models::FlowTransport::Tcp : models::FlowTransport::Rdma;
  };
  const models::FlowTransport default_transport = read_transport(w, models::FlowTransport::Fabric);
  std::vector<models::FlowSpec> flows;
  // Before a generator makes its flows: would they fit in memory? (`count` may be an expected
  // number, for Poisson arrivals.)
  const auto fits = [&](const JsonReader& r, double count) {
    const auto room = static_cast<double>(flows_within(max_memory_bytes, flows.size()));
    if (count <= room) return;
    char made[64];
    std::snprintf(made, sizeof made, "%.3g flows", count);
    throw InputError(r.path(), made,
                     "a workload within " + memory_limit_text(max_memory_bytes) + ": room for " +
                         std::to_string(static_cast<int64_t>(room)) + " flows at about " +
                         std::to_string(kMemoryPerFlow) +
                         " B each; make fewer flows (hosts, duration, load), or raise "
                         "--max-memory if the machine has the memory");
  };
  // The workload's class ("priority" and/or "dscp"), default for every generator below.
  const TrafficClass default_class =
      read_traffic_class(w, TrafficClass{nic.data_priority, nic.data_dscp}, qos, nic);
  const int default_qps = static_cast<int>(w.integer("qps", 1, 1, 4096));
  const int hosts = static_cast<int>(f.host_node.size());
  // A generator's flows (`make()`) join the workload with the generator's class, transport and
  // queue pairs (each defaulting to the workload's), tagged with its name.
  const auto add_generated = [&](JsonReader& r, const char* tag, const auto& make) {
    const TrafficClass tc = read_traffic_class(r, default_class, qos, nic);
    const models::FlowTransport transport = read_transport(r, default_transport);
    const int qps = static_cast<int>(r.integer("qps", default_qps, 1, 4096));
    for (models::FlowSpec& fs : make()) {
      fs.priority = tc.priority;
      fs.dscp = tc.dscp;
      fs.transport = transport;
      fs.qps = qps;
      fs.tag = tag;
      flows.push_back(std::move(fs));
    }
  };
  if (auto list = w.get("flows")) {
    list->expect_array();
    for (size_t i = 0; i < list->size(); ++i) {
      JsonReader r = list->element(i);
      r.expect_object();
      models::FlowSpec fs;
      fs.src_host = host_at(r, "src", f);
      fs.dst_host = host_at(r, "dst", f);
      if (fs.src_host == fs.dst_host) {
        throw InputError(r.child_path("dst"), r.value_text("dst"), "a host other than src");
      }
      fs.bytes = r.bytes("size", 1);
      if (fs.bytes / nic.mtu >= kMaxPackets) {
        throw InputError(r.child_path("size"), r.value_text("size"),
                         "at most " + std::to_string(kMaxPackets) + " packets of the MTU (" +
                             std::to_string(nic.mtu) + " B): a queue pair counts 31-bit PSNs");
      }
      fs.start = r.time("start", sim::Time(0), sim::Time(0));
      const TrafficClass tc = read_traffic_class(r, default_class, qos, nic);
      fs.transport = read_transport(r, default_transport);
      fs.priority = tc.priority;
      fs.dscp = tc.dscp;
      fs.qps = static_cast<int>(r.integer("qps", default_qps, 1, 4096));
      if (auto route = r.get("route")) {
        route->expect_array();
        for (size_t k = 0; k < route->size(); ++k) {
          const Json& v = route->json()[k];
          const int node = v.is_string() ? f.node_by_name(v.get<std::string>()) : -1;
          if (node < 0 || f.host_index[node] >= 0) {
            throw InputError(route->index_path(k), message_text(v), "the name of a switch");
          }
          fs.route.push_back(node);
        }
        if (fs.route.empty()) throw InputError(route->path(), "[]", "a non-empty list of switches");
        check_route_adjacency(*route, fs, f);
      }
      fs.tag = "flows";
      r.finish();
      flows.push_back(std::move(fs));
    }
  }
  for_each_instance(w, "incast", [&](JsonReader& r, size_t i) {
    models::IncastParams p;
    p.receiver = host_at(r, "receiver", f);
    if (r.has("senders") && r.json().at("senders").is_number_integer()) {
      const int n = static_cast<int>(r.integer("senders", 1, hosts - 1));
      // n distinct senders other than the receiver, drawn with the seed.
      std::vector<int> others;
      for (int h = 0; h < hosts; ++h) {
        if (h != p.receiver) others.push_back(h);
      }
      sim::Rng rng(seed, kStreamIncast + i);
      for (int k = 0; k < n; ++k) {
        const size_t j = k + rng.below(others.size() - k);
        std::swap(others[k], others[j]);
        p.senders.push_back(others[k]);
      }
    } else {
      p.senders = host_list(r, "senders", f);
      for (size_t k = 0; k < p.senders.size(); ++k) {
        const std::string path = r.child_path("senders") + "[" + std::to_string(k) + "]";
        if (p.senders[k] == p.receiver) {
          throw InputError(path, std::to_string(p.senders[k]), "a sender other than the receiver");
        }
        for (size_t e = 0; e < k; ++e) {
          if (p.senders[e] == p.senders[k]) {
            throw InputError(path, message_text(r.json()["senders"][k]),
                             "a host not already listed (senders[" + std::to_string(e) + "])");
          }
        }
      }
    }
    p.bytes = r.bytes("size", 1);
    p.start = r.time("start", sim::Time(0), sim::Time(0));
    add_generated(r, "incast", [&] { return models::make_incast(p); });
  });
  for_each_instance(w, "permutation", [&](JsonReader& r, size_t i) {
    models::PermutationParams p;
    p.hosts = host_list(r, "hosts", f);
    if (p.hosts.size() < 2) throw InputError(r.child_path("hosts"), "", "at least two hosts");
    p.bytes = r.bytes("size", 1);
    p.start = r.time("start", sim::Time(0), sim::Time(0));
    fits(r, static_cast<double>(p.hosts.size()));
    sim::Rng rng(seed, kStreamPermutation + i);
    add_generated(r, "permutation", [&] { return models::make_permutation(p, rng); });
  });
  for_each_instance(w, "all_to_all", [&](JsonReader& r, size_t) {
    models::AllToAllParams p;
    p.hosts = host_list(r, "hosts", f);
    if (p.hosts.size() < 2) throw InputError(r.child_path("hosts"), "", "at least two hosts");
    p.bytes = r.bytes("size", 1);
    p.start = r.time("start", sim::Time(0), sim::Time(0));
    const auto n = static_cast<double>(p.hosts.size());
    fits(r, n * (n - 1));
    add_generated(r, "all_to_all", [&] { return models::make_all_to_all(p); });
  });
  for_each_instance(w, "poisson", [&](JsonReader& r, size_t i) {
    models::PoissonParams p;
    p.hosts = host_list(r, "hosts", f);
    if (p.hosts.size() < 2) throw InputError(r.child_path("hosts"), "", "at least two hosts");
    const std::string cdf = r.string("cdf");
    std::string file, text;
    if (cdf.find('/') == std::string::npos && cdf.find('.') == std::string::npos) {
      // A shipped distribution ("websearch"), compiled in (shipped_cdfs.hpp).
      const std::string* shipped = shipped_cdf(cdf);
      if (shipped == nullptr) {
        std::string names;
        for (const std::string& n : shipped_cdf_names()) names += (names.empty() ? "" : ", ") + n;
        throw InputError(
            r.child_path("cdf"), "\"" + cdf + "\"",
            "a shipped distribution (" + names + ") or a CDF file's path (with a '/' or a '.')");
      }
      file = cdf + ".cdf";
      text = *shipped;
    } else {
      file = std::filesystem::path(cdf).is_absolute() ? cdf : base_dir + "/" + cdf;
      text = read_text_file(file, r.child_path("cdf"));
    }
    try {
      p.cdf = models::parse_size_cdf(text, file);
    } catch (const std::exception& e) {
      throw InputError(r.child_path("cdf"), "\"" + cdf + "\"", e.what());
    }
    p.load = r.number("load", 0.3, 1e-9, 1.0);
    // The host link rate: that of the first host's link unless given.
    const auto& first_port = f.ports[f.host_node[p.hosts[0]]][0];
    p.host_rate_bps = r.rate_bps("host_rate", f.topo.links[first_port.link].rate_bps);
    p.start = r.time("start", sim::Time(0), sim::Time(0));
    p.duration = r.time("duration", sim::Time(1));
    // Expected arrivals: load x host_rate x hosts / (8 x mean size) per second.
    fits(r, p.load * static_cast<double>(p.host_rate_bps) * static_cast<double>(p.hosts.size()) /
                (8.0 * p.cdf.mean_bytes()) * (static_cast<double>(p.duration.ps) * 1e-12));
    sim::Rng rng(seed, kStreamPoisson + i);
    add_generated(r, "poisson", [&] { return models::make_poisson(p, rng); });
  });
  const sim::Time jitter = w.time("start_jitter", sim::Time(0), sim::Time(0));
  if (jitter.ps > 0) {
    sim::Rng rng(seed, kStreamJitter);
    models::apply_start_jitter(flows, jitter, rng);
  }
  w.finish();
  if (flows.empty() && !allow_no_flows) {
    throw InputError(w.path(), message_text(w.json()),
                     "at least one flow (\"flows\", \"incast\", \"permutation\", \"all_to_all\" "
                     "or \"poisson\") or a \"collective\"");
  }
  return flows;
}

}  // namespace scen
