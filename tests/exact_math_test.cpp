// Same results on any machine (issue 17 item 17): the simulation path computes with IEEE 754's
// basic operations only. These tests pin the bits of sim/exact_math.hpp's functions and of the
// random draws built on them, check their accuracy against the C library, and keep libm's
// transcendental functions out of the simulator's sources.
#include "sim/exact_math.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "sim/rng.hpp"

namespace {

uint64_t bits(double x) {
  uint64_t b = 0;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

}  // namespace

TEST_CASE("exact math: integer powers by exactly rounded multiplications", "[unit][exact_math]") {
  CHECK(sim::pow_int(0.5, 0) == 1.0);
  CHECK(sim::pow_int(0.5, 10) == 1.0 / 1024);  // powers of two are exact
  CHECK(sim::pow_int(3.0, 13) == 1594323.0);   // so are small integers
  // DCQCN's alpha decay, (1019/1024)^n: within the error binary exponentiation allows (each
  // squaring doubles the relative error before it: about n ulp) ...
  const double g = 1019.0 / 1024.0;
  for (uint64_t n : {1ULL, 2ULL, 3ULL, 7ULL, 100ULL, 1000ULL, 123457ULL}) {
    const double exact = std::pow(g, static_cast<double>(n));
    INFO("n = " << n);
    CHECK(std::abs(sim::pow_int(g, n) - exact) <=
          2.0 * static_cast<double>(n + 1) * 0x1.0p-53 * exact);
  }
  // ... and these exact bits on every machine.
  CHECK(bits(sim::pow_int(g, 3)) == 0x3FEF8895C1800000ULL);
  CHECK(bits(sim::pow_int(g, 1000)) == bits(sim::pow_int(g, 512) * sim::pow_int(g, 488)));
}

TEST_CASE("exact math: natural logarithm from basic operations", "[unit][exact_math]") {
  CHECK(sim::log_exact(1.0) == 0.0);
  // Accurate to a few ulp over the whole range the exponential draws use, (0, 1] ...
  for (double x :
       {1e-300, 2.2250738585072014e-308, 1e-16, 0x1.0p-53, 0.001, 0.25, 0.5, 0.70710678118654752,
        0.7071067811865476, 0.9, 0.999999, 1.0 - 0x1.0p-53, 2.0, 10.0, 1e300}) {
    const double ref = std::log(x);
    CHECK(std::abs(sim::log_exact(x) - ref) <= 4e-16 * std::abs(ref) + 1e-300);
  }
  // ... and of these exact bits everywhere.
  CHECK(bits(sim::log_exact(0.5)) == bits(-0x1.62e42fefa39efp-1));
  CHECK(bits(sim::log_exact(0.1)) == 0xC0026BB1BBB55515ULL);
}

TEST_CASE("exact math: exponential draws are pinned to the bit", "[unit][exact_math]") {
  sim::Rng rng(42);
  const double a = rng.exponential(1000.0);
  const double b = rng.exponential(1000.0);
  const double c = rng.exponential(1000.0);
  CHECK(bits(a) == 0x4055E5B7979F93EAULL);  // 87.59 ...
  CHECK(bits(b) == 0x407DC647400FE705ULL);  // 476.39 ...
  CHECK(bits(c) == 0x4091CE47A17572CBULL);  // 1139.57
}

TEST_CASE("exact math: no libm transcendental on the simulation path", "[unit][exact_math]") {
  // pow, exp, log and their kin may round differently in another libm; the simulator's own
  // sources (kernel, models, scenario building) must use sim/exact_math.hpp instead. sqrt,
  // floor, ceil, ldexp and frexp are exact and stay allowed.
  const std::regex libm(
      R"((^|[^A-Za-z0-9_.>])(std::)?(pow|powf|exp|exp2|expm1|log|log2|log10|log1p|sin|cos|tan|)"
      R"(asin|acos|atan|atan2|sinh|cosh|tanh|cbrt|hypot|erf|erfc|tgamma|lgamma)\s*\()");
  const std::filesystem::path root = RDMASIM_SOURCE_DIR;
  int scanned = 0;
  for (const char* dir : {"sim", "models", "scenarios"}) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root / dir)) {
      const auto ext = entry.path().extension();
      if (ext != ".cpp" && ext != ".hpp") continue;
      std::ifstream in(entry.path());
      std::string line;
      int number = 0;
      while (std::getline(in, line)) {
        ++number;
        const auto comment = line.find("//");
        const std::string code = comment == std::string::npos ? line : line.substr(0, comment);
        INFO(entry.path().string() << ":" << number << ": " << line);
        CHECK_FALSE(std::regex_search(code, libm));
      }
      ++scanned;
    }
  }
  CHECK(scanned > 100);
}
