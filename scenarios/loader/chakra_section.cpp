#include "scenarios/loader/chakra_section.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>

#include "scenarios/loader/chakra_trace.hpp"
#include "scenarios/loader/collective_section.hpp"
#include "scenarios/loader/qos_section.hpp"

namespace scen {
namespace {

using ChakraProtoMsg::AttributeProto;
using ChakraProtoMsg::Node;

std::string node_path(const std::string& file, const Node& n) {
  return file + ": node " + std::to_string(n.id()) +
         (n.name().empty() ? "" : " (" + n.name() + ")");
}

const AttributeProto* attribute(const Node& n, const std::string& name) {
  for (const auto& a : n.attr()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

// An integer attribute in any of the schema's integer encodings (Chakra's own tools write
// comm_size as int64 or uint64 and ranks as int32).
std::optional<int64_t> integer_attribute(const std::string& file, const Node& n,
                                         const std::string& name) {
  const AttributeProto* a = attribute(n, name);
  if (a == nullptr) return std::nullopt;
  switch (a->value_case()) {
    case AttributeProto::kInt32Val:
      return a->int32_val();
    case AttributeProto::kInt64Val:
      return a->int64_val();
    case AttributeProto::kUint32Val:
      return a->uint32_val();
    case AttributeProto::kUint64Val:
      if (a->uint64_val() <= static_cast<uint64_t>(INT64_MAX)) {
        return static_cast<int64_t>(a->uint64_val());
      }
      break;
    case AttributeProto::kSint32Val:
      return a->sint32_val();
    case AttributeProto::kSint64Val:
      return a->sint64_val();
    case AttributeProto::kFixed32Val:
      return a->fixed32_val();
    case AttributeProto::kFixed64Val:
      if (a->fixed64_val() <= static_cast<uint64_t>(INT64_MAX)) {
        return static_cast<int64_t>(a->fixed64_val());
      }
      break;
    case AttributeProto::kSfixed32Val:
      return a->sfixed32_val();
    case AttributeProto::kSfixed64Val:
      return a->sfixed64_val();
    default:
      break;
  }
  throw InputError(node_path(file, n) + ": attribute " + name, a->ShortDebugString(), "an integer");
}

int64_t required_integer(const std::string& file, const Node& n, const std::string& name,
                         int64_t min, int64_t max, const std::string& what) {
  const std::optional<int64_t> v = integer_attribute(file, n, name);
  if (!v) throw InputError(node_path(file, n) + ": attribute " + name, "", what);
  if (*v < min || *v > max) {
    throw InputError(node_path(file, n) + ": attribute " + name, std::to_string(*v), what);
  }
  return *v;
}

models::CollectiveOp collective_op(const std::string& file, const Node& n) {
  const int64_t type = required_integer(file, n, "comm_type", 0, 9,
                                        "a CollectiveCommType (ALL_REDUCE 0 ... BARRIER 9)");
  switch (static_cast<ChakraProtoMsg::CollectiveCommType>(type)) {
    case ChakraProtoMsg::ALL_REDUCE:
      return models::CollectiveOp::AllReduce;
    case ChakraProtoMsg::ALL_GATHER:
      return models::CollectiveOp::AllGather;
    case ChakraProtoMsg::REDUCE_SCATTER:
      return models::CollectiveOp::ReduceScatter;
    case ChakraProtoMsg::ALL_TO_ALL:
      return models::CollectiveOp::AllToAll;
    case ChakraProtoMsg::BROADCAST:
      return models::CollectiveOp::Broadcast;
    default:
      break;
  }
  throw InputError(node_path(file, n) + ": attribute comm_type", std::to_string(type),
                   "ALL_REDUCE (0), ALL_GATHER (2), BROADCAST (5), ALL_TO_ALL (6) or "
                   "REDUCE_SCATTER (7): the collectives rdmasim runs");
}

// The process groups: ASTRA-sim's communicator-group file, {"name": [rank, ...], ...}.
std::map<std::string, std::vector<uint32_t>> read_groups(const std::string& file, size_t ranks) {
  const Json j = read_json_file(file);
  JsonReader r(j, file);
  r.expect_object();
  std::map<std::string, std::vector<uint32_t>> groups;
  for (auto it = j.begin(); it != j.end(); ++it) {
    JsonReader g = r.at(it.key());
    g.expect_array();
    std::vector<uint32_t> members;
    std::vector<bool> seen(ranks, false);
    for (size_t i = 0; i < g.size(); ++i) {
      const Json& v = g.element(i).json();
      if (!v.is_number_integer() || v.get<int64_t>() < 0 ||
          v.get<int64_t>() >= static_cast<int64_t>(ranks) || seen[v.get<size_t>()]) {
        throw InputError(g.index_path(i), v.dump(),
                         "a rank below " + std::to_string(ranks) + ", once per group");
      }
      seen[v.get<size_t>()] = true;
      members.push_back(v.get<uint32_t>());
    }
    groups[it.key()] = std::move(members);
  }
  return groups;
}

}  // namespace

std::vector<models::ChakraSpec> read_chakra_section(JsonReader& w, const topo::Fabric& f,
                                                    const models::NicParams& nic,
                                                    const models::QosParams& qos,
                                                    const std::string& dir) {
  std::vector<models::ChakraSpec> out;
  auto sec = w.get("chakra");
  if (!sec) return out;
  JsonReader& r = *sec;
  r.expect_object();
  models::ChakraSpec spec;
  namespace fs = std::filesystem;
  const auto resolve = [&dir](const std::string& p) {
    return fs::path(p).is_absolute() ? p : (fs::path(dir) / p).string();
  };
  // The ranks: the GPUs listed, else every GPU of the topology, else every host.
  const topo::GpuCluster& gpus = f.topo.gpus;
  std::vector<int> gpu_of_name_node(f.topo.nodes.size(), -1);
  for (int g = 0; g < gpus.gpus(); ++g) gpu_of_name_node[gpus.nvlink_node[g]] = g;
  std::vector<int> rank_nodes;
  if (r.has("ranks")) {
    JsonReader ranks = r.at("ranks");
    ranks.expect_array();
    for (size_t i = 0; i < ranks.size(); ++i) {
      const Json& v = ranks.element(i).json();
      const int node = v.is_string() ? f.node_by_name(v.get<std::string>()) : -1;
      if (node < 0 || f.host_index[node] < 0) {
        throw InputError(ranks.index_path(i), v.dump(), "a host or GPU of the topology");
      }
      rank_nodes.push_back(node);
    }
  } else if (gpus.gpus() > 0) {
    rank_nodes = gpus.nvlink_node;
  } else {
    rank_nodes = f.host_node;
  }
  const size_t n_ranks = rank_nodes.size();
  for (int node : rank_nodes) {
    spec.rank_names.push_back(f.topo.nodes[node].name);
    const int g = gpu_of_name_node[node];
    spec.rank_nvlink.push_back(static_cast<uint32_t>(f.host_index[node]));
    spec.rank_nic.push_back(static_cast<uint32_t>(g >= 0 ? f.host_index[gpus.nic_nodes[g].front()]
                                                         : f.host_index[node]));
    spec.rank_server.push_back(g >= 0 ? gpus.server_of(g) : -1);
  }
  // One file per rank: PREFIX.<rank>.et (ASTRA-sim's naming), no more, no fewer.
  const std::string prefix = resolve(r.string("traces"));
  const auto file_of = [&prefix](size_t rank) {
    return prefix + "." + std::to_string(rank) + ".et";
  };
  if (fs::exists(file_of(n_ranks))) {
    throw InputError(r.child_path("traces"), file_of(n_ranks) + " exists",
                     "one trace per rank: " + std::to_string(n_ranks) + " ranks (" +
                         (r.has("ranks")    ? "ranks"
                          : gpus.gpus() > 0 ? "the topology's GPUs"
                                            : "the topology's hosts") +
                         "), files .0.et to ." + std::to_string(n_ranks - 1) + ".et");
  }
  std::map<std::string, std::vector<uint32_t>> groups;
  if (r.has("comm_groups")) groups = read_groups(resolve(r.string("comm_groups")), n_ranks);
  // Group index by name; "" (no pg_name) is every rank.
  std::map<std::string, uint32_t> group_index;
  std::vector<std::vector<uint32_t>> group_members;
  const auto group_of = [&](const std::string& name, const std::string& where) -> uint32_t {
    auto it = group_index.find(name);
    if (it != group_index.end()) return it->second;
    std::vector<uint32_t> members;
    if (name.empty()) {
      for (uint32_t i = 0; i < n_ranks; ++i) members.push_back(i);
    } else {
      auto g = groups.find(name);
      if (g == groups.end()) {
        throw InputError(
            where + ": attribute pg_name", name,
            "a process group of " + (r.has("comm_groups")
                                         ? r.value_text("comm_groups")
                                         : std::string("the comm_groups file (none given)")));
      }
      members = g->second;
    }
    const auto id = static_cast<uint32_t>(group_members.size());
    group_index.emplace(name, id);
    group_members.push_back(std::move(members));
    spec.group_names.push_back(name);
    return id;
  };
  const Json comm_settings = r.has("comm") ? r.at("comm").json() : Json::object();
  if (!comm_settings.is_object()) {
    throw InputError(r.child_path("comm"), comm_settings.dump(),
                     "an object of collective settings");
  }
  // Per (group, rank) its collective nodes in file order; per (src, dst, tag) the sends and
  // the receives in file order.
  std::map<std::pair<uint32_t, uint32_t>, std::vector<std::pair<uint32_t, const Node*>>> coll_nodes;
  std::map<std::tuple<uint32_t, uint32_t, int64_t>, std::vector<std::pair<uint32_t, int64_t>>>
      sends, recvs;
  std::vector<EtFile> files(n_ranks);
  for (size_t rank = 0; rank < n_ranks; ++rank) {
    const std::string file = file_of(rank);
    files[rank] = read_et_file(file);
    std::vector<models::ChakraNode> nodes;
    std::unordered_map<uint64_t, uint32_t> index;
    for (const Node& n : files[rank].nodes) {
      if (!index.emplace(n.id(), static_cast<uint32_t>(nodes.size())).second) {
        throw InputError(node_path(file, n), "id " + std::to_string(n.id()) + " again",
                         "node ids unique within a rank's trace");
      }
      models::ChakraNode m;
      m.id = n.id();
      m.name = n.name();
      switch (n.type()) {
        case ChakraProtoMsg::COMP_NODE:
          if (n.duration_micros() > 1000000000000ull) {
            throw InputError(node_path(file, n) + ": duration_micros",
                             std::to_string(n.duration_micros()), "at most 10^12 us");
          }
          m.kind = models::ChakraNode::Kind::Compute;
          m.duration = sim::Time(static_cast<int64_t>(n.duration_micros()) * 1000000);
          break;
        case ChakraProtoMsg::COMM_COLL_NODE: {
          (void)collective_op(file, n);
          m.kind = models::ChakraNode::Kind::Collective;
          const AttributeProto* pg = attribute(n, "pg_name");
          const uint32_t g = group_of(pg != nullptr ? pg->string_val() : "", node_path(file, n));
          coll_nodes[{g, static_cast<uint32_t>(rank)}].emplace_back(
              static_cast<uint32_t>(nodes.size()), &n);
          break;
        }
        case ChakraProtoMsg::COMM_SEND_NODE:
        case ChakraProtoMsg::COMM_RECV_NODE: {
          const bool send = n.type() == ChakraProtoMsg::COMM_SEND_NODE;
          const int64_t peer = required_integer(file, n, send ? "comm_dst" : "comm_src", 0,
                                                static_cast<int64_t>(n_ranks) - 1,
                                                "a rank below " + std::to_string(n_ranks));
          if (peer == static_cast<int64_t>(rank)) {
            throw InputError(
                node_path(file, n) + (send ? ": attribute comm_dst" : ": attribute comm_src"),
                std::to_string(peer), "another rank than the node's own");
          }
          const int64_t tag = integer_attribute(file, n, "comm_tag").value_or(0);
          const int64_t bytes = required_integer(file, n, "comm_size", 1, int64_t{1} << 40,
                                                 "a message size in bytes, 1 to 2^40");
          m.kind = send ? models::ChakraNode::Kind::Send : models::ChakraNode::Kind::Recv;
          const auto key =
              send ? std::make_tuple(static_cast<uint32_t>(rank), static_cast<uint32_t>(peer), tag)
                   : std::make_tuple(static_cast<uint32_t>(peer), static_cast<uint32_t>(rank), tag);
          (send ? sends : recvs)[key].emplace_back(static_cast<uint32_t>(nodes.size()), bytes);
          break;
        }
        case ChakraProtoMsg::INVALID_NODE:
          throw InputError(node_path(file, n) + ": type", "INVALID_NODE",
                           "a node type (COMP_NODE, COMM_COLL_NODE, COMM_SEND_NODE, ...)");
        default:
          m.kind = models::ChakraNode::Kind::Other;  // metadata, memory, storage: no time
          break;
      }
      nodes.push_back(std::move(m));
    }
    // Dependencies (data and control) within the rank, and no cycle among them.
    for (size_t i = 0; i < nodes.size(); ++i) {
      const Node& n = files[rank].nodes[i];
      std::vector<uint32_t> parents;
      for (const auto* deps : {&n.data_deps(), &n.ctrl_deps()}) {
        for (uint64_t d : *deps) {
          auto it = index.find(d);
          if (it == index.end()) {
            throw InputError(node_path(file, n) + ": deps", std::to_string(d),
                             "the id of a node of the same trace");
          }
          if (std::find(parents.begin(), parents.end(), it->second) == parents.end()) {
            parents.push_back(it->second);
          }
        }
      }
      nodes[i].parents = static_cast<uint32_t>(parents.size());
      for (uint32_t p : parents) nodes[p].children.push_back(static_cast<uint32_t>(i));
    }
    std::vector<uint32_t> waiting(nodes.size());
    std::vector<uint32_t> ready;
    for (size_t i = 0; i < nodes.size(); ++i) {
      waiting[i] = nodes[i].parents;
      if (waiting[i] == 0) ready.push_back(static_cast<uint32_t>(i));
    }
    size_t visited = 0;
    while (!ready.empty()) {
      const uint32_t i = ready.back();
      ready.pop_back();
      ++visited;
      for (uint32_t c : nodes[i].children) {
        if (--waiting[c] == 0) ready.push_back(c);
      }
    }
    if (visited != nodes.size()) {
      for (size_t i = 0; i < nodes.size(); ++i) {
        if (waiting[i] > 0) {
          throw InputError(node_path(file, files[rank].nodes[i]) + ": deps", "a cycle",
                           "dependencies that form no cycle");
        }
      }
    }
    spec.ranks.push_back(std::move(nodes));
  }
  // Collectives: a group's k-th collective on each member is one collective.
  for (uint32_t g = 0; g < group_members.size(); ++g) {
    const std::vector<uint32_t>& members = group_members[g];
    size_t count = 0;
    for (size_t k = 0; k < members.size(); ++k) {
      const auto it = coll_nodes.find({g, members[k]});
      const size_t c = it == coll_nodes.end() ? 0 : it->second.size();
      if (k == 0) count = c;
      if (c != count) {
        throw InputError(
            file_of(members[k]),
            std::to_string(c) + " collectives of group \"" + spec.group_names[g] + "\"",
            "as many as the group's other ranks issue (" + std::to_string(count) + " on rank " +
                std::to_string(members[0]) + ")");
      }
    }
    for (const auto& [key, list] : coll_nodes) {
      if (key.first == g &&
          std::find(members.begin(), members.end(), key.second) == members.end()) {
        throw InputError(
            node_path(file_of(key.second), *list.front().second) + ": attribute pg_name",
            spec.group_names[g], "a process group the rank is a member of");
      }
    }
    if (members.size() < 2) {
      // A group of one rank: its collectives move nothing.
      for (uint32_t m : members) {
        const auto it = coll_nodes.find({g, m});
        if (it == coll_nodes.end()) continue;
        for (const auto& [node, n] : it->second) {
          spec.ranks[m][node].kind = models::ChakraNode::Kind::Other;
        }
      }
      spec.groups.emplace_back();
      continue;
    }
    Json c = comm_settings;
    c["ranks"] = Json::array();
    for (uint32_t m : members) c["ranks"].push_back(spec.rank_names[m]);
    JsonReader cr(c, r.child_path("comm"));
    spec.groups.push_back(read_collective(cr, f, nic, qos, false));
    for (size_t k = 0; k < count; ++k) {
      models::ChakraCollective coll;
      coll.group = g;
      for (size_t i = 0; i < members.size(); ++i) {
        const auto& [node, n] = coll_nodes.at({g, members[i]})[k];
        const std::string file = file_of(members[i]);
        const models::CollectiveOp op = collective_op(file, *n);
        const int64_t bytes = required_integer(file, *n, "comm_size", 1, int64_t{1} << 40,
                                               "a size in bytes, 1 to 2^40");
        if (i == 0) {
          coll.op = op;
          coll.bytes = bytes;
        } else if (op != coll.op || bytes != coll.bytes) {
          throw InputError(
              node_path(file, *n),
              std::string(models::to_string(op)) + " of " + std::to_string(bytes) + " bytes",
              "the same collective as rank " + std::to_string(members[0]) + "'s collective " +
                  std::to_string(k) + " of the group (" + models::to_string(coll.op) + " of " +
                  std::to_string(coll.bytes) + " bytes)");
        }
        spec.ranks[members[i]][node].match = static_cast<uint32_t>(spec.collectives.size());
        coll.members.emplace_back(members[i], node);
      }
      spec.collectives.push_back(std::move(coll));
    }
  }
  // Transfers: the k-th send from a to b with a tag meets the k-th receive at b from a with it.
  for (const auto& [key, list] : sends) {
    const auto& [src, dst, tag] = key;
    const auto it = recvs.find(key);
    const size_t matched = it == recvs.end() ? 0 : it->second.size();
    if (matched != list.size()) {
      throw InputError(
          file_of(dst),
          std::to_string(matched) + " receives from rank " + std::to_string(src) + " with tag " +
              std::to_string(tag),
          "one per send of rank " + std::to_string(src) + " (" + std::to_string(list.size()) + ")");
    }
    for (size_t k = 0; k < list.size(); ++k) {
      models::ChakraTransfer t;
      t.src_rank = src;
      t.dst_rank = dst;
      t.send_node = list[k].first;
      t.recv_node = it->second[k].first;
      t.bytes = list[k].second;
      spec.ranks[src][t.send_node].match = static_cast<uint32_t>(spec.transfers.size());
      spec.ranks[dst][t.recv_node].match = static_cast<uint32_t>(spec.transfers.size());
      spec.transfers.push_back(t);
    }
  }
  for (const auto& [key, list] : recvs) {
    if (sends.count(key) == 0) {
      const auto& [src, dst, tag] = key;
      throw InputError(file_of(dst),
                       std::to_string(list.size()) + " receives from rank " + std::to_string(src) +
                           " with tag " + std::to_string(tag),
                       "a matching send in rank " + std::to_string(src) + "'s trace");
    }
  }
  const TrafficClass tc =
      read_traffic_class(r, TrafficClass{nic.data_priority, nic.data_dscp}, qos, nic);
  spec.priority = tc.priority;
  spec.dscp = tc.dscp;
  spec.start = r.time("start", sim::Time(0), sim::Time(0));
  r.finish();
  out.push_back(std::move(spec));
  return out;
}

}  // namespace scen
