#include "scenarios/loader/collective_section.hpp"

#include <map>
#include <set>

#include "models/collectives/nccl_chunking.hpp"
#include "scenarios/loader/channel_placement_section.hpp"
#include "scenarios/loader/collnet_section.hpp"
#include "scenarios/loader/nvls_section.hpp"
#include "scenarios/loader/qos_section.hpp"

namespace scen {
namespace {

using models::CollectiveAlgorithm;
using models::CollectiveOp;
using models::CollectiveProtocol;
using models::CollectiveSpec;

// "chunk": "auto" while loading, until the ranks tell whether they are GPUs (NCCL's chunk).
constexpr int64_t kAutoChunk = -2;

// Host names or numbers → transport endpoints, one rank each ("all": every host in order).
// On GPU servers (topologies/gpu_nodes.hpp) a rank is a GPU, named "n<server>g<gpu>": its
// endpoints are its NICs, plus its NVLink endpoint for ranks of its own server; "all" is
// every GPU in the order "placement" gives.
void read_ranks(JsonReader& r, const topo::Fabric& f, CollectiveSpec& s) {
  const topo::GpuCluster& gpus = f.topo.gpus;
  const int hosts = static_cast<int>(f.host_node.size());
  std::vector<int> gpu_of_node(f.topo.nodes.size(), -1);
  for (int g = 0; g < gpus.gpus(); ++g) gpu_of_node[gpus.nvlink_node[g]] = g;
  auto add = [&](int host) {
    const int node = f.host_node[host];
    const int gpu = gpu_of_node[node];
    s.rank_names.push_back(f.topo.nodes[node].name);
    if (gpu < 0) {
      s.rank_endpoints.push_back({static_cast<uint32_t>(host)});
      s.rank_server.push_back(-1);
      s.rank_nvlink.push_back(0);
      return;
    }
    std::vector<uint32_t> nics;
    for (int n : gpus.nic_nodes[gpu]) nics.push_back(static_cast<uint32_t>(f.host_index[n]));
    s.rank_endpoints.push_back(std::move(nics));
    s.rank_server.push_back(gpus.server_of(gpu));
    s.rank_nvlink.push_back(static_cast<uint32_t>(host));
  };
  // "placement" orders "all" on GPU servers: node-major (n0g0, n0g1, ..., n1g0, ...: ring
  // neighbours share a server, NVLink) or gpu-major (n0g0, n1g0, ..., n0g1, ...: ring
  // neighbours share a rail).
  const std::string placement = r.choice("placement", {"node-major", "gpu-major"}, "node-major");
  if (r.has("placement") && gpus.empty()) {
    throw InputError(r.child_path("placement"), r.value_text("placement"),
                     "no placement: it orders the GPUs of GPU servers (topology.nodes), and "
                     "this topology has plain hosts");
  }
  if (!r.has("ranks") || (r.json()["ranks"].is_string() && r.json()["ranks"] == "all")) {
    if (r.has("ranks")) (void)r.at("ranks");
    if (!gpus.empty()) {
      const int per = gpus.params.gpus;
      for (int i = 0; i < gpus.gpus(); ++i) {
        const int g = placement == "node-major" ? i : (i % gpus.servers) * per + i / gpus.servers;
        add(f.host_index[gpus.nvlink_node[g]]);
      }
      return;
    }
    for (int h = 0; h < hosts; ++h) add(h);
    return;
  }
  JsonReader list = r.at("ranks");
  list.expect_array();
  std::set<int> seen;
  for (size_t i = 0; i < list.size(); ++i) {
    const Json& v = list.json()[i];
    int host = -1;
    if (v.is_number_integer() && v.get<int64_t>() >= 0 && v.get<int64_t>() < hosts) {
      host = static_cast<int>(v.get<int64_t>());
    } else if (v.is_string()) {
      const int node = f.node_by_name(v.get<std::string>());
      if (node >= 0) host = f.host_index[node];
    }
    if (host < 0)
      throw InputError(list.index_path(i), message_text(v), "a host name or host number");
    if (!seen.insert(host).second) {
      throw InputError(list.index_path(i), message_text(v), "a host not already a rank");
    }
    add(host);
  }
}

// The hierarchical all-reduce (models/collectives/hierarchical.cpp) runs on GPU ranks, as
// many on every server.
void check_hierarchical(JsonReader& r, const CollectiveSpec& s) {
  std::map<int, int> per_server;
  for (size_t i = 0; i < s.rank_server.size(); ++i) {
    if (s.rank_server[i] < 0) {
      throw InputError(r.child_path("algorithm"), "\"hierarchical\"",
                       "GPU ranks (rank " + s.rank_names[i] +
                           " is a plain host; topology.nodes makes GPU servers)");
    }
    ++per_server[s.rank_server[i]];
  }
  for (const auto& [server, n] : per_server) {
    if (n != per_server.begin()->second) {
      throw InputError(r.child_path("ranks"), r.has("ranks") ? r.value_text("ranks") : "all",
                       "as many ranks on every server for the hierarchical algorithm (server " +
                           std::to_string(server) + " has " + std::to_string(n) + ", server " +
                           std::to_string(per_server.begin()->first) + " has " +
                           std::to_string(per_server.begin()->second) + ")");
    }
  }
}

}  // namespace

// nccl-tests' -d types (ncclDataType_t) and their sizes.
const std::vector<ElementType>& element_types() {
  static const std::vector<ElementType> types{
      {"float", 4},  {"int32", 4}, {"uint32", 4}, {"half", 2}, {"bfloat16", 2},
      {"double", 8}, {"int64", 8}, {"uint64", 8}, {"int8", 1}, {"uint8", 1}};
  return types;
}

const FieldTable<CollectiveSpec>& collective_fields() {
  static const FieldTable<CollectiveSpec> table = fields_from(
      models::collective_param_table(),
      {
          Field<CollectiveSpec>{"channels", "", "",
                                [](JsonReader& r, CollectiveSpec& s) {
                                  if (r.has("channels") && r.json()["channels"] == "auto") {
                                    (void)r.at("channels");
                                    s.channels = 0;
                                  } else {
                                    s.channels =
                                        static_cast<int>(r.integer("channels", s.channels, 1, 64));
                                  }
                                },
                                [](const CollectiveSpec& s) {
                                  return s.channels == 0 ? Json("auto") : Json(s.channels);
                                }},
          Field<CollectiveSpec>{"chunk", "", "",
                                [](JsonReader& r, CollectiveSpec& s) {
                                  if (!r.has("chunk")) return;
                                  const Json& v = r.json()["chunk"];
                                  if (v == "auto" || v == "nccl") {
                                    (void)r.at("chunk");
                                    s.chunk_bytes = v == "nccl" ? models::kNcclChunk : kAutoChunk;
                                  } else {
                                    s.chunk_bytes = r.bytes("chunk", 0, 0);
                                  }
                                },
                                [](const CollectiveSpec& s) {
                                  return s.chunk_bytes == models::kNcclChunk ? Json("nccl")
                                         : s.chunk_bytes == kAutoChunk
                                             ? Json("auto")
                                             : Json(sim::format_bytes(s.chunk_bytes));
                                }},
          Field<CollectiveSpec>{"launch_latency", "", "",
                                [](JsonReader& r, CollectiveSpec& s) {
                                  if (r.has("launch_latency") &&
                                      r.json()["launch_latency"] == "auto") {
                                    (void)r.at("launch_latency");
                                    s.launch_latency = sim::Time(-1);
                                  } else {
                                    if (r.has("launch_latency"))
                                      s.launch_latency = r.time("launch_latency");
                                  }
                                },
                                [](const CollectiveSpec& s) {
                                  return s.launch_latency.ps < 0
                                             ? Json("auto")
                                             : Json(sim::format_time(s.launch_latency));
                                }},
      });
  return table;
}

CollectiveSpec collective_defaults() {
  CollectiveSpec s;
  s.chunk_bytes = kAutoChunk;  // resolved once the ranks are known
  return s;
}

CollectiveSpec read_collective(JsonReader& r, const topo::Fabric& f, const models::NicParams& nic,
                               const models::QosParams& qos, bool with_sizes) {
  r.expect_object();
  CollectiveSpec s = collective_defaults();
  // A training step's groups all-reduce (their sizes come from the model).
  s.op = with_sizes ? choose(r, "op", models::kCollectiveOps, CollectiveOp::AllReduce)
                    : CollectiveOp::AllReduce;
  s.algorithm = choose(r, "algorithm", models::kCollectiveAlgorithms, CollectiveAlgorithm::Auto);
  s.protocol = choose(r, "protocol", models::kCollectiveProtocols, CollectiveProtocol::Simple);
  std::vector<std::string> types;
  for (const ElementType& t : element_types()) types.push_back(t.name);
  const std::string type = r.choice("type", types, "float");
  for (const ElementType& t : element_types()) {
    if (t.name == type) s.type_bytes = t.bytes;
  }
  if (!with_sizes) {
    // The sizes come from elsewhere (training buckets).
  } else if (r.has("size")) {
    s.min_bytes = s.max_bytes = r.bytes("size", 1);
    if (r.has("min") || r.has("max")) {
      throw InputError(r.child_path("size"), r.value_text("size"),
                       "either \"size\" or \"min\"/\"max\", not both");
    }
  } else {
    s.min_bytes = r.bytes("min", 1);
    s.max_bytes = r.bytes("max", s.min_bytes, s.min_bytes);
  }
  if (with_sizes) s.factor = r.integer("factor", 2, 2, 1 << 20);
  read_fields(r, collective_fields(), s);
  read_ranks(r, f, s);
  const int n = s.ranks();
  if (n < 2) throw InputError(r.child_path("ranks"), r.value_text("ranks"), "at least two ranks");
  if (s.root >= n) {
    throw InputError(r.child_path("root"), std::to_string(s.root),
                     "a rank below " + std::to_string(n));
  }
  const TrafficClass tc =
      read_traffic_class(r, TrafficClass{nic.data_priority, nic.data_dscp}, qos, nic);
  s.priority = tc.priority;
  s.dscp = tc.dscp;
  // Algorithms that do not exist for this op or rank count are refused here, with the path.
  const bool reduce = s.op == CollectiveOp::AllReduce;
  const bool ring_op = reduce || s.op == CollectiveOp::AllGather ||
                       s.op == CollectiveOp::ReduceScatter || s.op == CollectiveOp::Broadcast;
  const bool direct_op = s.op == CollectiveOp::AllToAll || s.op == CollectiveOp::SendRecv;
  const bool ok = s.algorithm == CollectiveAlgorithm::Auto ||
                  (s.algorithm == CollectiveAlgorithm::Ring && ring_op) ||
                  (s.algorithm == CollectiveAlgorithm::Direct && direct_op) ||
                  (s.algorithm == CollectiveAlgorithm::DoubleBinaryTree && reduce) ||
                  (s.algorithm == CollectiveAlgorithm::HalvingDoubling && reduce) ||
                  (s.algorithm == CollectiveAlgorithm::Hierarchical && reduce) ||
                  (s.algorithm == CollectiveAlgorithm::Sharp && reduce) ||
                  (s.algorithm == CollectiveAlgorithm::Nvls && reduce) ||
                  (s.algorithm == CollectiveAlgorithm::NvlsTree && reduce) ||
                  (s.algorithm == CollectiveAlgorithm::CollNetDirect && reduce) ||
                  (s.algorithm == CollectiveAlgorithm::CollNetChain && reduce);
  if (!ok) {
    throw InputError(r.child_path("algorithm"), "\"" + std::string(to_string(s.algorithm)) + "\"",
                     std::string("an algorithm of ") + to_string(s.op) +
                         " (ring: all_reduce, all_gather, reduce_scatter, broadcast; "
                         "halving_doubling, double_binary_tree, hierarchical, sharp, nvls, "
                         "nvls_tree, collnet_direct, collnet_chain: "
                         "all_reduce; "
                         "direct: "
                         "all_to_all, send_recv; or auto)");
  }
  if (s.algorithm == CollectiveAlgorithm::Sharp && s.protocol != CollectiveProtocol::Simple) {
    throw InputError(r.child_path("protocol"), "\"" + std::string(to_string(s.protocol)) + "\"",
                     "\"simple\" with algorithm sharp (the switches reduce the data itself)");
  }
  if (s.algorithm == CollectiveAlgorithm::HalvingDoubling && (n & (n - 1)) != 0) {
    throw InputError(r.child_path("algorithm"), "\"halving_doubling\"",
                     "a power-of-two number of ranks (there are " + std::to_string(n) + ")");
  }
  if (s.algorithm == CollectiveAlgorithm::Hierarchical) check_hierarchical(r, s);
  if (reduce) read_nvls(r, f, s);     // nvls_section.hpp
  if (reduce) read_collnet(r, f, s);  // collnet_section.hpp
  if (s.algorithm == CollectiveAlgorithm::NvlsTree) {
    // NVLS-tree's channels are NCCL's NVLS channels (NCCL_NVLS_NCHANNELS, 16, src/transport/
    // nvls.cc), each with `slots` chunks in flight: the window of its NVSwitch groups.
    if (s.channels == 0) s.channels = 16;
    s.nvls_tree.max_outstanding_chunks = s.channels * s.slots;
  }
  read_channel_placement(r, f, s);
  if (s.chunk_bytes == kAutoChunk) {
    // NCCL chunks the data of GPU ranks; plain hosts send a step's data as one message.
    bool gpu_ranks = !s.rank_server.empty();
    for (const int server : s.rank_server) gpu_ranks = gpu_ranks && server >= 0;
    s.chunk_bytes = gpu_ranks ? models::kNcclChunk : 0;
  }
  r.finish();
  return s;
}

std::vector<CollectiveSpec> read_collective_section(JsonReader& w, const topo::Fabric& f,
                                                    const models::NicParams& nic,
                                                    const models::QosParams& qos) {
  std::vector<CollectiveSpec> out;
  auto sec = w.get("collective");
  if (!sec) return out;
  if (sec->json().is_array()) {
    for (size_t i = 0; i < sec->size(); ++i) {
      JsonReader e = sec->element(i);
      out.push_back(read_collective(e, f, nic, qos, true));
    }
  } else {
    out.push_back(read_collective(*sec, f, nic, qos, true));
  }
  return out;
}

}  // namespace scen
