#include "scenarios/loader/chakra_nodes.hpp"

#include <algorithm>
#include <optional>
#include <unordered_map>

#include "scenarios/loader/input_error.hpp"

namespace scen {

using ChakraProtoMsg::AttributeProto;
using ChakraProtoMsg::Node;

std::string chakra_node_path(const std::string& file, const Node& n) {
  return file + ": node " + std::to_string(n.id()) +
         (n.name().empty() ? "" : " (" + n.name() + ")");
}

namespace {

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
  throw InputError(chakra_node_path(file, n) + ": attribute " + name, a->ShortDebugString(),
                   "an integer");
}

int64_t required_integer(const std::string& file, const Node& n, const std::string& name,
                         int64_t min, int64_t max, const std::string& what) {
  const std::optional<int64_t> v = integer_attribute(file, n, name);
  if (!v) throw InputError(chakra_node_path(file, n) + ": attribute " + name, "", what);
  if (*v < min || *v > max) {
    throw InputError(chakra_node_path(file, n) + ": attribute " + name, std::to_string(*v), what);
  }
  return *v;
}

models::CollectiveOp chakra_collective_op(const std::string& file, const Node& n) {
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
  throw InputError(chakra_node_path(file, n) + ": attribute comm_type", std::to_string(type),
                   "ALL_REDUCE (0), ALL_GATHER (2), BROADCAST (5), ALL_TO_ALL (6) or "
                   "REDUCE_SCATTER (7): the collectives rdmasim runs");
}

}  // namespace

ChakraRankTrace read_chakra_rank(const std::string& file, uint32_t rank, size_t ranks) {
  // Dependencies are checked per rank; a rank's own id is needed for its sends and receives.
  ChakraRankTrace t;
  t.file = read_et_file(file);
  std::vector<models::ChakraNode> nodes;
  std::unordered_map<uint64_t, uint32_t> index;
  for (const Node& n : t.file.nodes) {
    if (!index.emplace(n.id(), static_cast<uint32_t>(nodes.size())).second) {
      throw InputError(chakra_node_path(file, n), "id " + std::to_string(n.id()) + " again",
                       "node ids unique within a rank's trace");
    }
    models::ChakraNode m;
    m.id = n.id();
    m.name = n.name();
    switch (n.type()) {
      case ChakraProtoMsg::COMP_NODE:
        if (n.duration_micros() > 1000000000000ull) {
          throw InputError(chakra_node_path(file, n) + ": duration_micros",
                           std::to_string(n.duration_micros()), "at most 10^12 us");
        }
        m.kind = models::ChakraNode::Kind::Compute;
        m.duration = sim::Time(static_cast<int64_t>(n.duration_micros()) * 1000000);
        break;
      case ChakraProtoMsg::COMM_COLL_NODE: {
        m.kind = models::ChakraNode::Kind::Collective;
        const AttributeProto* pg = attribute(n, "pg_name");
        t.collectives.push_back({static_cast<uint32_t>(nodes.size()),
                                 pg != nullptr ? pg->string_val() : "",
                                 chakra_collective_op(file, n),
                                 required_integer(file, n, "comm_size", 1, int64_t{1} << 40,
                                                  "a size in bytes, 1 to 2^40")});
        break;
      }
      case ChakraProtoMsg::COMM_SEND_NODE:
      case ChakraProtoMsg::COMM_RECV_NODE: {
        const bool send = n.type() == ChakraProtoMsg::COMM_SEND_NODE;
        const int64_t peer = required_integer(file, n, send ? "comm_dst" : "comm_src", 0,
                                              static_cast<int64_t>(ranks) - 1,
                                              "a rank below " + std::to_string(ranks));
        if (peer == static_cast<int64_t>(rank)) {
          throw InputError(
              chakra_node_path(file, n) + (send ? ": attribute comm_dst" : ": attribute comm_src"),
              std::to_string(peer), "another rank than the node's own");
        }
        const int64_t tag = integer_attribute(file, n, "comm_tag").value_or(0);
        const int64_t bytes = required_integer(file, n, "comm_size", 1, int64_t{1} << 40,
                                               "a message size in bytes, 1 to 2^40");
        m.kind = send ? models::ChakraNode::Kind::Send : models::ChakraNode::Kind::Recv;
        t.p2p.push_back(
            {send, static_cast<uint32_t>(peer), tag, static_cast<uint32_t>(nodes.size()), bytes});
        break;
      }
      case ChakraProtoMsg::INVALID_NODE:
        throw InputError(chakra_node_path(file, n) + ": type", "INVALID_NODE",
                         "a node type (COMP_NODE, COMM_COLL_NODE, COMM_SEND_NODE, ...)");
      default:
        m.kind = models::ChakraNode::Kind::Other;  // metadata, memory, storage: no time
        break;
    }
    nodes.push_back(std::move(m));
  }
  // Dependencies (data and control) within the rank, and no cycle among them.
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& n = t.file.nodes[i];
    std::vector<uint32_t> parents;
    for (const auto* deps : {&n.data_deps(), &n.ctrl_deps()}) {
      for (uint64_t d : *deps) {
        auto it = index.find(d);
        if (it == index.end()) {
          throw InputError(chakra_node_path(file, n) + ": deps", std::to_string(d),
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
        throw InputError(chakra_node_path(file, t.file.nodes[i]) + ": deps", "a cycle",
                         "dependencies that form no cycle");
      }
    }
  }
  t.nodes = std::move(nodes);
  return t;
}

}  // namespace scen
