#include "scenarios/loader/sharp_section.hpp"

#include <string>

namespace scen {

const FieldTable<models::SharpParams>& sharp_fields() {
  static const FieldTable<models::SharpParams> t = fields_from(models::sharp_param_table());
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
