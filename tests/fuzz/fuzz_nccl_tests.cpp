// The nccl-tests output parser (all_reduce_perf, ...): the input is the tool's output as text.
#include <cstddef>
#include <cstdint>

#include "scenarios/traces/trace.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = fuzz::text_of(data, size);
  fuzz::refusals_expected(
      [&] { (void)traces::parse_nccl_tests(text, "fuzz-all_reduce_perf.txt"); });
  return 0;
}
