// The perftest output parser (ib_write_bw, ib_send_lat, ...): the input is the tool's output
// as text; what parses is rendered back as rdmasim-probe writes it.
#include <cstddef>
#include <cstdint>

#include "scenarios/traces/trace.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = fuzz::text_of(data, size);
  fuzz::refusals_expected([&] {
    const traces::PerftestTrace t = traces::parse_perftest(text, "fuzz-perftest.txt");
    (void)traces::format_perftest(t);
  });
  return 0;
}
