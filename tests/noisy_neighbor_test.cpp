// training-noisy-neighbor.json: a training job sharing the fabric with another tenant's
// WebSearch traffic. The other tenant slows the steps and spreads their times; putting the
// tenants in classes of their own (DWRR 1:1, each lossless) takes back most of it; serving the
// training class first takes back all of it. Each check fails if its mechanism goes: the
// tenant's traffic on the shared links, the per-class queues and pause, the egress scheduler.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "scenario_helpers.hpp"

namespace {

struct Steps {
  double p50 = 0, p99 = 0, jitter = 0;
  uint64_t tenant_flows = 0;
};

Steps run(std::vector<std::string> sets) {
  scen::LoadOptions o;
  o.sets = std::move(sets);
  o.sets.push_back("workload.training.steps=4");
  o.sets.push_back("workload.poisson.duration=25ms");
  const auto out = scen::run_scenario(scen::load_scenario_file(
      std::string(RDMASIM_SOURCE_DIR) + "/scenarios/training-noisy-neighbor.json", o));
  REQUIRE(out.training_steps.size() == 4);
  CHECK(out.results["drops"]["lossless"] == 0);
  CHECK(out.results["flows_completed"] == out.results["flows"]);
  const scen::Json& t = out.results["training"];
  return {t["step_time_p50_us"].get<double>(), t["step_time_p99_us"].get<double>(),
          t["step_time_jitter_us"].get<double>(), out.results["flows"].get<uint64_t>()};
}

}  // namespace

TEST_CASE("noisy neighbours: a tenant's traffic slows training steps, classes take it back",
          "[scenario][training][slow]") {
  // Quiet: the other tenant sends (almost) nothing; every step takes the same time.
  const Steps quiet = run({"workload.poisson.load=0.0001"});
  CHECK(quiet.jitter == 0.0);
  // Shared priority 3: the WebSearch flows queue with the ring's messages.
  const Steps shared = run({});
  REQUIRE(shared.tenant_flows > 500);
  INFO("quiet p50 " << quiet.p50 << " us, shared p50 " << shared.p50 << " p99 " << shared.p99);
  CHECK(shared.p50 > 1.3 * quiet.p50);
  CHECK(shared.jitter > 0.0);
  // Tenant in priority 1, both lossless, DWRR 1:1 at every port: training keeps at least half
  // of each shared link and pauses only its own class.
  const std::vector<std::string> separate = {"workload.poisson.priority=1",
                                             "fabric.pfc.priorities=[1,3]"};
  const Steps dwrr = run(separate);
  INFO("DWRR p50 " << dwrr.p50 << " p99 " << dwrr.p99);
  CHECK(dwrr.p50 < shared.p50);
  CHECK(dwrr.p99 < shared.p99);
  CHECK(dwrr.p50 > quiet.p50);  // it still shares the links
  // Strict priority with training above: the tenant only gets what training leaves.
  std::vector<std::string> strict = separate;
  strict.push_back("fabric.qos.scheduler={}");
  const Steps first = run(strict);
  INFO("strict p50 " << first.p50 << " p99 " << first.p99);
  CHECK(first.p99 < 1.02 * quiet.p50);
  CHECK(first.p99 < dwrr.p50);
}
