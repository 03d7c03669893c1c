// Sweep files expand into exactly the documented points: product order (first axis slowest),
// zip, constraints, repeats with derived seeds, and ranges that multiply or step exactly.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "scenarios/sweep/sweep_points.hpp"
#include "scenarios/sweep/sweep_spec.hpp"
#include "sim/rng.hpp"

namespace {

using scen::Json;
using scen::sweep::expand_points;
using scen::sweep::read_sweep_json;

const std::string kScenarios = RDMASIM_SOURCE_DIR "/scenarios";

// A sweep over the shipped incast-8to1 (as a file next to the shipped scenarios would be).
Json sweep_with(Json axes, Json extra = Json::object()) {
  Json j = {{"name", "t"}, {"base", "incast-8to1.json"}, {"axes", std::move(axes)}};
  for (auto it = extra.begin(); it != extra.end(); ++it) j[it.key()] = it.value();
  return j;
}

// Each point as "v1|v2|...#repeat@seed", values as cells are written.
std::vector<std::string> listing(const Json& sweep) {
  const auto spec = read_sweep_json(sweep, kScenarios);
  std::vector<std::string> out;
  for (const auto& p : expand_points(spec)) {
    std::string s;
    for (size_t a = 0; a < p.values.size(); ++a) {
      s += (a ? "|" : "") +
           (p.values[a].is_string() ? p.values[a].get<std::string>() : p.values[a].dump());
    }
    s += "#" + std::to_string(p.repeat) + "@" + std::to_string(p.seed);
    CHECK(p.id == out.size());  // ids are consecutive in point order
    out.push_back(s);
  }
  return out;
}

std::string error_of(const Json& sweep) {
  try {
    expand_points(read_sweep_json(sweep, kScenarios));
  } catch (const scen::InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("sweep: product, the first axis varying slowest", "[unit][sweep]") {
  const Json axes = {
      {{"name", "a"}, {"path", "fabric.switch.latency"}, {"values", {"100ns", "200ns"}}},
      {{"name", "b"}, {"path", "workload.incast.size"}, {"values", {"64KB", "128KB", "1MB"}}}};
  CHECK(listing(sweep_with(axes)) == std::vector<std::string>{"100ns|64KB#0@1", "100ns|128KB#0@1",
                                                              "100ns|1MB#0@1", "200ns|64KB#0@1",
                                                              "200ns|128KB#0@1", "200ns|1MB#0@1"});
}

TEST_CASE("sweep: zip pairs the i-th values, and refuses unequal lengths", "[unit][sweep]") {
  Json axes = {
      {{"name", "kmin"}, {"path", "fabric.ecn.kmin"}, {"values", {"5KB", "50KB", "400KB"}}},
      {{"name", "kmax"}, {"path", "fabric.ecn.kmax"}, {"values", {"200KB", "800KB", "1600KB"}}}};
  CHECK(listing(sweep_with(axes, {{"mode", "zip"}})) ==
        std::vector<std::string>{"5KB|200KB#0@1", "50KB|800KB#0@1", "400KB|1600KB#0@1"});
  axes[1]["values"].erase(2);
  const std::string e = error_of(sweep_with(axes, {{"mode", "zip"}}));
  CHECK(e.rfind("axes[1]: got 2 values; expected 3 values", 0) == 0);
}

TEST_CASE("sweep: constraints skip combinations and require comparisons", "[unit][sweep]") {
  const Json axes = {
      {{"name", "kmin"}, {"path", "fabric.ecn.kmin"}, {"values", {"50KB", "400KB", "1MB"}}},
      {{"name", "kmax"}, {"path", "fabric.ecn.kmax"}, {"values", {"400KB", "1600KB"}}}};
  // kmin < kmax compares sizes, not strings ("1MB" > "400KB"; "400KB" == "0.4MB").
  CHECK(listing(sweep_with(axes, {{"constraints", {{{"require", "kmin < kmax"}}}}})) ==
        std::vector<std::string>{"50KB|400KB#0@1", "50KB|1600KB#0@1", "400KB|1600KB#0@1",
                                 "1MB|1600KB#0@1"});
  CHECK(listing(sweep_with(axes, {{"constraints",
                                   {{{"require", "kmin < kmax"}},
                                    {{"skip", {{"kmin", "0.4MB"}, {"kmax", "1600KB"}}}},
                                    {{"require", "kmax <= 1.6MB"}}}}})) ==
        std::vector<std::string>{"50KB|400KB#0@1", "50KB|1600KB#0@1", "1MB|1600KB#0@1"});

  CHECK(error_of(sweep_with(axes, {{"constraints", {{{"require", "kmin < kmaxx"}}}}}))
            .rfind("constraints[0].require: got \"kmin < kmaxx\"", 0) == 0);
  CHECK(error_of(sweep_with(axes, {{"constraints", {{{"skip", {{"nope", 1}}}}}}}))
            .rfind("constraints[0].skip.nope: got 1; expected the name of an axis", 0) == 0);
  CHECK(error_of(sweep_with(axes, {{"constraints", {{{"require", "kmin < 5us"}}}}}))
            .rfind("constraints[0].require: got \"kmin < 5us\" with 50KB and 5us", 0) == 0);
}

TEST_CASE("sweep: repeats run innermost with seeds derived from the base seed", "[unit][sweep]") {
  const Json axes = {
      {{"name", "size"}, {"path", "workload.incast.size"}, {"values", {"64KB", "128KB"}}}};
  const uint64_t s1 = sim::derive_seed(1, 1) >> 1, s2 = sim::derive_seed(1, 2) >> 1;
  CHECK(s1 != 1);
  CHECK(s2 != s1);
  const auto t1 = std::to_string(s1), t2 = std::to_string(s2);
  CHECK(listing(sweep_with(axes, {{"repeats", 3}})) ==
        std::vector<std::string>{"64KB#0@1", "64KB#1@" + t1, "64KB#2@" + t2, "128KB#0@1",
                                 "128KB#1@" + t1, "128KB#2@" + t2});
  // An axis on the seed replaces the base seed of its points.
  const Json seeds = {{{"name", "s"}, {"path", "seed"}, {"values", {5, 9}}}};
  CHECK(listing(sweep_with(seeds, {{"repeats", 2}})) ==
        std::vector<std::string>{"5#0@5", "5#1@" + std::to_string(sim::derive_seed(5, 1) >> 1),
                                 "9#0@9", "9#1@" + std::to_string(sim::derive_seed(9, 1) >> 1)});
}

TEST_CASE("sweep: ranges multiply and step exactly, `to` only when hit", "[unit][sweep]") {
  auto range = [](Json r) {
    return listing(sweep_with({{{"name", "x"}, {"path", "p.q"}, {"range", std::move(r)}}}));
  };
  // 1MB × 4^k up to 1GB: 1024MB passes it, so 1GB is not a value.
  CHECK(range({{"from", "1MB"}, {"to", "1GB"}, {"factor", 4}}) ==
        std::vector<std::string>{"1MB#0@1", "4MB#0@1", "16MB#0@1", "64MB#0@1", "256MB#0@1"});
  CHECK(range({{"from", "4KiB"}, {"to", "64KiB"}, {"factor", 4}}) ==
        std::vector<std::string>{"4KiB#0@1", "16KiB#0@1", "64KiB#0@1"});
  CHECK(range({{"from", "100ns"}, {"to", "1us"}, {"step", "300ns"}}) ==
        std::vector<std::string>{"100ns#0@1", "400ns#0@1", "700ns#0@1", "1us#0@1"});
  CHECK(range({{"from", 1}, {"to", 10}, {"step", 4}}) ==
        std::vector<std::string>{"1#0@1", "5#0@1", "9#0@1"});
  CHECK(range({{"from", "25Gbps"}, {"to", "100Gbps"}, {"factor", 2}}) ==
        std::vector<std::string>{"25Gbps#0@1", "50Gbps#0@1", "100Gbps#0@1"});

  CHECK(error_of(sweep_with(
                     {{{"path", "p"}, {"range", {{"from", "1MB"}, {"to", "1us"}, {"factor", 2}}}}}))
            .rfind("axes[0].range.to: got \"1us\"; expected a size, like \"from\"", 0) == 0);
  CHECK(error_of(sweep_with({{{"path", "p"}, {"range", {{"from", "1MB"}, {"to", "2MB"}}}}}))
            .rfind("axes[0].range: got nothing; expected exactly one of \"factor\" or \"step\"",
                   0) == 0);
  CHECK(error_of(sweep_with(
                     {{{"path", "p"}, {"range", {{"from", "1MB"}, {"to", "9MB"}, {"factor", 1}}}}}))
            .rfind("axes[0].range.factor: got 1", 0) == 0);
  CHECK(error_of(sweep_with({{{"path", "p"},
                              {"range", {{"from", "1ns"}, {"to", "1s"}, {"step", "1ns"}}}}}))
            .rfind("axes[0].range: got more than 100000 values", 0) == 0);
}

TEST_CASE("sweep: malformed sweep files are refused with their JSON path", "[unit][sweep]") {
  const Json a = {{"path", "fabric.switch.latency"}, {"values", {"100ns"}}};
  CHECK(error_of(sweep_with(Json::array({a, a})))
            .rfind("axes[1].name: got \"fabric.switch.latency\"", 0) == 0);
  CHECK(error_of(sweep_with({{{"name", "status"}, {"path", "x"}, {"values", {1}}}}))
            .rfind("axes[0].name: got \"status\"", 0) == 0);
  CHECK(error_of(sweep_with({{{"path", "x"}, {"values", Json::array()}}}))
            .rfind("axes[0].values: got []", 0) == 0);
  CHECK(error_of(sweep_with({{{"path", "x"}, {"values", {1}}, {"step", 1}}}))
            .rfind("axes[0].step: got 1; expected no such key", 0) == 0);
  CHECK(error_of(sweep_with(Json::array())).rfind("axes: got []", 0) == 0);
  CHECK(
      error_of(sweep_with(Json::array({a}), {{"mode", "cross"}})).rfind("mode: got \"cross\"", 0) ==
      0);
  CHECK(error_of({{"base", "no-such.json"}, {"axes", Json::array({a})}})
            .rfind("base: got \"no-such.json\"", 0) == 0);
}

TEST_CASE("sweep: a point loads like run --set, and a refused value names axis and point",
          "[unit][sweep]") {
  const Json axes = {
      {{"name", "lat"}, {"path", "fabric.switch.latency"}, {"values", {"300ns", "-1ns"}}}};
  const auto spec = read_sweep_json(sweep_with(axes, {{"repeats", 2}}), kScenarios);
  const auto points = expand_points(spec);
  REQUIRE(points.size() == 4);
  const scen::Scenario s = scen::sweep::load_point(spec, points[1]);
  CHECK(s.switch_defaults.latency == sim::Time(300'000));
  CHECK(s.seed == (sim::derive_seed(1, 1) >> 1));
  // Exactly what `rdmasim run incast-8to1.json --set fabric.switch.latency=300ns` loads.
  scen::LoadOptions lo;
  lo.sets = {"fabric.switch.latency=300ns"};
  CHECK(scen::load_scenario_file(kScenarios + "/incast-8to1.json", lo).effective ==
        scen::sweep::load_point(spec, points[0]).effective);
  try {
    scen::sweep::load_point(spec, points[2]);
    FAIL("a negative latency was accepted");
  } catch (const scen::InputError& e) {
    INFO(e.what());
    CHECK(std::string(e.what()).rfind(
              "point 2 (lat=-1ns repeat=0): axis lat = -1ns: fabric.switch.latency: got \"-1ns\"",
              0) == 0);
  }
}

TEST_CASE("sweep: repeats draw different random workloads, seeds above 2^63 are refused",
          "[unit][sweep]") {
  // The shipped oversubscription sweep: a seeded random permutation, three repeats per spine
  // count. Each repeat must be its own permutation (a seed lost on the way would repeat one).
  const auto spec = scen::sweep::read_sweep_file(kScenarios + "/sweeps/oversubscription.json");
  const auto points = expand_points(spec);
  REQUIRE(points.size() == 12);
  auto destinations = [&](size_t id) {
    std::vector<int> d;
    for (const auto& f : scen::sweep::load_point(spec, points[id]).flows) d.push_back(f.dst_host);
    return d;
  };
  CHECK(destinations(0) != destinations(1));
  CHECK(destinations(1) != destinations(2));
  CHECK(destinations(0) == destinations(3));  // same seed, another spine count

  Json j = scen::read_json_file(kScenarios + "/incast-8to1.json");
  j["seed"] = uint64_t{1} << 63;
  CHECK_THROWS_WITH(scen::load_scenario_json(j, kScenarios, {}),
                    Catch::StartsWith("seed: got 9223372036854775808; expected an integer"));
}
