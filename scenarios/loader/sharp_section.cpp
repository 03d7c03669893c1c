#include "scenarios/loader/sharp_section.hpp"

#include <string>

namespace scen {

const FieldTable<models::SharpParams>& sharp_fields() {
  using models::SharpParams;
  static const FieldTable<SharpParams> t = [] {
    FieldTable<SharpParams> f;
    f.push_back(rate_or_zero_field<SharpParams>(
        "reduction_rate", &SharpParams::reduction_rate_bps,
        "reduced payload an aggregation node produces per second (per tree); 0 = keeps up with "
        "any link"));
    f.push_back(time_field<SharpParams>(
        "latency", &SharpParams::latency,
        "added by an aggregation node each time a chunk passes it (reduction up, replication "
        "down)"));
    f.push_back(bytes_field<SharpParams>(
        "chunk", &SharpParams::chunk_bytes,
        "reduction grain: a node passes a chunk on once it has all of it", 1));
    f.push_back(int_field<SharpParams>(
        "max_outstanding_chunks", &SharpParams::max_outstanding_chunks,
        "chunks a host may have sent whose result is not back yet (= chunk slots per node)", 1,
        65'536));
    return f;
  }();
  return t;
}

void read_sharp_section(JsonReader& infiniband, Scenario& s) {
  auto sec = infiniband.get("sharp");
  if (!sec) return;
  sec->expect_object();
  read_fields(*sec, sharp_fields(), s.sharp);
  sec->finish();
}

void check_sharp_workload(const Json& root, const Scenario& s) {
  if (s.fabric_kind == FabricKind::Infiniband) return;
  auto refuse = [](const std::string& path, models::CollectiveAlgorithm a) {
    const std::string name = models::to_string(a);
    throw InputError(path, "\"" + name + "\"",
                     "an algorithm of this fabric: " + name +
                         " (in-network reduction) needs \"fabric\": \"infiniband\" (its "
                         "switches' aggregation nodes, infiniband.sharp); on RoCE use ring, "
                         "halving_doubling, double_binary_tree or auto");
  };
  auto in_network = [](models::CollectiveAlgorithm a) {
    return a == models::CollectiveAlgorithm::Sharp ||
           a == models::CollectiveAlgorithm::CollNetDirect ||
           a == models::CollectiveAlgorithm::CollNetChain;
  };
  const Json& w = root.contains("workload") ? root["workload"] : Json();
  auto path_of = [&](const char* key, size_t i, const char* inner) {
    std::string p = std::string("workload.") + key;
    if (w.contains(key) && w[key].is_array()) p += "[" + std::to_string(i) + "]";
    return p + inner + ".algorithm";
  };
  for (size_t i = 0; i < s.collectives.size(); ++i) {
    if (in_network(s.collectives[i].algorithm)) {
      refuse(path_of("collective", i, ""), s.collectives[i].algorithm);
    }
  }
  for (size_t i = 0; i < s.training.size(); ++i) {
    if (in_network(s.training[i].comm.algorithm)) {
      refuse(path_of("training", i, ".comm"), s.training[i].comm.algorithm);
    }
  }
}

}  // namespace scen
