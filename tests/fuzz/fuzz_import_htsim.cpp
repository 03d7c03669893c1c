// The importer of htsim connection matrices (rdmasim import htsim MATRIX --fat-tree-k K).
// Input: the first line is K (a decimal integer; anything else means 4), the rest is the
// matrix file's text. The scenario it makes is loaded (never run).
#include <cstddef>
#include <cstdint>
#include <limits>

#include "scenarios/import/htsim_import.hpp"
#include "scenarios/loader/scenario.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string matrix = fuzz::text_of(data, size);
  const int64_t k = fuzz::integer_or(fuzz::take_line(matrix), 4);
  // The command line reads K as an int; out of that range it never reaches the importer.
  if (k < std::numeric_limits<int>::min() || k > std::numeric_limits<int>::max()) return 0;
  fuzz::refusals_expected([&] {
    const scen::Json s = scen::import_htsim(matrix, "matrix.txt", static_cast<int>(k), "fuzz");
    scen::LoadOptions options;
    options.max_memory_bytes = fuzz::kMaxMemoryBytes;
    (void)scen::load_scenario_json(s, ".", options);
  });
  return 0;
}
