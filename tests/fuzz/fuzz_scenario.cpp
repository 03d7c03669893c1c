// The scenario loader, from JSON text, with command-line overrides.
// Input: any number of leading lines "--set path=value" (each applied as `rdmasim run --set`
// does, in order) or "--fabric NAME" (which of the listed fabrics to load), then the scenario
// file's text. Relative paths resolve against scenarios/. The scenario is loaded and its
// memory estimated (rdmasim check), never run.
#include <cstddef>
#include <cstdint>

#include "scenarios/loader/memory_estimate.hpp"
#include "scenarios/loader/scenario.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text = fuzz::text_of(data, size);
  scen::LoadOptions options;
  options.max_memory_bytes = fuzz::kMaxMemoryBytes;
  for (;;) {
    if (text.rfind("--set ", 0) == 0) {
      options.sets.push_back(fuzz::take_line(text).substr(6));
    } else if (text.rfind("--fabric ", 0) == 0) {
      options.fabric = fuzz::take_line(text).substr(9);
    } else {
      break;
    }
  }
  fuzz::refusals_expected([&] {
    const scen::Json root = scen::parse_json_text(text, "fuzz.json");
    const scen::Scenario s = scen::load_scenario_json(root, fuzz::kScenarioDir, options);
    const scen::MemoryEstimate memory = scen::estimate_memory(s);
    (void)memory.describe();
    scen::check_memory_estimate(memory, options.max_memory_bytes);
  });
  return 0;
}
