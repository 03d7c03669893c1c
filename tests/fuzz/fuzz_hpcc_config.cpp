// The ns-3 HPCC simulator's config file (rdmasim import hpcc --config). Input: the config's
// text, applied to a fixed small import (two hosts at 100 Gb/s, a 400 Gb/s link between two
// switches, a third host: two link speeds); the scenario it makes is loaded (never run).
#include <cstddef>
#include <cstdint>

#include "scenarios/import/hpcc_config.hpp"
#include "scenarios/import/hpcc_import.hpp"
#include "scenarios/loader/scenario.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace {

const char* kTopology =
    "5 2 4\n2 3\n0 2 100Gbps 1000ns 0\n1 2 100Gbps 1000ns 0\n2 3 400Gbps 1000ns 0\n"
    "4 3 100Gbps 1000ns 0\n";
const char* kFlows = "2\n0 4 3 100 100000 2.000000000\n1 4 3 100 5000 2.000001000\n";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string config = fuzz::text_of(data, size);
  // The import does not depend on the input: made once (it was a third of each execution).
  static const scen::Json kImported =
      scen::import_hpcc(kTopology, "topology.txt", kFlows, "flow.txt", "fuzz");
  fuzz::refusals_expected([&] {
    scen::Json s = kImported;
    (void)scen::apply_hpcc_config(scen::read_hpcc_config(config, "config.txt"), s);
    scen::LoadOptions options;
    options.max_memory_bytes = fuzz::kMaxMemoryBytes;
    (void)scen::load_scenario_json(s, ".", options);
  });
  return 0;
}
