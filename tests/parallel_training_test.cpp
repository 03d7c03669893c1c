// Tensor, pipeline and data-parallel training steps (models/training/parallel_step.hpp) against
// their oracles: without communication worth the name a 1F1B step takes
// (micro-batches + stages - 1) x (forward + backward of a stage) + optimizer, and each stage
// idles the pipeline's bubble; a tensor group's all-reduces and a data group's gradient
// all-reduce each take what the same all-reduce takes alone on the same GPUs.
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <map>
#include <string>

#include "models/timeline.hpp"
#include "scenario_helpers.hpp"

namespace {

// `servers` dgx-h100 servers on one rail-optimised leaf per rail, 4 KiB MTU.
scen::Json cluster(int servers) {
  scen::Json j = test_support::dgx_rail_cluster("parallel", servers);
  j["fabric"]["nic"] = {{"mtu", "4KiB"}};
  return j;
}

scen::Json training(int tp, int pp, int dp, int micro, const std::string& forward,
                    const std::string& activations, const std::string& gradients) {
  return {{"parallel", {{"tp", tp}, {"pp", pp}, {"dp", dp}, {"microbatches", micro}}},
          {"layers", 4},
          {"layer", {{"forward", forward}, {"gradients", gradients}}},
          {"activations", activations},
          {"optimizer", "50us"},
          {"comm", {{"algorithm", "ring"}}},
          {"tp_comm", {{"algorithm", "ring"}}}};
}

const models::ParallelGroupResult& group(const models::TrainingStepResult& r,
                                         const std::string& kind) {
  for (const auto& g : r.groups) {
    if (g.kind == kind) return g;
  }
  FAIL("no group " << kind);
  return r.groups.front();
}

// One all-reduce of `size` over `ranks` alone on the same cluster, in ps.
double all_reduce_alone(int servers, const std::vector<std::string>& ranks,
                        const std::string& size) {
  scen::Json j = cluster(servers);
  j["workload"]["collective"] = {
      {"op", "all_reduce"}, {"algorithm", "ring"}, {"size", size}, {"ranks", ranks}};
  const scen::RunOutcome out = scen::run_scenario(test_support::load(j));
  REQUIRE(out.collectives.size() == 1);
  return static_cast<double>(out.collectives[0].time.ps);
}

}  // namespace

TEST_CASE("parallel training: a 1F1B pipeline's step and bubble meet the oracle",
          "[mechanism][training]") {
  // tp 1, pp 4, dp 4 on 16 GPUs: one layer per stage, 1 ms forward, 2 ms backward per
  // micro-batch, 6 micro-batches; activations and gradients of 4 KiB (microseconds to move).
  scen::Json j = cluster(2);
  j["workload"]["training"] = training(1, 4, 4, 6, "1ms", "4KiB", "4KiB");
  const scen::RunOutcome out = scen::run_scenario(test_support::load(j));
  REQUIRE(out.training_steps.size() == 1);
  const models::TrainingStepResult& r = out.training_steps[0];
  const double oracle = (6 + 4 - 1) * 3e9 + 50e6;  // ps
  CHECK(r.compute.ps == static_cast<int64_t>(oracle));
  CHECK(r.bubble.ps == static_cast<int64_t>(3 * 3e9));
  const double step = static_cast<double>(r.step.ps);
  INFO("step " << step / 1e6 << " us, oracle " << oracle / 1e6 << " us");
  CHECK(step > oracle);
  CHECK((step - oracle) / oracle < 0.01);
  // Each stage idles (stages - 1) x (forward + backward) in the step: inside its pipeline
  // calls, waiting for its neighbours, except stage s's last s backwards' worth (2 ms each),
  // which come after its own gradients and optimizer, at the end of the step: a mean of
  // 9 - 1.5 x 2 = 6 ms in the calls. A stage's replicas run in lockstep: no data-group wait.
  const models::ParallelGroupResult& p = group(r, "pipeline");
  const models::ParallelGroupResult& d = group(r, "data");
  CHECK(p.groups == 4);  // one pipeline per data-parallel replica
  CHECK(p.ranks == 4);
  INFO("pipeline wait " << p.wait.us() << " us, data wait " << d.wait.us() << " us");
  CHECK(std::abs(static_cast<double>(p.wait.ps) - 6e9) / 6e9 < 0.01);
  CHECK(d.wait.ps == 0);
  // Stage 0 sends 6 activations, the last stage 6 gradients, the middle ones 12.
  CHECK(p.calls == Approx((6 + 12 + 12 + 6) / 4.0));
  CHECK(r.groups.size() == 2);  // no tensor group at tp 1
}

TEST_CASE("parallel training: the pipeline's messages cost their transfer on the rails",
          "[mechanism][training]") {
  scen::Json small = cluster(2);
  small["workload"]["training"] = training(1, 4, 4, 6, "1ms", "4KiB", "4KiB");
  scen::Json big = cluster(2);
  big["workload"]["training"] = training(1, 4, 4, 6, "1ms", "16MiB", "4KiB");
  const auto a = scen::run_scenario(test_support::load(small)).training_steps.at(0);
  const auto b = scen::run_scenario(test_support::load(big)).training_steps.at(0);
  // 16 MiB at 400 Gb/s is 336 us; the critical path carries at least 2 x (stages - 1) of them.
  const double one = 16.0 * 1024 * 1024 * 8 / 400e9 * 1e12;
  INFO("steps " << a.step.us() << " and " << b.step.us() << " us");
  CHECK(static_cast<double>((b.step - a.step).ps) > 6 * one * 0.95);
  CHECK(group(b, "pipeline").communication.ps > group(a, "pipeline").communication.ps);
}

TEST_CASE("parallel training: tensor groups all-reduce activations on NVLink, four per layer",
          "[mechanism][training]") {
  // tp 8, pp 1, dp 2: each server one tensor group; 4 layers x 4 all-reduces x 2 micro-batches.
  scen::Json j = cluster(2);
  j["workload"]["training"] = training(8, 1, 2, 2, "100us", "1MiB", "4KiB");
  const scen::RunOutcome out = scen::run_scenario(test_support::load(j));
  const models::TrainingStepResult& r = out.training_steps.at(0);
  const models::ParallelGroupResult& t = group(r, "tensor");
  CHECK(t.groups == 2);
  CHECK(t.ranks == 8);
  CHECK(t.calls == Approx(32));
  CHECK(t.bytes == Approx(32.0 * 1024 * 1024));
  const double alone =
      all_reduce_alone(2, {"n0g0", "n0g1", "n0g2", "n0g3", "n0g4", "n0g5", "n0g6", "n0g7"}, "1MiB");
  INFO("tensor communication " << t.communication.us() << " us, alone " << alone / 1e6);
  CHECK(std::abs(static_cast<double>(t.communication.ps) - 32 * alone) / (32 * alone) < 0.02);
  // Blocking: the step is compute plus every all-reduce (and the small gradient all-reduce).
  CHECK(r.step.ps >= r.compute.ps + t.communication.ps);
}

TEST_CASE("parallel training: data groups all-reduce each stage's gradients on the rails",
          "[mechanism][training]") {
  // tp 8, pp 2, dp 2 on 4 servers: stage s on servers 2s, 2s+1; tensor rank t's data group is
  // GPU t of the stage's two servers; each stage's 2 layers x 4 MiB per GPU in one bucket.
  scen::Json j = cluster(4);
  j["workload"]["training"] = training(8, 2, 2, 2, "100us", "64KiB", "4MiB");
  j["workload"]["training"]["bucket"] = "64MiB";
  const scen::RunOutcome out = scen::run_scenario(test_support::load(j));
  const models::TrainingStepResult& r = out.training_steps.at(0);
  const models::ParallelGroupResult& d = group(r, "data");
  CHECK(d.groups == 16);
  CHECK(d.ranks == 2);
  CHECK(d.calls == Approx(1));
  CHECK(d.bytes == Approx(8.0 * 1024 * 1024));
  REQUIRE(out.training_all_reduces.size() == 16);
  const double alone = all_reduce_alone(4, {"n0g3", "n1g3"}, "8MiB");
  INFO("data communication " << d.communication.us() << " us, alone " << alone / 1e6);
  CHECK(std::abs(static_cast<double>(d.communication.ps) - alone) / alone < 0.05);
  // Megatron's rank order: the pipeline's messages go GPU t to GPU t of the next stage.
  const models::ParallelGroupResult& p = group(r, "pipeline");
  CHECK(p.groups == 16);
  CHECK(p.calls == Approx(2));
}

TEST_CASE("parallel training: the same scenario twice gives the same step",
          "[determinism][training]") {
  scen::Json j = cluster(4);
  j["workload"]["training"] = training(8, 2, 2, 3, "50us", "256KiB", "1MiB");
  const auto a = scen::run_scenario(test_support::load(j)).training_steps.at(0);
  const auto b = scen::run_scenario(test_support::load(j)).training_steps.at(0);
  CHECK(a.step.ps == b.step.ps);
  CHECK(a.groups.size() == 3);
  for (size_t i = 0; i < a.groups.size(); ++i) {
    CHECK(a.groups[i].communication.ps == b.groups[i].communication.ps);
    CHECK(a.groups[i].wait.ps == b.groups[i].wait.ps);
  }
}

TEST_CASE("parallel training: layouts that do not fit are refused with their path",
          "[unit][training][robustness]") {
  struct Case {
    const char* what;
    std::function<void(scen::Json&)> edit;
    const char* message;
  };
  const std::vector<Case> cases = {
      {"GPU count", [](scen::Json& t) { t["parallel"]["dp"] = 3; },
       "workload.training.parallel: got tp 8 x pp 2 x dp 3 = 48 GPUs; expected as many GPUs as "
       "the topology has (32"},
      {"tp across servers",
       [](scen::Json& t) {
         t["parallel"]["tp"] = 16;
         t["parallel"]["dp"] = 1;
       },
       "workload.training.parallel.tp: got 16; expected a divisor of a server's 8 GPUs"},
      {"layers", [](scen::Json& t) { t["layers"] = 3; },
       "workload.training.layers: got 3 layers; expected a multiple of pp = 2"},
      {"ranks",
       [](scen::Json& t) {
         t["comm"]["ranks"] = {"n0g0", "n1g0"};
       },
       "workload.training.comm.ranks: got"},
      {"activations", [](scen::Json& t) { t.erase("activations"); },
       "workload.training.activations: got nothing; expected one micro-batch's activations"},
      {"tp_comm", [](scen::Json& t) { t["tp_comm"] = 5; },
       "workload.training.tp_comm: got 5; expected an object"},
      {"unknown key", [](scen::Json& t) { t["parallel"]["ep"] = 2; },
       "workload.training.parallel.ep"},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    scen::Json j = cluster(4);
    j["workload"]["training"] = training(8, 2, 2, 2, "50us", "64KiB", "1MiB");
    c.edit(j["workload"]["training"]);
    try {
      (void)test_support::load(j);
      FAIL("accepted");
    } catch (const scen::InputError& e) {
      CHECK_THAT(e.what(), Catch::StartsWith(c.message));
    }
  }
}

TEST_CASE("parallel training: the timeline shows each stage's compute and pipeline calls",
          "[mechanism][training][timeline]") {
  scen::Json j = cluster(2);
  j["workload"]["training"] = training(1, 4, 4, 6, "1ms", "4KiB", "4KiB");
  scen::RunOptions ro;
  ro.timeline.enabled = true;
  const scen::RunOutcome out = scen::run_scenario(test_support::load(j), ro);
  REQUIRE(out.timeline);
  const models::TimelineRecorder& t = *out.timeline;
  std::map<std::string, int64_t> busy;
  std::map<std::string, int> spans;
  for (const auto& sp : t.spans()) {
    const auto& tr = t.tracks()[sp.track];
    if (tr.process != "training 0") continue;
    busy[tr.thread] += (sp.end - sp.start).ps;
    ++spans[tr.thread];
  }
  for (int s = 0; s < 4; ++s) {
    const std::string stage = "stage " + std::to_string(s);
    INFO(stage);
    // 6 forwards of 1 ms and 6 backwards of 2 ms, one span each.
    CHECK(busy[stage] == static_cast<int64_t>(6 * 3e9));
    CHECK(spans[stage] == 12);
    // Its pipeline calls: the first and last stage one per micro-batch and direction they
    // use; the middle stages' combined calls.
    CHECK(spans[stage + " pipeline"] > 0);
  }
  const auto& p = group(out.training_steps.at(0), "pipeline");
  // Stage 0's replica 0 is on the timeline; its calls' time is its share of the mean.
  CHECK(busy["stage 0 pipeline"] > 0);
  CHECK(busy["stage 0 pipeline"] < (p.communication + p.wait).ps * 4);
}

TEST_CASE("parallel training: each GPU joins its data group's all-reduce when its backward ends",
          "[mechanism][training]") {
  // tp 8, pp 2, dp 2 on 4 servers; a 64 MB flow into server 2's rail-0 NIC (stage 1, replica
  // 0) slows that replica's pipeline messages, so it ends its backward after replica 1. Each
  // GPU starts its part of the gradient all-reduce at its own backward's end (NCCL runs a
  // kernel per GPU as its stream reaches it): a data row starts at the stage's first end, and
  // spans the wait for the last GPU too. Were the all-reduce started for every rank at the
  // stage's last end, a row would span the group's communication only.
  scen::Json j = cluster(4);
  j["workload"]["training"] = training(8, 2, 2, 4, "20us", "4MiB", "4MiB");
  j["workload"]["training"]["bucket"] = "64MiB";
  j["workload"]["flows"] = {{{"src", "n3r0"}, {"dst", "n2r0"}, {"size", "64MB"}}};
  const scen::RunOutcome out = scen::run_scenario(test_support::load(j));
  const models::TrainingStepResult& r = out.training_steps.at(0);
  const models::ParallelGroupResult& d = group(r, "data");
  INFO("data wait " << d.wait.us() << " us, communication " << d.communication.us() << " us");
  REQUIRE(d.wait.us() > 20);
  REQUIRE(out.training_all_reduces.size() == 16);
  double span = 0;
  for (const models::CollectiveResult& row : out.training_all_reduces) {
    span += static_cast<double>((row.end - row.start).ps);
  }
  span /= 16;
  // Each stage's groups: their rows start at the first replica's end; the mean wait is half
  // the gap between the two replicas' ends, over both stages.
  INFO("mean row " << span / 1e6 << " us");
  CHECK(span > static_cast<double>(d.communication.ps) + static_cast<double>(d.wait.ps));
}
