// The importer of the ns-3 HPCC simulator's files (rdmasim import hpcc TOPOLOGY FLOWS).
// Input: the topology file's text, a line "---", then the flow file's text (no such line:
// an empty flow file). The scenario it makes is loaded (never run).
#include <cstddef>
#include <cstdint>

#include "scenarios/import/hpcc_import.hpp"
#include "scenarios/loader/scenario.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::pair<std::string, std::string> files =
      fuzz::split_at_line(fuzz::text_of(data, size), "---");
  const std::string& topology = files.first;
  const std::string& flows = files.second;
  fuzz::refusals_expected([&] {
    const scen::Json s = scen::import_hpcc(topology, "topology.txt", flows, "flow.txt", "fuzz");
    scen::LoadOptions options;
    options.max_memory_bytes = fuzz::kMaxMemoryBytes;
    (void)scen::load_scenario_json(s, ".", options);
  });
  return 0;
}
