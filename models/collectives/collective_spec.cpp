#include "models/collectives/collective_spec.hpp"

#include <algorithm>
#include <map>

#include "sim/param_spec.hpp"

namespace models {

const char* to_string(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::AllReduce:
      return "all_reduce";
    case CollectiveOp::AllGather:
      return "all_gather";
    case CollectiveOp::ReduceScatter:
      return "reduce_scatter";
    case CollectiveOp::AllToAll:
      return "all_to_all";
    case CollectiveOp::Broadcast:
      return "broadcast";
    case CollectiveOp::SendRecv:
      return "send_recv";
  }
  return "?";
}

const char* to_string(CollectiveAlgorithm a) {
  switch (a) {
    case CollectiveAlgorithm::Auto:
      return "auto";
    case CollectiveAlgorithm::Ring:
      return "ring";
    case CollectiveAlgorithm::HalvingDoubling:
      return "halving_doubling";
    case CollectiveAlgorithm::DoubleBinaryTree:
      return "double_binary_tree";
    case CollectiveAlgorithm::Direct:
      return "direct";
    case CollectiveAlgorithm::Hierarchical:
      return "hierarchical";
    case CollectiveAlgorithm::Sharp:
      return "sharp";
    case CollectiveAlgorithm::Nvls:
      return "nvls";
    case CollectiveAlgorithm::NvlsTree:
      return "nvls_tree";
    case CollectiveAlgorithm::CollNetDirect:
      return "collnet_direct";
    case CollectiveAlgorithm::CollNetChain:
      return "collnet_chain";
  }
  return "?";
}

const char* to_string(CollectiveProtocol p) {
  switch (p) {
    case CollectiveProtocol::Auto:
      return "auto";
    case CollectiveProtocol::Simple:
      return "simple";
    case CollectiveProtocol::LL128:
      return "ll128";
    case CollectiveProtocol::LL:
      return "ll";
  }
  return "?";
}

int CollectiveSpec::nodes() const {
  if (rank_server.empty()) return ranks();
  std::vector<int> servers;
  int hosts = 0;
  for (const int server : rank_server) {
    if (server < 0) {
      ++hosts;
    } else if (std::find(servers.begin(), servers.end(), server) == servers.end()) {
      servers.push_back(server);
    }
  }
  return hosts + static_cast<int>(servers.size());
}

double bus_factor(CollectiveOp op, int ranks) {
  const double n = ranks;
  switch (op) {
    case CollectiveOp::AllReduce:
      return 2.0 * (n - 1) / n;
    case CollectiveOp::AllGather:
    case CollectiveOp::ReduceScatter:
    case CollectiveOp::AllToAll:
      return (n - 1) / n;
    case CollectiveOp::Broadcast:
    case CollectiveOp::SendRecv:
      return 1.0;
  }
  return 1.0;
}

bool auto_hierarchical_ranks(const CollectiveSpec& s) {
  if (s.rank_server.empty()) return false;  // plain hosts
  std::map<int, int> per_server;
  for (int server : s.rank_server) {
    if (server < 0) return false;
    ++per_server[server];
  }
  if (static_cast<int>(per_server.size()) < s.hierarchical_min_servers) return false;
  const int local = per_server.begin()->second;
  if (local < s.hierarchical_min_local) return false;
  // hierarchical.cpp needs as many ranks on every server.
  return std::all_of(per_server.begin(), per_server.end(),
                     [local](const auto& e) { return e.second == local; });
}

CollectiveAlgorithm resolve_algorithm(const CollectiveSpec& s, int64_t size_bytes) {
  if (s.algorithm != CollectiveAlgorithm::Auto) return s.algorithm;
  if (s.tuning.enabled) {
    if (s.op == CollectiveOp::AllToAll || s.op == CollectiveOp::SendRecv) {
      return CollectiveAlgorithm::Direct;
    }
    CollectiveAlgorithm a = CollectiveAlgorithm::Auto;
    CollectiveProtocol p = s.protocol;
    nccl_choose(s.tuning, s.op, size_bytes, a, p);
    return a;
  }
  switch (s.op) {
    case CollectiveOp::AllReduce:
      if (s.nvls_available && size_bytes >= s.nvls_min_bytes) return CollectiveAlgorithm::Nvls;
      if (size_bytes >= s.hierarchical_min_bytes && auto_hierarchical_ranks(s)) {
        return CollectiveAlgorithm::Hierarchical;
      }
      return size_bytes <= s.tree_max_bytes && s.ranks() > 2 ? CollectiveAlgorithm::DoubleBinaryTree
                                                             : CollectiveAlgorithm::Ring;
    case CollectiveOp::AllToAll:
    case CollectiveOp::SendRecv:
      return CollectiveAlgorithm::Direct;
    default:
      return CollectiveAlgorithm::Ring;
  }
}

CollectiveProtocol resolve_protocol(const CollectiveSpec& s, int64_t size_bytes) {
  if (s.protocol != CollectiveProtocol::Auto) return s.protocol;
  if (s.tuning.enabled) {
    const CollectiveAlgorithm chosen = resolve_algorithm(s, size_bytes);
    if (chosen == CollectiveAlgorithm::Ring || chosen == CollectiveAlgorithm::DoubleBinaryTree) {
      CollectiveAlgorithm a = chosen;
      CollectiveProtocol p = CollectiveProtocol::Auto;
      nccl_choose(s.tuning, s.op, size_bytes, a, p);
      if (nccl_model_time_us(s.tuning, s.op, a, p, size_bytes) >= 0) return p;
    }
    if (chosen == CollectiveAlgorithm::Nvls || chosen == CollectiveAlgorithm::NvlsTree ||
        chosen == CollectiveAlgorithm::Sharp || chosen == CollectiveAlgorithm::CollNetDirect ||
        chosen == CollectiveAlgorithm::CollNetChain) {
      return CollectiveProtocol::Simple;  // NCCL runs NVLS and CollNet with Simple only
    }
  }
  if (size_bytes <= s.ll_max_bytes) return CollectiveProtocol::LL;
  if (size_bytes <= s.ll128_max_bytes) return CollectiveProtocol::LL128;
  return CollectiveProtocol::Simple;
}

int64_t protocol_wire_bytes(CollectiveProtocol p, int64_t data) {
  if (data < 1) data = 1;
  switch (p) {
    case CollectiveProtocol::LL:
      return (data + 3) / 4 * 8;
    case CollectiveProtocol::LL128:
      return (data + 119) / 120 * 128;
    default:
      return data;
  }
}

std::vector<int64_t> sweep_sizes(const CollectiveSpec& s) {
  std::vector<int64_t> sizes;
  for (int64_t v = s.min_bytes; v <= s.max_bytes; v *= s.factor) {
    sizes.push_back(v);
    if (s.factor <= 1 || v > s.max_bytes / s.factor) break;
  }
  return sizes;
}

const sim::ParamTable<CollectiveSpec>& collective_param_table() {
  using S = CollectiveSpec;
  static const sim::ParamTable<S> t = {
      sim::custom_param<S>(
          "channels", "integer or \"auto\"", &S::channels,
          "parallel rings/trees, each with its share of the data (NCCL channels); auto: NCCL's "
          "count on GPU ranks across servers (2 per usable rail, connect.cc), else 1"),
      sim::custom_param<S>(
          "chunk", "bytes, \"nccl\" or \"auto\"", &S::chunk_bytes,
          "pipelining grain of a step: bytes (0 = one message per step), \"nccl\" = NCCL's "
          "chunk for each call's algorithm, protocol and size (calcCollChunking: Simple ring "
          "2 MiB, tree 512 KiB, LL 32 KiB, LL128 576,000 B, tree LL128 shrunk for small "
          "sizes), \"auto\" (default) = nccl on GPU ranks, else 0"),
      sim::int_param<S>("slots", &S::slots,
                        "chunks in flight per connection (receive buffer slots; NCCL_STEPS = 8)", 1,
                        1024),
      sim::int_param<S>("qps", &S::qps, "queue pairs each message is striped over", 1, 64),
      sim::int_param<S>("root", &S::root, "broadcast root rank", 0, 1 << 20),
      sim::int_param<S>("iterations", &S::iterations,
                        "runs per size, back to back (each rank starts the next when its own part "
                        "of the last has ended); the table reports the mean",
                        1, 1000),
      sim::time_param<S>("start", &S::start, "when the first size starts"),
      sim::time_param<S>("size_gap", &S::size_gap,
                         "idle time between two sizes (nccl-tests runs an untimed call and "
                         "host barriers there, not simulated)"),
      sim::custom_param<S>(
          "launch_latency", "time or \"auto\"", &S::launch_latency,
          "software time before a call's first message; auto: NCCL's base latency for the "
          "call's algorithm and protocol with costs nccl (GPU ranks), else 0"),
      sim::number_param<S>(
          "launch_scale", &S::launch_scale,
          "costs nccl: each call waits this x NCCL's base latency (NVLS, NVLS-tree and CollNet: "
          "their whole latency); rdmasim calibrate fits it",
          0, 100),
      sim::number_param<S>(
          "step_scale", &S::step_scale,
          "costs nccl: each message waits this x the software part of NCCL's step latency; "
          "rdmasim calibrate fits it",
          0, 100),
      sim::time_param<S>("step_latency_simple", &S::step_latency_simple,
                         "software time before each Simple message is posted (on top "
                         "of NCCL's costs)"),
      sim::time_param<S>("step_latency_ll128", &S::step_latency_ll128,
                         "software time before each LL128 message is posted"),
      sim::time_param<S>("step_latency_ll", &S::step_latency_ll,
                         "software time before each LL message is posted"),
      sim::rate_auto_or_zero_param<S>(
          "ll_rate", &S::ll_rate_bps,
          "data rate a rank sends at with LL, all its channels together (auto: "
          "NCCL's tuning model's cap with costs nccl; 0: none)"),
      sim::rate_auto_or_zero_param<S>(
          "ll128_rate", &S::ll128_rate_bps,
          "data rate a rank sends at with LL128, all its channels together "
          "(auto: NCCL's tuning model's cap with costs nccl; 0: none)"),
      sim::bytes_param<S>("tree_max", &S::tree_max_bytes,
                          "algorithm auto: all-reduce sizes up to this use the double "
                          "binary tree, larger the ring"),
      sim::int_param<S>("hierarchical_min_servers", &S::hierarchical_min_servers,
                        "algorithm auto: an all-reduce of GPU ranks on at least this many servers "
                        "(as many ranks on each) runs hierarchical",
                        2, 1 << 20),
      sim::int_param<S>("hierarchical_min_local", &S::hierarchical_min_local,
                        "algorithm auto: ... with at least this many ranks per server", 1, 1 << 20),
      sim::bytes_param<S>("hierarchical_min", &S::hierarchical_min_bytes,
                          "algorithm auto: sizes from this up run hierarchical on such "
                          "ranks (smaller: tree/ring by tree_max)"),
      sim::bytes_param<S>("ll_max", &S::ll_max_bytes, "protocol auto: sizes up to this use LL"),
      sim::bytes_param<S>("ll128_max", &S::ll128_max_bytes,
                          "protocol auto: sizes up to this (above ll_max) use LL128, "
                          "larger Simple"),
      sim::bytes_param<S>("nvls_min", &S::nvls_min_bytes,
                          "algorithm auto: all-reduce sizes from this up use nvls when "
                          "every rank is a GPU of one server with NVLS"),
  };
  return t;
}

}  // namespace models
