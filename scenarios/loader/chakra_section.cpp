#include "scenarios/loader/chakra_section.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>

#include "scenarios/loader/chakra_nodes.hpp"
#include "scenarios/loader/collective_section.hpp"
#include "scenarios/loader/qos_section.hpp"
#include "scenarios/loader/rank_endpoints.hpp"

namespace scen {
namespace {

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
        throw InputError(g.index_path(i), message_text(v),
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
  std::vector<int> rank_nodes;
  if (r.has("ranks")) {
    JsonReader ranks = r.at("ranks");
    ranks.expect_array();
    for (size_t i = 0; i < ranks.size(); ++i) {
      const Json& v = ranks.element(i).json();
      const int node = v.is_string() ? f.node_by_name(v.get<std::string>()) : -1;
      if (node < 0 || f.host_index[node] < 0) {
        throw InputError(ranks.index_path(i), message_text(v), "a host or GPU of the topology");
      }
      rank_nodes.push_back(node);
    }
  } else if (gpus.gpus() > 0) {
    rank_nodes = gpus.nvlink_node;
  } else {
    rank_nodes = f.host_node;
  }
  const size_t n_ranks = rank_nodes.size();
  for (int node : rank_nodes) spec.rank_names.push_back(f.topo.nodes[node].name);
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
    throw InputError(r.child_path("comm"), message_text(comm_settings),
                     "an object of collective settings");
  }
  // Each rank's trace on its own, then per (group, rank) its collectives in file order and per
  // (src, dst, tag) the sends and the receives in file order.
  std::vector<ChakraRankTrace> traces;
  std::map<std::pair<uint32_t, uint32_t>, std::vector<const ChakraRankTrace::Collective*>>
      coll_nodes;
  std::map<std::tuple<uint32_t, uint32_t, int64_t>, std::vector<std::pair<uint32_t, int64_t>>>
      sends, recvs;
  for (uint32_t rank = 0; rank < n_ranks; ++rank) {
    traces.push_back(read_chakra_rank(file_of(rank), rank, n_ranks));
  }
  for (uint32_t rank = 0; rank < n_ranks; ++rank) {
    const ChakraRankTrace& t = traces[rank];
    for (const ChakraRankTrace::Collective& c : t.collectives) {
      const uint32_t g = group_of(c.group, chakra_node_path(file_of(rank), t.file.nodes[c.node]));
      coll_nodes[{g, rank}].push_back(&c);
    }
    for (const ChakraRankTrace::PointToPoint& m : t.p2p) {
      const auto key =
          m.send ? std::make_tuple(rank, m.peer, m.tag) : std::make_tuple(m.peer, rank, m.tag);
      (m.send ? sends : recvs)[key].emplace_back(m.node, m.bytes);
    }
  }
  for (ChakraRankTrace& t : traces) spec.ranks.push_back(std::move(t.nodes));
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
        throw InputError(chakra_node_path(file_of(key.second),
                                          traces[key.second].file.nodes[list.front()->node]) +
                             ": attribute pg_name",
                         spec.group_names[g], "a process group the rank is a member of");
      }
    }
    if (members.size() < 2) {
      // A group of one rank: its collectives move nothing.
      for (uint32_t m : members) {
        const auto it = coll_nodes.find({g, m});
        if (it == coll_nodes.end()) continue;
        for (const ChakraRankTrace::Collective* c : it->second) {
          spec.ranks[m][c->node].kind = models::ChakraNode::Kind::Other;
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
        const ChakraRankTrace::Collective& n = *coll_nodes.at({g, members[i]})[k];
        const models::CollectiveOp op = n.op;
        const int64_t bytes = n.bytes;
        if (i == 0) {
          coll.op = op;
          coll.bytes = bytes;
        } else if (op != coll.op || bytes != coll.bytes) {
          throw InputError(
              chakra_node_path(file_of(members[i]), traces[members[i]].file.nodes[n.node]),
              std::string(models::to_string(op)) + " of " + std::to_string(bytes) + " bytes",
              "the same collective as rank " + std::to_string(members[0]) + "'s collective " +
                  std::to_string(k) + " of the group (" + models::to_string(coll.op) + " of " +
                  std::to_string(coll.bytes) + " bytes)");
        }
        spec.ranks[members[i]][n.node].match = static_cast<uint32_t>(spec.collectives.size());
        coll.members.emplace_back(members[i], n.node);
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
  spec.endpoints = rank_endpoints(f, rank_nodes, tc.priority, tc.dscp);
  spec.start = r.time("start", sim::Time(0), sim::Time(0));
  r.finish();
  out.push_back(std::move(spec));
  return out;
}

}  // namespace scen
