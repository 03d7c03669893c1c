// Quantities with units: exact parsing, decimal vs binary prefixes, refusals.
#include "sim/units.hpp"

#include <catch2/catch.hpp>

using namespace sim::literals;

TEST_CASE("units: durations parse exactly", "[unit][units]") {
  CHECK(sim::parse_time("1us") == 1_us);
  CHECK(sim::parse_time("600ns") == 600_ns);
  CHECK(sim::parse_time("2ms") == 2_ms);
  CHECK(sim::parse_time("1.5s") == sim::Time(1'500'000'000'000));
  CHECK(sim::parse_time("0.001ns") == 1_ps);
  CHECK(sim::parse_time("2.000000261s").ps == 2'000'000'261'000);
  CHECK_THROWS_AS(sim::parse_time("0.0001ns"), sim::UnitError);  // not whole picoseconds
  CHECK_THROWS_AS(sim::parse_time("5"), sim::UnitError);         // no unit
  CHECK_THROWS_AS(sim::parse_time("5 parsecs"), sim::UnitError);
  CHECK_THROWS_AS(sim::parse_time("-1us"), sim::UnitError);
  CHECK(sim::format_time(600_ns) == "600ns");
  CHECK(sim::format_time(sim::Time(1234)) == "1234ps");
}

TEST_CASE("units: rates and sizes, KB is 1000 and KiB is 1024", "[unit][units]") {
  CHECK(sim::parse_rate_bps("400Gbps") == 400'000'000'000);
  CHECK(sim::parse_rate_bps("2.5Gbps") == 2'500'000'000);
  CHECK(sim::parse_rate_bps("100Mbit/s") == 100'000'000);
  CHECK_THROWS_AS(sim::parse_rate_bps("400GB"), sim::UnitError);
  CHECK(sim::parse_bytes("4KiB") == 4096);
  CHECK(sim::parse_bytes("4KB") == 4000);
  CHECK(sim::parse_bytes("12MB") == 12'000'000);
  CHECK(sim::parse_bytes("1GiB") == 1'073'741'824);
  CHECK(sim::parse_bytes("1500") == 1500);
  CHECK_THROWS_AS(sim::parse_bytes("1.5B"), sim::UnitError);
  CHECK(sim::parse_length_mm("2m") == 2000);
  CHECK(sim::format_bytes(4096) == "4KiB");
  CHECK(sim::format_bytes(12'000'000) == "12MB");
  CHECK(sim::format_rate(400'000'000'000) == "400Gbps");
}

TEST_CASE("units: serialisation time is the exact ceiling", "[unit][units]") {
  // 1500 B at 100 Gb/s = 120 ns exactly; at 3 bits/s, 4000 s exactly; 1 B at 3 b/s rounds up.
  CHECK(sim::serialization_time(1500, 100'000'000'000) == 120_ns);
  CHECK(sim::serialization_time(1, 3).ps == 2'666'666'666'667);
  // Summing per-packet times never drifts from the single computation by more than 1 ps each.
  int64_t sum = 0;
  for (int i = 0; i < 1000; ++i) sum += sim::serialization_time(1082, 37'000'000'000).ps;
  const int64_t whole = sim::serialization_time(1082 * 1000, 37'000'000'000).ps;
  CHECK(sum >= whole);
  CHECK(sum - whole <= 1000);
}
