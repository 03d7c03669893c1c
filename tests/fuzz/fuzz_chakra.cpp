// Chakra execution traces (workload.chakra): the input is one rank's trace file; it is parsed
// (parse_et_bytes), then written as the trace of both ranks of a two-host scenario, which is
// loaded with every check of the section (dependencies, cycles, groups, matching), never run.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>

#include "scenarios/loader/chakra_trace.hpp"
#include "scenarios/loader/scenario.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("rdmasim_fuzz_chakra_" + std::to_string(getpid()));
  static const bool made = std::filesystem::create_directories(dir) || true;
  (void)made;
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  fuzz::refusals_expected([&] {
    (void)scen::parse_et_bytes(bytes, "fuzz.et");
    for (const char* name : {"t.0.et", "t.1.et"}) {
      std::ofstream(dir / name, std::ios::binary) << bytes;
    }
    const scen::Json s = scen::Json::parse(R"({"name": "fuzz", "topology": {"nodes": [
        {"name": "s0", "kind": "switch"}, {"name": "h0", "kind": "host"},
        {"name": "h1", "kind": "host"}], "links": [{"a": "h0", "b": "s0", "rate": "100Gbps", "latency": "1us"},
                  {"a": "h1", "b": "s0", "rate": "100Gbps", "latency": "1us"}]},
        "workload": {"chakra": {"traces": "t"}}})");
    scen::LoadOptions options;
    options.max_memory_bytes = fuzz::kMaxMemoryBytes;
    (void)scen::load_scenario_json(s, dir.string(), options);
  });
  return 0;
}
