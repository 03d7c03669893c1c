#include "scenarios/chakra/chakra_generate.hpp"

#include <nlohmann/json.hpp>
#include <vector>

#include "models/training/pipeline_schedule.hpp"
#include "scenarios/loader/input_error.hpp"
#include "scenarios/outputs/write_outputs.hpp"

namespace scen {
namespace {

using ChakraProtoMsg::Node;

void attr_int(Node& n, const char* name, int64_t v) {
  auto* a = n.add_attr();
  a->set_name(name);
  a->set_int64_val(v);
}

void attr_string(Node& n, const char* name, const std::string& v) {
  auto* a = n.add_attr();
  a->set_name(name);
  a->set_string_val(v);
}

// Builds one rank's chain: each new node depends on every node of the previous step.
struct Chain {
  EtFile et;
  std::vector<uint64_t> previous;
  Node& add(const std::string& name, ChakraProtoMsg::NodeType type) {
    Node& n = *et.nodes.emplace(et.nodes.end());
    n.set_id(et.nodes.size() - 1);
    n.set_name(name);
    n.set_type(type);
    for (uint64_t p : previous) n.add_data_deps(p);
    auto* a = n.add_attr();
    a->set_name("is_cpu_op");
    a->set_bool_val(false);
    return n;
  }
  void step(std::vector<uint64_t> ids) { previous = std::move(ids); }
};

}  // namespace

void write_et_file(const std::string& file, const EtFile& et) {
  std::string out;
  auto put = [&out](const google::protobuf::MessageLite& m) {
    // The length as a base-128 varint, least significant group first, then the message.
    std::string body;
    m.SerializeToString(&body);
    for (uint64_t n = body.size();; n >>= 7) {
      if (n < 0x80) {
        out.push_back(static_cast<char>(n));
        break;
      }
      out.push_back(static_cast<char>((n & 0x7f) | 0x80));
    }
    out += body;
  };
  put(et.metadata);
  for (const auto& n : et.nodes) put(n);
  write_file_atomic(file, out);
}

int write_training_traces(const ChakraTrainingLayout& l, const std::string& prefix) {
  if (l.layers % l.pp != 0) {
    throw InputError("--layers", std::to_string(l.layers), "a multiple of --pp");
  }
  if ((l.tp > 1 || l.pp > 1) && l.activation_bytes <= 0) {
    throw InputError("--activations", "", "one micro-batch's activations in bytes (tp or pp > 1)");
  }
  std::vector<models::TrainingLayer> layers(static_cast<size_t>(l.layers));
  for (auto& layer : layers) {
    layer.forward = l.forward;
    layer.backward = l.backward;
    layer.gradient_bytes = l.gradient_bytes;
  }
  const int ranks = l.tp * l.pp * l.dp;
  auto rank_of = [&l](int s, int d, int t) { return t + l.tp * (d + l.dp * s); };
  nlohmann::json groups = nlohmann::json::object();
  for (int s = 0; s < l.pp; ++s) {
    for (int d = 0; d < l.dp && l.tp > 1; ++d) {
      auto& g = groups["tp_" + std::to_string(s) + "_" + std::to_string(d)];
      for (int t = 0; t < l.tp; ++t) g.push_back(rank_of(s, d, t));
    }
    for (int t = 0; t < l.tp && l.dp > 1; ++t) {
      auto& g = groups["dp_" + std::to_string(s) + "_" + std::to_string(t)];
      for (int d = 0; d < l.dp; ++d) g.push_back(rank_of(s, d, t));
    }
  }
  const auto micros = [](sim::Time t) { return static_cast<uint64_t>((t.ps + 500000) / 1000000); };
  for (int s = 0; s < l.pp; ++s) {
    const std::vector<models::PipelineOp> program =
        models::one_f_one_b_program(layers, s, l.pp, l.microbatches, l.tp);
    // The stage's gradients per GPU in buckets, last layer first (as backward produces them).
    std::vector<int64_t> buckets;
    int64_t fill = 0;
    for (int k = 0; k < l.layers / l.pp; ++k) {
      fill += l.gradient_bytes;
      if (fill >= l.bucket_bytes) {
        buckets.push_back(fill);
        fill = 0;
      }
    }
    if (fill > 0) buckets.push_back(fill);
    for (int d = 0; d < l.dp; ++d) {
      for (int t = 0; t < l.tp; ++t) {
        const int rank = rank_of(s, d, t);
        Chain c;
        c.et.metadata.set_version("0.0.4");
        const std::string tp_group = "tp_" + std::to_string(s) + "_" + std::to_string(d);
        int collectives = 0;
        for (const models::PipelineOp& op : program) {
          if (op.type == models::PipelineOp::Type::Compute) {
            Node& n = c.add(op.name, ChakraProtoMsg::COMP_NODE);
            n.set_duration_micros(micros(op.time));
            c.step({n.id()});
          } else if (op.type == models::PipelineOp::Type::TensorAllReduce) {
            Node& n = c.add("tensor all-reduce " + std::to_string(collectives++),
                            ChakraProtoMsg::COMM_COLL_NODE);
            attr_int(n, "comm_type", ChakraProtoMsg::ALL_REDUCE);
            attr_int(n, "comm_size", l.activation_bytes);
            attr_string(n, "pg_name", tp_group);
            c.step({n.id()});
          } else {
            // Activations go to stage s + 1, their gradients to s - 1; the tag says which
            // micro-batch and direction (2m forward, 2m + 1 backward).
            std::vector<uint64_t> ids;
            auto side = [&](int micro, bool forward, bool send) {
              if (micro < 0) return;
              const int peer = rank_of(forward == send ? s + 1 : s - 1, d, t);
              Node& n =
                  c.add(std::string(send ? "send " : "recv ") +
                            (forward ? "activations " : "gradients ") + std::to_string(micro),
                        send ? ChakraProtoMsg::COMM_SEND_NODE : ChakraProtoMsg::COMM_RECV_NODE);
              attr_int(n, send ? "comm_dst" : "comm_src", peer);
              attr_int(n, "comm_tag", 2 * micro + (forward ? 0 : 1));
              attr_int(n, "comm_size", l.activation_bytes);
              ids.push_back(n.id());
            };
            side(op.send_forward, true, true);
            side(op.send_backward, false, true);
            side(op.recv_forward, true, false);
            side(op.recv_backward, false, false);
            c.step(ids);
          }
        }
        const std::string dp_group = "dp_" + std::to_string(s) + "_" + std::to_string(t);
        for (size_t b = 0; b < buckets.size() && l.dp > 1; ++b) {
          Node& n =
              c.add("gradient all-reduce " + std::to_string(b), ChakraProtoMsg::COMM_COLL_NODE);
          attr_int(n, "comm_type", ChakraProtoMsg::ALL_REDUCE);
          attr_int(n, "comm_size", buckets[b]);
          attr_string(n, "pg_name", dp_group);
          c.step({n.id()});
        }
        if (l.optimizer.ps > 0) {
          Node& n = c.add("optimizer", ChakraProtoMsg::COMP_NODE);
          n.set_duration_micros(micros(l.optimizer));
        }
        write_et_file(prefix + "." + std::to_string(rank) + ".et", c.et);
      }
    }
  }
  write_file_atomic(prefix + ".comm_groups.json", groups.dump(1) + "\n");
  return ranks;
}

}  // namespace scen
