// A data-parallel training step against its timing identities (issue oracles): with
// communication fully exposed, step = compute + the buckets' all-reduce times; with overlap
// and compute-bound buckets, step = compute + the last bucket's all-reduce; comm-bound,
// step = forward + the first bucket's backward + all all-reduces + optimizer. The all-reduce
// times come from separate runs of the same all-reduce alone. MFU by its definition.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>

#include "scenario_helpers.hpp"

namespace {

using test_support::star;

scen::Json base() {
  scen::Json j;
  j["name"] = "training";
  j["topology"] = star(4);
  j["fabric"]["switch"] = {{"latency", "500ns"}};
  j["fabric"]["nic"] = {{"ack_every", 1 << 20}};
  return j;
}

// One all-reduce of `size` alone on the same fabric, in ps.
double all_reduce_alone(const std::string& size) {
  scen::Json j = base();
  j["workload"]["collective"] = {{"op", "all_reduce"}, {"algorithm", "ring"}, {"size", size}};
  const scen::RunOutcome out = scen::run_scenario(test_support::load(j));
  REQUIRE(out.collectives.size() == 1);
  return static_cast<double>(out.collectives[0].time.ps);
}

scen::RunOutcome train(const std::string& backward, bool overlap) {
  scen::Json j = base();
  j["workload"]["training"] = {
      {"layers", 4},
      {"layer", {{"forward", "100us"}, {"backward", backward}, {"gradients", "1MiB"}}},
      {"bucket", "1MiB"},
      {"optimizer", "50us"},
      {"overlap", overlap},
      {"model_flops", 4e12},
      {"peak_tflops", 1000},
      {"comm", {{"algorithm", "ring"}}}};
  scen::RunOutcome out = scen::run_scenario(test_support::load(j));
  REQUIRE(out.training_steps.size() == 1);
  REQUIRE(out.training_steps[0].buckets == 4);
  REQUIRE(out.training_all_reduces.size() == 4);
  return out;
}

double us(double v) {
  return v * 1e6;
}

}  // namespace

TEST_CASE("training step: fully exposed communication adds to compute", "[mechanism][training]") {
  const double t = all_reduce_alone("1MiB");
  const scen::RunOutcome out = train("200us", false);
  const double compute = us(400 + 800 + 50);
  const double step = static_cast<double>(out.training_steps[0].step.ps);
  INFO("step " << step / 1e6 << " us, all-reduce alone " << t / 1e6 << " us");
  CHECK(std::abs(step - (compute + 4 * t)) / step < 0.01);
  CHECK(out.training_steps[0].compute.ps == static_cast<int64_t>(compute));
  // MFU = model FLOPs / (step × GPUs × peak).
  CHECK(std::abs(out.training_steps[0].mfu - 4e12 / (step * 1e-12 * 4 * 1e15)) < 1e-9);
}

TEST_CASE("training step: overlapped buckets leave only the last bucket exposed",
          "[mechanism][training]") {
  const double t = all_reduce_alone("1MiB");
  REQUIRE(t < us(200));  // each bucket's all-reduce hides behind the next layer's backward
  const scen::RunOutcome out = train("200us", true);
  const double compute = us(400 + 800 + 50);
  const double step = static_cast<double>(out.training_steps[0].step.ps);
  INFO("step " << step / 1e6 << " us, all-reduce alone " << t / 1e6 << " us");
  CHECK(std::abs(step - (compute + t)) / step < 0.01);
  CHECK(std::abs(static_cast<double>(out.training_steps[0].exposed.ps) - t) / t < 0.01);
}

TEST_CASE("training step: communication-bound buckets run back to back", "[mechanism][training]") {
  const double t = all_reduce_alone("1MiB");
  REQUIRE(t > us(50));
  const scen::RunOutcome out = train("50us", true);
  const double step = static_cast<double>(out.training_steps[0].step.ps);
  // forward, the first bucket's layer, four all-reduces in a row, the optimizer.
  const double expected = us(400 + 50) + 4 * t + us(50);
  INFO("step " << step / 1e6 << " us, expected " << expected / 1e6 << " us");
  CHECK(std::abs(step - expected) / step < 0.01);
}

TEST_CASE("training steps: several steps report their step-time distribution",
          "[scenario][training]") {
  scen::Json j = base();
  j["topology"] = star(6);
  // Steps on hosts h0..h3 while a fifth host floods h0 for the first millisecond: the first
  // steps are slower than the later ones.
  j["workload"]["training"] = {
      {"layers", 2},
      {"layer", {{"forward", "50us"}, {"backward", "100us"}, {"gradients", "1MiB"}}},
      {"steps", 5},
      {"comm", {{"algorithm", "ring"}, {"ranks", {0, 1, 2, 3}}}}};
  j["workload"]["flows"] = {{{"src", "h4"}, {"dst", "h0"}, {"size", "12MB"}}};
  const scen::RunOutcome out = scen::run_scenario(test_support::load(j));
  REQUIRE(out.training_steps.size() == 5);
  std::vector<int64_t> steps;
  for (const auto& s : out.training_steps) steps.push_back(s.step.ps);
  std::sort(steps.begin(), steps.end());
  const scen::Json& t = out.results["training"];
  CHECK(t["step_time_min_us"] == Approx(static_cast<double>(steps.front()) / 1e6));
  CHECK(t["step_time_max_us"] == Approx(static_cast<double>(steps.back()) / 1e6));
  CHECK(t["step_time_p50_us"] == Approx(static_cast<double>(steps[2]) / 1e6));  // nearest rank
  CHECK(t["step_time_p99_us"] == Approx(static_cast<double>(steps[4]) / 1e6));
  CHECK(t["step_time_jitter_us"] == Approx(static_cast<double>(steps[4] - steps[2]) / 1e6));
  CHECK(steps.back() > steps.front());  // the flooded steps are slower
}

// FLOPs so many that the compute time would not fit in 64 bits of picoseconds (a fuzzer's
// find: 3.584e24 forward FLOPs overflowed, and the doubled backward default with it) are refused
// with their path and the bound.
TEST_CASE("training: a compute time from FLOPs beyond 10^6 s is refused with its path",
          "[unit][training][input]") {
  scen::LoadOptions o;
  o.sets = {"workload.training.layer.forward_flops=3.584e24"};
  try {
    (void)scen::load_scenario_file(RDMASIM_SOURCE_DIR "/scenarios/training-step-7b.json", o);
    FAIL("accepted");
  } catch (const scen::InputError& e) {
    CHECK(e.path == "workload.training.layer.forward_flops");
    CHECK_THAT(e.what(), Catch::Matchers::Contains("at most 1000000s"));
  }
  o.sets = {"workload.training.layer.forward_flops=3.584e18"};  // 7,248 s: accepted
  CHECK_NOTHROW(scen::load_scenario_file(RDMASIM_SOURCE_DIR "/scenarios/training-step-7b.json", o));
}
