// Cluster files (rdmasim calibrate --cluster): the cluster JSON text is read (relative paths
// against scenarios/clusters/), then the scenario calibration makes of it is loaded (never
// run).
#include <cstddef>
#include <cstdint>

#include "scenarios/loader/scenario.hpp"
#include "tests/fuzz/fuzz_support.hpp"
#include "tools/calibration/cluster.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = fuzz::text_of(data, size);
  fuzz::refusals_expected([&] {
    const scen::Json root = scen::parse_json_text(text, "fuzz-cluster.json");
    const calib::ClusterSpec c =
        calib::read_cluster_json(root, "fuzz-cluster.json", fuzz::kScenarioDir + "/clusters");
    scen::LoadOptions options;
    options.max_memory_bytes = fuzz::kMaxMemoryBytes;
    (void)scen::load_scenario_json(calib::cluster_scenario(c, calib::FabricParams{}, 0), c.base_dir,
                                   options, c.file);
  });
  return 0;
}
