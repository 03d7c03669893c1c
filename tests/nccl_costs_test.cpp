// NCCL's software costs on GPU ranks (CollectiveSpec::nccl_costs, nccl_latencies): a launch
// latency per call and per message the part of NCCL's per-step latency the simulated hardware
// does not take. At the latency floor the simulated time is NCCL's own model's; each cost
// shows exactly where it is charged; `costs: none` and `launch_latency` override.
#include <catch2/catch.hpp>
#include <cmath>

#include "models/collectives/nccl_tuning.hpp"
#include "scenario_helpers.hpp"
#include "scenarios/builder/build_network.hpp"
#include "scenarios/builder/collective_hops.hpp"

namespace {

// `servers` dgx-h100 on 8 rails of 400 Gb/s (one leaf per rail).
scen::Json h100(int servers, const scen::Json& collective) {
  scen::Json j;
  j["name"] = "nccl-costs";
  j["topology"] = {
      {"generator", "rail"},       {"nodes", {{"count", servers}, {"preset", "dgx-h100"}}},
      {"nodes_per_leaf", servers}, {"spines", 1},
      {"fabric_rate", "400Gbps"},  {"host_latency", "500ns"},
      {"fabric_latency", "500ns"}};
  j["fabric"]["switch"] = {{"latency", "600ns"}};
  j["fabric"]["pfc"] = {{"enabled", true}, {"priorities", {3}}};
  j["workload"]["collective"] = collective;
  return j;
}

struct Run {
  scen::Scenario s;
  models::CollectiveResult r;
};

Run run(const scen::Json& j) {
  Run out{test_support::load(j), {}};
  const scen::RunOutcome o = scen::run_scenario(out.s);
  REQUIRE(o.collectives.size() == 1);
  out.r = o.collectives[0];
  return out;
}

double us(sim::Time t) {
  return static_cast<double>(t.ps) / 1e6;
}

}  // namespace

TEST_CASE("NCCL's costs: at the latency floor the simulated time is NCCL's model's",
          "[mechanism][nccl][costs]") {
  struct Case {
    int servers;
    const char* algorithm;
    const char* protocol;
  };
  // NCCL's latencies (tuning.cc): 1 server ring LL 6.6 + 14 × 0.6 = 15.0 µs; 2 servers ring LL
  // 6.6 + 28 × 1.0 (netOverhead) + 2 × 2.7 = 40.0; tree LL 6.8 + 2 (7 × 0.6 + 1 × 5.0) = 25.2.
  const Case cases[] = {{1, "ring", "ll"}, {2, "ring", "ll"}, {2, "double_binary_tree", "ll"}};
  for (const Case& c : cases) {
    const scen::Json collective = {
        {"op", "all_reduce"}, {"algorithm", c.algorithm}, {"protocol", c.protocol}, {"size", 8}};
    const Run with = run(h100(c.servers, collective));
    scen::Json none = collective;
    none["costs"] = "none";
    const Run without = run(h100(c.servers, none));
    const models::CollectiveSpec& spec = with.s.collectives[0];
    REQUIRE(spec.nccl_costs);
    const double model =
        models::nccl_model_time_us(spec.tuning, spec.op, with.r.algorithm, with.r.protocol, 8);
    INFO(c.servers << " servers " << c.algorithm << ": simulated " << us(with.r.time)
                   << " us, NCCL's model " << model << " us, without costs " << us(without.r.time)
                   << " us");
    // The simulation adds the last ACK's return and the bytes' own time: a little above. Across
    // servers, also its real critical path: the chain of a ring all-reduce of 30 steps crosses
    // the network 3 to 4 times (with PXN hand-overs) where the model counts 2(m - 1) = 2.
    CHECK(us(with.r.time) >= model);
    CHECK(us(with.r.time) < model * (c.servers == 1 ? 1.1 : 1.2));
    CHECK(us(without.r.time) < 0.6 * model);  // the hardware alone is far from the floor
  }
}

TEST_CASE("NCCL's costs: NVLS pays NCCL's 25 us a call, and nothing per step",
          "[mechanism][nccl][costs][nvls]") {
  scen::Json collective = {{"op", "all_reduce"}, {"algorithm", "nvls"}, {"size", "1MiB"}};
  const Run with = run(h100(1, collective));
  collective["costs"] = "none";
  const Run without = run(h100(1, collective));
  CHECK(with.r.time - without.r.time == sim::Time(25'000'000));
}

TEST_CASE("NCCL's costs: launch_latency replaces the launch cost, and applies without costs",
          "[mechanism][nccl][costs]") {
  const scen::Json base = {
      {"op", "all_reduce"}, {"algorithm", "ring"}, {"protocol", "simple"}, {"size", "64KiB"}};
  scen::Json none = base;
  none["costs"] = "none";
  scen::Json none_launch = none;
  none_launch["launch_latency"] = "3us";
  scen::Json nccl_launch = base;
  nccl_launch["launch_latency"] = "0us";
  const Run a = run(h100(1, none));
  const Run b = run(h100(1, none_launch));
  CHECK(b.r.time - a.r.time == sim::Time(3'000'000));
  // NCCL's launch for ring Simple on one server is 8.4 µs: setting 0 takes exactly that off.
  const Run c = run(h100(1, base));
  const Run d = run(h100(1, nccl_launch));
  CHECK(c.r.time - d.r.time == sim::Time(8'400'000));
  // The per-step costs stay: 14 steps of NVLink at 3.4 µs less the hardware's part.
  CHECK(us(d.r.time) > us(a.r.time) + 14 * 2.0);
}

TEST_CASE("NCCL's costs: each step pays NCCL's step latency less the hardware's",
          "[mechanism][nccl][costs]") {
  const scen::Json ring = {
      {"op", "all_reduce"}, {"algorithm", "ring"}, {"protocol", "ll"}, {"size", 8}};
  scen::Json ring_none = ring;
  ring_none["costs"] = "none";
  // One server: 14 NVLink steps on the critical path, each NCCL's 0.6 µs less the unloaded
  // delivery of a minimal message GPU to GPU (the hop the builder measures), and the 6.6 µs
  // launch: exactly the difference to the hardware-only run.
  const Run one = run(h100(1, ring));
  models::CollectiveSpec spec = one.s.collectives[0];
  sim::Simulator sim(1);
  const auto net = scen::build_network(one.s, sim);
  scen::set_collective_hop_times(one.s, *net, spec);
  REQUIRE(spec.nvlink_hop.ps > 0);
  REQUIRE(spec.nvlink_hop.ps < 600'000);
  const double expected = 6.6 + 14 * (0.6 - us(spec.nvlink_hop));
  const double one_extra = us(one.r.time) - us(run(h100(1, ring_none)).r.time);
  INFO("software time on 1 server " << one_extra << " us, expected " << expected << " us");
  CHECK(std::abs(one_extra - expected) < 1e-6);
  // Across servers NCCL floors an NVLink step at its network overhead (1 µs for LL) and a
  // network step costs 2.7: far more software time on the same number of ranks' ring.
  const double two_extra = us(run(h100(2, ring)).r.time) - us(run(h100(2, ring_none)).r.time);
  INFO("software time on 2 servers " << two_extra << " us");
  CHECK(two_extra > one_extra + 10.0);
}

TEST_CASE("NCCL's costs: launch_scale and step_scale scale the launch and the steps",
          "[mechanism][nccl][costs]") {
  // One server, ring LL, 8 B: the software time is 6.6 µs of launch and 14 steps of 0.6 µs
  // less the hardware's hop (the test above). Scaled: launch x 2 adds 6.6 µs exactly; steps
  // x 3 add twice the steps' part exactly; NVLS (no steps) pays its 25 µs x the launch scale.
  const scen::Json ring = {
      {"op", "all_reduce"}, {"algorithm", "ring"}, {"protocol", "ll"}, {"size", 8}};
  scen::Json launch2 = ring, step3 = ring, none = ring;
  launch2["launch_scale"] = 2;
  step3["step_scale"] = 3;
  none["costs"] = "none";
  const Run base = run(h100(1, ring));
  const Run hw = run(h100(1, none));
  const double steps_part = us(base.r.time) - us(hw.r.time) - 6.6;
  REQUIRE(steps_part > 1.0);
  CHECK(std::abs(us(run(h100(1, launch2)).r.time) - us(base.r.time) - 6.6) < 1e-6);
  CHECK(std::abs(us(run(h100(1, step3)).r.time) - us(base.r.time) - 2 * steps_part) < 1e-5);
  scen::Json nvls = {{"op", "all_reduce"}, {"algorithm", "nvls"}, {"size", "1MiB"}};
  const Run nvls1 = run(h100(1, nvls));
  nvls["launch_scale"] = 1.5;
  nvls["step_scale"] = 4;
  CHECK(run(h100(1, nvls)).r.time - nvls1.r.time == sim::Time(12'500'000));
  // Without NCCL's costs there is nothing to scale: refused with the path.
  for (const char* key : {"launch_scale", "step_scale"}) {
    scen::Json bad = none;
    bad[key] = 2;
    try {
      (void)test_support::load(h100(1, bad));
      FAIL("accepted " << key << " with costs none");
    } catch (const scen::InputError& e) {
      CHECK(e.path == std::string("workload.collective.") + key);
    }
  }
}

TEST_CASE("NCCL's costs: refused on plain-host ranks", "[mechanism][nccl][costs]") {
  scen::Json j;
  j["name"] = "hosts";
  j["topology"] = test_support::star(4);
  j["workload"]["collective"] = {{"op", "all_reduce"}, {"size", "1MiB"}, {"costs", "nccl"}};
  try {
    (void)test_support::load(j);
    FAIL("accepted costs nccl on plain hosts");
  } catch (const scen::InputError& e) {
    CHECK(e.path == "workload.collective.costs");
  }
  j["workload"]["collective"]["costs"] = "none";
  CHECK_NOTHROW(test_support::load(j));
  j["workload"]["collective"]["step_scale"] = 2;
  try {
    (void)test_support::load(j);
    FAIL("accepted step_scale on plain hosts");
  } catch (const scen::InputError& e) {
    CHECK(e.path == "workload.collective.step_scale");
  }
}

TEST_CASE("NCCL's protocol throughput: a rank sends LL and LL128 data at most at the model's cap",
          "[mechanism][nccl][costs]") {
  // One dgx-h100, ring, 16 MiB: each rank sends 2 (n - 1)/n S = 1.75 S of data. NCCL's model
  // caps LL at min(llMaxBw 141, 0.5 x 12 x 30) = 141 GB/s and LL128 at min(0.92 x 360,
  // 12 x 36.7) = 331.2 GB/s (nccl_tuning_test.cpp); NVLink alone would carry LL's data at
  // 225 GB/s (half its 450: 8-byte lines of 4 data bytes) and LL128's at 421.9.
  const int64_t size = 16 << 20;
  const double data = 1.75 * static_cast<double>(size);
  auto time_us = [&](const char* protocol, const scen::Json& rate) {
    scen::Json c = {
        {"op", "all_reduce"}, {"algorithm", "ring"}, {"protocol", protocol}, {"size", size}};
    if (!rate.is_null()) c[std::string(protocol) + "_rate"] = rate;
    return us(run(h100(1, c)).r.time);
  };
  const double ll = time_us("ll", nullptr);
  const double ll_free = time_us("ll", 0);
  INFO("LL " << ll << " us capped, " << ll_free << " us uncapped; the cap alone " << data / 141e3
             << " us");
  CHECK(ll >= data / 141e3);
  CHECK(ll < 1.1 * data / 141e3 + 15.0);  // the cap and NCCL's latency floor
  CHECK(ll_free < 0.8 * ll);
  const double ll128 = time_us("ll128", nullptr);
  CHECK(ll128 >= data / 331.2e3);
  CHECK(time_us("ll128", 0) < ll128);
  // A rate given: 20 GB/s, far below the links, sets the time (within 3 % of data / rate plus
  // NCCL's latency floor).
  const double slow = time_us("ll", "160Gbps");
  INFO("LL at 20 GB/s: " << slow << " us against " << data / 20e3 << " us of data");
  CHECK(std::abs(slow - (data / 20e3 + 15.0)) / (data / 20e3) < 0.03);
  // A rate that is none is refused with its path.
  CHECK_THROWS_WITH(
      test_support::load(h100(1, {{"op", "all_reduce"}, {"size", 1024}, {"ll_rate", "fast"}})),
      Catch::Contains("workload.collective.ll_rate"));
  // Simple is not capped (its bandwidth is the links').
  CHECK(models::nccl_protocol_rate_gbs(
            run(h100(1, {{"op", "all_reduce"}, {"size", 1024}})).s.collectives[0].tuning,
            models::CollectiveAlgorithm::Ring, models::CollectiveProtocol::Simple) == 0);
}
