// Sweep files: the sweep JSON text is read (relative paths against scenarios/sweeps/), its
// points expanded, and its first and last points loaded as `rdmasim sweep` loads them
// (never run).
#include <cstddef>
#include <cstdint>

#include "scenarios/sweep/sweep_points.hpp"
#include "scenarios/sweep/sweep_spec.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace sw = scen::sweep;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = fuzz::text_of(data, size);
  fuzz::refusals_expected([&] {
    const scen::Json root = scen::parse_json_text(text, "fuzz-sweep.json");
    const sw::SweepSpec spec = sw::read_sweep_json(root, fuzz::kScenarioDir + "/sweeps");
    const std::vector<sw::SweepPoint> points = sw::expand_points(spec);
    (void)sw::point_label(spec, points.front());
    (void)sw::load_point(spec, points.front(), fuzz::kMaxMemoryBytes);
    if (points.size() > 1) (void)sw::load_point(spec, points.back(), fuzz::kMaxMemoryBytes);
  });
  return 0;
}
