// A run split into partitions (sim/simulator.hpp; `rdmasim run --partitions N --threads N`):
// each partition runs its own event list in windows of the lookahead, on threads of their own,
// events crossing between partitions go through mailboxes, and every output is the same as one
// event list's on one thread.
#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "chakra_step.hpp"
#include "cli_runner.hpp"
#include "models/slot_store.hpp"
#include "scenario_helpers.hpp"
#include "scenarios/chakra/chakra_generate.hpp"
#include "scenarios/loader/input_error.hpp"
#include "scenarios/loader/scenario.hpp"
#include "scenarios/outputs/timeline_json.hpp"
#include "scenarios/outputs/write_outputs.hpp"
#include "scenarios/run/run_scenario.hpp"
#include "sim/simulator.hpp"
#include "temp_dir.hpp"
#include "topologies/partition.hpp"

namespace {

using test_support::TempDir;

uint64_t u64(const scen::Json& v) {
  return v.get<uint64_t>();
}

// Every file a run writes (but run_stats.json: wall time, events per second), by path.
std::map<std::string, std::string> outputs_of(const scen::Scenario& s, int partitions,
                                              const TempDir& dir) {
  scen::RunOptions o;
  o.partitions = partitions;
  o.threads = partitions;  // a thread per partition
  const scen::RunOutcome out = scen::run_scenario(s, o);
  const std::filesystem::path folder = dir / ("p" + std::to_string(partitions));
  scen::write_outputs(s, out, folder.string());
  return test_support::run_files(folder);
}

// The thread counts a comparison runs at: every one asked for, but in the sanitizer pass only
// the largest (tests/CMakeLists.txt: it looks for memory errors, which the same code paths at
// a smaller count do not add; the Release pass compares every count).
std::vector<int> counts_compared(const std::vector<int>& partitions) {
#ifdef RDMASIM_SANITIZER_PASS
  return {*std::max_element(partitions.begin(), partitions.end())};
#else
  return partitions;
#endif
}

void check_split_outputs(const scen::Scenario& s, const std::vector<int>& partitions) {
  TempDir dir;
  const auto one = outputs_of(s, 1, dir);
  REQUIRE(one.size() >= 3);
  for (int p : counts_compared(partitions)) {
    INFO(p << " partitions");
    REQUIRE(topo::partition_fabric(s.fabric, p).count == p);  // really split
    const auto split = outputs_of(s, p, dir);
    REQUIRE(split.size() == one.size());
    for (const auto& [file, text] : one) {
      INFO(file);
      CHECK(split.at(file) == text);
    }
  }
}

// In the sanitizer pass the largest fabrics run their busiest first part only, up to `time`
// (most of their events: the 1,024-host permutation's first 100 us hold 30 % of them): the
// same code paths, a cut run's end included, at a third of the time or less under the
// sanitizers. The Release pass runs them to the end.
std::vector<std::string> sanitizer_stop([[maybe_unused]] const std::string& time) {
#ifdef RDMASIM_SANITIZER_PASS
  return {"stop.time=" + time};
#else
  return {};
#endif
}

scen::Scenario shipped(const std::string& name, const std::vector<std::string>& sets = {}) {
  scen::LoadOptions load;
  load.sets = sets;
  return scen::load_scenario_file(RDMASIM_SOURCE_DIR "/scenarios/" + name + ".json", load);
}

void check_split_outputs(const std::string& name, const std::vector<int>& partitions,
                         const std::vector<std::string>& sets = {}) {
  INFO(name);
  check_split_outputs(shipped(name, sets), partitions);
}

// Handlers that tick: each event pushes its next one `period` later, and may push one for a
// peer handler `cross` later.
struct Ticker final : sim::EventHandler {
  Ticker(sim::Simulator& s, sim::Time period) : EventHandler(s), sim(s), period(period) {}
  void on_event(uint32_t kind, uint64_t) override {
    ++fired;
    log.push_back(sim.now().ps);
    if (stop_at_tick != 0 && fired >= stop_at_tick && stopped_at < 0) {
      stopped_at = sim.now().ps;
      sim.stop();
    }
    if (kind == 1) return;  // a peer's event
    if (peer != nullptr) sim.after(cross, peer, 1);
    if (sim.now() < until) sim.after(period, this, 0);
  }
  sim::Simulator& sim;
  sim::Time period;
  sim::Time cross;
  sim::Time until = sim::Time(1'000'000'000);
  Ticker* peer = nullptr;
  uint64_t fired = 0;
  uint64_t stop_at_tick = 0;
  int64_t stopped_at = -1;
  std::vector<int64_t> log;
};

// Two tickers, in the first and the last partition, each pushing the other an event 10 ns (the
// lookahead) after each of its own ticks, which stop at `until`.
struct TickerPair {
  TickerPair(uint32_t partitions, sim::Time until) {
    s.split(partitions, sim::Time(10'000));
    s.set_threads(partitions);
    s.set_building_partition(0);
    a = std::make_unique<Ticker>(s, sim::Time(3'000));
    s.set_building_partition(partitions - 1);
    b = std::make_unique<Ticker>(s, sim::Time(7'000));
    a->peer = b.get();
    b->peer = a.get();
    a->cross = b->cross = sim::Time(10'000);
    a->until = b->until = until;
    s.at(sim::Time(0), a.get(), 0);
    s.at(sim::Time(0), b.get(), 0);
  }
  sim::Simulator s{1};
  std::unique_ptr<Ticker> a, b;
};

}  // namespace

TEST_CASE("split run: shipped scenarios give the same outputs on 1, 2 and 3 threads",
          "[scenario][split][slow]") {
  // Lossy go-back-N with a timeseries (quickstart, incast-8to1, roce-vs-lossy), InfiniBand
  // credits with adaptive routing, a replayed probe trace, PFC with the deadlock detector, a
  // deadlock after a link failure (boundary events), pause storms and the watchdog, a slow
  // receiver's NIC pauses, a victim flow, DCQCN and InfiniBand CC (their timers act for the
  // sending NIC), HPCC/DCTCP/TIMELY, both fabrics of a comparison: every file byte for byte.
  for (const char* name : {"quickstart",
                           "incast-8to1",
                           "roce-vs-lossy",
                           "ib-adaptive-routing",
                           "probe-replay-4hosts",
                           "roce-incast-pfc",
                           "deadlock-ring4",
                           "deadlock-routing-loop",
                           "deadlock-valley-routes-tagger",
                           "pause-storm-watchdog",
                           "roce-slow-receiver",
                           "roce-victim-flow",
                           "roce-incast-8to1-dcqcn",
                           "roce-dcqcn-convergence",
                           "ib-vs-roce-incast",
                           "cc-compare-incast",
                           "ib-cc-victim",
                           "deadlock-ring4-watchdog",
                           "deadlock-routing-loop-watchdog",
                           "deadlock-valley-routes",
                           "deadlock-valley-routes-updown",
                           "pause-storm",
                           "roce-incast-8to1-dcqcn-1mb",
                           "ib-vs-roce-permutation"}) {
    check_split_outputs(name, {2, 3});
  }
}

TEST_CASE("split run: collectives give the same outputs on 1, 2 and 3 threads",
          "[scenario][split][slow]") {
  // Each rank's posts run where its GPU server is (RankAgent), completions count in the
  // partition that sees them and the last one ends the call; a sweep's next size starts at a
  // boundary: a ring over a 4-NIC GPU, an oversubscribed leaf-spine, all-to-all with PFC, the
  // hierarchical all-reduce on RoCE and on InfiniBand credits.
  for (const char* name : {"allreduce-1gpu-4nic", "allreduce-oversubscribed", "alltoall-moe",
                           "allreduce-sweep-roce-16x8", "allreduce-sweep-ib-16x8"}) {
    check_split_outputs(name, {2, 3});
  }
  // Back-to-back iterations: each rank starts the next where it is, when its own part of the
  // last has ended (after NCCL's launch latency for the call, or none).
  check_split_outputs("allreduce-sweep-roce-16x8", {2, 3}, {"workload.collective.iterations=3"});
  check_split_outputs(
      "alltoall-moe", {2, 3},
      {"workload.collective.iterations=2", "workload.collective.launch_latency=0us"});
}

TEST_CASE("split run: a data-parallel training step gives the same outputs on 1, 2 and 3 threads",
          "[scenario][split][slow]") {
  // Compute phases end at boundary events, where a ready bucket's all-reduce is asked for; each
  // rank starts it where it is once its own part of the bucket before has ended (launch latency
  // 0 on plain hosts, NCCL's on GPU ranks); the last all-reduce ends in whichever partition
  // counts the last rank's end, and the optimizer follows it. Beside Poisson flows.
  // 8 of the 7B model's 32 layers: a quarter of the time, the same mechanisms.
  scen::Scenario b7 = shipped("training-step-7b");
  b7.training[0].layers.resize(8);
  check_split_outputs(b7, {2});
  check_split_outputs("training-step-dp16", {2, 3});
  check_split_outputs("training-noisy-neighbor", {2});
}

TEST_CASE(
    "split run: tensor, pipeline and data-parallel training gives the same outputs on 1, 2 "
    "and 3 threads",
    "[scenario][split][slow]") {
  // Each replica's program runs where its GPU server is (its compute events, its tensor
  // group's NVLS all-reduces, its side of each pipeline transfer: clear-to-send and data); each
  // GPU joins its data group's bucket all-reduce where it is; a group's optimizer and the
  // step's end are boundary events. training-step-tp8-pp4-dp16 on 16 servers (dp 4), 4
  // micro-batches, two steps: a quarter of the GPUs, the same mechanisms.
  check_split_outputs("training-step-tp8-pp4-dp16", {2, 3},
                      {"topology.nodes.count=16", "workload.training.parallel.dp=4",
                       "workload.training.parallel.microbatches=4", "workload.training.steps=2"});
  // No gradients: each stage's data groups are done with its last replica, whichever
  // partition's replica ends last.
  check_split_outputs(
      "training-step-tp8-pp4-dp16", {2, 3},
      {"topology.nodes.count=16", "workload.training.parallel.dp=4",
       "workload.training.parallel.microbatches=2", "workload.training.layer.gradients=0"});
}

TEST_CASE("split run: in-network all-reduces give the same outputs on 1, 2 and 3 threads",
          "[scenario][split][slow]") {
  // SHARP and NVLS: each host sends its chunks and counts its results where its NIC is; each
  // switch's (or NVSwitch's) reduction engine runs where the switch is, built by the boundary
  // event that first needs it; the host with the last result ends the call, at the latest
  // host's time. NVLS-tree and CollNet: their messages posted where the sending GPU is, in a
  // table any partition reads, the call over once every message is complete and every group
  // done, whichever partition sees it.
  // Their sweeps up to 16 MiB (NVLS-tree from 2 MiB on), not up to 1 GiB: a tenth of the time.
  for (const char* name : {"ib-sharp-allreduce", "allreduce-gb200-nvl72",
                           "allreduce-2x8-h100-rails", "ib-collnet-2x8-h100"}) {
    INFO(name);
    scen::Scenario s = shipped(name);
    for (auto& c : s.collectives) c.max_bytes = std::min<int64_t>(c.max_bytes, 16 << 20);
    check_split_outputs(s, {2, 3});
  }
}

namespace {

// The timeline file (`--timeline`) of a run on `partitions` threads, and its span counts.
struct SplitTimeline {
  std::string file;
  size_t spans = 0;
  uint64_t left_out = 0;
};

SplitTimeline timeline_of(const scen::Scenario& s, int partitions, size_t max_spans) {
  scen::RunOptions o;
  o.partitions = partitions;
  o.threads = partitions;
  o.timeline.enabled = true;
  o.timeline.max_spans = max_spans;
  const scen::RunOutcome out = scen::run_scenario(s, o);
  REQUIRE(out.timeline);
  return {scen::chrome_trace_json(*out.timeline), out.timeline->spans().size(),
          out.timeline->left_out()};
}

void check_split_timeline(const scen::Scenario& s, const std::vector<int>& partitions,
                          size_t max_spans = 200'000) {
  const SplitTimeline one = timeline_of(s, 1, max_spans);
  REQUIRE(one.spans > 0);
  for (int p : counts_compared(partitions)) {
    INFO(p << " partitions");
    const SplitTimeline split = timeline_of(s, p, max_spans);
    CHECK(split.spans == one.spans);
    CHECK(split.left_out == one.left_out);
    CHECK(split.file == one.file);
  }
}

}  // namespace

TEST_CASE(
    "split run: --timeline with collectives and training is the same file on 1, 2 and 3 "
    "threads",
    "[scenario][split][slow][timeline]") {
  // Messages complete in their senders' partitions, on their threads: the recorder takes a lock,
  // a rank's last moment is an atomic maximum, the file's spans are in a total order, and a
  // capped timeline keeps the spans that end first, whatever order the threads recorded in.
  check_split_timeline(shipped("alltoall-moe"), {2, 3});
  check_split_timeline(shipped("allreduce-sweep-roce-16x8"), {2, 3});
  scen::Scenario sharp = shipped("ib-sharp-allreduce");  // every rank until the call's end
  for (auto& c : sharp.collectives) c.max_bytes = std::min<int64_t>(c.max_bytes, 1 << 20);
  check_split_timeline(sharp, {2, 3});
  scen::Scenario b7 = shipped("training-step-7b");  // compute and bucket spans
  b7.training[0].layers.resize(4);
  check_split_timeline(b7, {2});
  scen::LoadOptions load;
  load.sets = {"workload.training.comm.launch_latency=5us"};
  check_split_timeline(
      scen::load_scenario_file(RDMASIM_SOURCE_DIR "/scenarios/training-step-dp16.json", load),
      {2, 3});
  // Tensor, pipeline and data-parallel training: tracks asked for at the step's start.
  load.sets = {"topology.nodes.count=16", "workload.training.parallel.dp=4",
               "workload.training.parallel.microbatches=2"};
  check_split_timeline(scen::load_scenario_file(
                           RDMASIM_SOURCE_DIR "/scenarios/training-step-tp8-pp4-dp16.json", load),
                       {2});
  // Capped: most spans left out, the same ones kept.
  const SplitTimeline capped = timeline_of(shipped("alltoall-moe"), 3, 100);
  CHECK(capped.spans == 100);
  CHECK(capped.left_out > 100);
  check_split_timeline(shipped("alltoall-moe"), {2, 3}, 100);
}

TEST_CASE("split run: Chakra traces give the same outputs on 1, 2 and 3 threads",
          "[scenario][split][slow][chakra]") {
  // Each rank's nodes run where its GPU is (its Agent); a group's collectives each rank joins
  // where it is, on the group's stream (ring), or, for an NVLS group inside a server, once
  // every member has reached it, all in that server's partition; sends wait for their
  // receivers' clear-to-send, each side's state its own.
  TempDir dir;
  check_split_outputs(test_support::chakra_step(dir, ""), {2, 3});
  check_split_outputs(test_support::chakra_step(dir, "ring"), {2, 3});
  check_split_timeline(test_support::chakra_step(dir, "ring"), {2});
}

TEST_CASE("split run: kernel TCP gives the same outputs on 1, 2 and 3 threads",
          "[scenario][split][slow][tcp]") {
  // Each CPU's stack runs where its NICs are; a message's sender and receiver state apart; the
  // sender completes a message at the later of its last acknowledgement and the receiver's
  // wake-up, which may be a moment another partition runs in the same window: lossy incasts
  // with SACK recovery and timeouts (Cubic, DCTCP with ECN), ring all-reduces over TCP
  // (deliveries and completions of one moment in two partitions), and the shipped comparison's
  // TCP fabric (a training step on GPU servers staging through host memory).
  check_split_outputs("incast-8to1", {2, 3}, {"fabric.transport=tcp"});
  check_split_outputs("incast-8to1", {2, 3},
                      {"fabric.transport=tcp", "fabric.tcp.cc=dctcp", "fabric.ecn.enabled=true"});
  check_split_outputs("allreduce-sweep-roce-16x8", {2, 3}, {"fabric.transport=tcp"});
  scen::LoadOptions load;
  load.fabric = "tcp";
  check_split_outputs(
      scen::load_scenario_file(RDMASIM_SOURCE_DIR "/scenarios/rdma-vs-tcp-scaling.json", load),
      {2, 3});
}

TEST_CASE("split run: collectives under per-QP congestion control, on 2 and 3 threads",
          "[scenario][split][slow]") {
  // The controllers' per-QP state grows as the transport adds QPs, under its lock: DCQCN with
  // ECN marking, HPCC (telemetry records), InfiniBand CC (FECN/BECN).
  check_split_outputs("alltoall-moe", {2, 3},
                      {"fabric.ecn.enabled=true", "fabric.dcqcn.enabled=true"});
  check_split_outputs("alltoall-moe", {2, 3},
                      {"fabric.cc.algorithm=hpcc", "fabric.cc.base_rtt=8us"});
  check_split_outputs("allreduce-sweep-ib-16x8", {2, 3}, {"infiniband.cc.enabled=true"});
}

TEST_CASE("split run: 320 and 1,024 hosts on 2 threads", "[scenario][split][slow]") {
  // Flows starting all through the run (each start the source NIC's event), lossy, and with
  // each congestion control; and the k=16 fat-tree's permutation with PFC.
  check_split_outputs("websearch-fattree", {2}, sanitizer_stop("500us"));
  check_split_outputs("cc-compare-websearch", {2}, sanitizer_stop("500us"));
  check_split_outputs("permutation-fattree-1024", {2}, sanitizer_stop("100us"));
  // GPUDirect RDMA off: staging through host memory and the PCIe path.
  check_split_outputs("allreduce-gdr-off", {2}, sanitizer_stop("1ms"));
}

TEST_CASE("split run: what a split does not yet split is refused, with the reason",
          "[cli][split]") {
  const auto refused = [](const scen::Scenario& s, const std::string& reason,
                          const scen::RunOptions& base = {}) {
    INFO(reason);
    scen::RunOptions o = base;
    o.partitions = 2;
    try {
      (void)scen::run_scenario(s, o);
      FAIL("ran split");
    } catch (const scen::InputError& e) {
      const std::string what = e.what();
      INFO(what);
      CHECK(what.find("--partitions") != std::string::npos);
      CHECK(what.find(reason) != std::string::npos);
    }
  };
  const auto load = [](const std::string& name) {
    return scen::load_scenario_file(RDMASIM_SOURCE_DIR "/scenarios/" + name + ".json", {});
  };
  scen::Scenario tp = load("training-step-tp8-pp4-dp16");
  tp.training[0].optimizer = sim::Time(999'999);
  refused(tp, "a training optimizer step below 1 us in tensor or pipeline parallel training");
  tp = load("training-step-tp8-pp4-dp16");
  for (models::CollectiveSpec& g : tp.training[0].parallel.tensor_groups) {
    g.algorithm = models::CollectiveAlgorithm::Sharp;
  }
  refused(tp, "tensor-parallel all-reduces with an in-network algorithm other than NVLS");
  TempDir chakra_dir;
  scen::Scenario chakra = test_support::chakra_step(chakra_dir, "ring");
  for (models::CollectiveSpec& g : chakra.chakra[0].groups) {
    g.algorithm = models::CollectiveAlgorithm::Sharp;
  }
  refused(chakra, "Chakra collectives with an in-network algorithm other than NVLS");
  scen::Scenario dp16 = load("training-step-dp16");
  dp16.training[0].optimizer = sim::Time(999'999);
  refused(dp16, "a training optimizer step below 1 us");
  dp16 = load("training-step-dp16");
  dp16.training[0].optimizer = sim::Time(0);
  for (models::TrainingLayer& l : dp16.training[0].layers) l.forward = sim::Time(0);
  dp16.training[0].layers.back().backward = sim::Time(0);
  dp16.training[0].steps = 2;
  refused(dp16, "training steps whose optimizer, forward and last layer's backward take less");
  scen::Scenario sharp = load("ib-sharp-allreduce");
  for (models::CollectiveSpec& c : sharp.collectives) {
    c.iterations = 2;
    c.launch_latency = sim::Time(999'999);
  }
  refused(sharp, "in-network collective iterations above 1 with a launch latency below 1 us");
  scen::Scenario moe = load("alltoall-moe");
  moe.collectives[0].size_gap = sim::Time(999'999);
  refused(moe, "size_gap below 1 us");
}

TEST_CASE("split run: rdmasim run --partitions, its bad counts and refusals exit 2",
          "[cli][split]") {
  TempDir dir;
  const std::string incast = RDMASIM_SOURCE_DIR "/scenarios/incast-8to1.json";
  // A training step whose optimizer takes less than a window: refused on threads.
  scen::Json short_optimizer = scen::Json::parse(test_support::read_file(
      std::filesystem::path(RDMASIM_SOURCE_DIR) / "scenarios" / "training-step-dp16.json"));
  short_optimizer["workload"]["training"]["optimizer"] = "500ns";
  const std::string short_step = (dir / "short-optimizer.json").string();
  std::ofstream(short_step) << short_optimizer.dump();
  const auto out = [&](const char* name) { return (dir / name).string(); };
  for (const char* bad : {"0", "1025", "-3"}) {
    INFO(bad);
    const test_support::Run r =
        test_support::rdmasim({"run", incast, "--out", out("bad"), "-q", "--partitions", bad}, dir);
    CHECK(r.exit_code == 2);
    CHECK(test_support::contains(r.err, "--partitions"));
  }
  const test_support::Run refused = test_support::rdmasim(
      {"run", short_step, "--out", out("moe"), "-q", "--partitions", "2"}, dir);
  CHECK(refused.exit_code == 2);
  CHECK(test_support::contains(refused.err, "training"));
  CHECK(!std::filesystem::exists(dir / "moe" / "summary.json"));  // nothing written
  for (const char* bad : {"0", "1025", "x", "2x", ""}) {
    INFO(bad);
    const test_support::Run r =
        test_support::rdmasim({"run", incast, "--out", out("bad"), "-q", "--threads", bad}, dir);
    CHECK(r.exit_code == 2);
    CHECK(test_support::contains(r.err, "--threads"));
  }
  const test_support::Run more_threads = test_support::rdmasim(
      {"run", incast, "--out", out("bad"), "-q", "--threads", "3", "--partitions", "2"}, dir);
  CHECK(more_threads.exit_code == 2);
  CHECK(test_support::contains(more_threads.err, "at most the partitions"));
  const test_support::Run refused_threads =
      test_support::rdmasim({"run", short_step, "--out", out("moe"), "-q", "--threads", "2"}, dir);
  CHECK(refused_threads.exit_code == 2);
  CHECK(test_support::contains(refused_threads.err, "--threads"));
  CHECK(!std::filesystem::exists(dir / "bad" / "summary.json"));
  CHECK(!std::filesystem::exists(dir / "moe" / "summary.json"));
  const test_support::Run one =
      test_support::rdmasim({"run", incast, "--out", out("p1"), "-q"}, dir);
  const test_support::Run two =
      test_support::rdmasim({"run", incast, "--out", out("p2"), "-q", "--partitions", "2"}, dir);
  const test_support::Run threads =
      test_support::rdmasim({"run", incast, "--out", out("t2"), "-q", "--threads", "2"}, dir);
  const test_support::Run automatic =
      test_support::rdmasim({"run", incast, "--out", out("ta"), "-q", "--threads", "auto"}, dir);
  REQUIRE(one.exit_code == 0);
  REQUIRE(two.exit_code == 0);
  REQUIRE(threads.exit_code == 0);
  REQUIRE(automatic.exit_code == 0);
  for (const char* run : {"p2", "t2", "ta"}) {
    INFO(run);
    CHECK(test_support::read_file(dir / "p1" / "flows.csv") ==
          test_support::read_file(dir / run / "flows.csv"));
    CHECK(test_support::read_file(dir / "p1" / "summary.json") ==
          test_support::read_file(dir / run / "summary.json"));
  }
}

TEST_CASE("split run: --threads auto runs a scenario a split cannot run yet on one thread",
          "[scenario][split]") {
  // A small training scenario (its optimizer step shorter than a window): auto falls back to
  // one thread, and the results are the one-thread run's.
  scen::Scenario s =
      scen::load_scenario_file(RDMASIM_SOURCE_DIR "/scenarios/training-step-dp16.json", {});
  s.training[0].optimizer = sim::Time(500'000);
  scen::RunOptions one, automatic;
  automatic.threads = 0;
  const scen::RunOutcome a = scen::run_scenario(s, one), b = scen::run_scenario(s, automatic);
  CHECK(a.results.dump() == b.results.dump());
  scen::RunOptions two;
  two.threads = 2;
  CHECK_THROWS_AS(scen::run_scenario(s, two), scen::InputError);
}

TEST_CASE("split run: links of no latency are refused, of 1 ps split with windows of 1 ps",
          "[cli][split]") {
  // h0 - s1 - s2 - s3 - h1: a cut link of no latency would leave no lookahead; the loader
  // refuses such a link. With 1 ps cables the windows are 1 ps long, and the outputs the same.
  scen::Json j;
  j["name"] = "short-cables";
  j["topology"] = test_support::chain_topology({"100Gbps", "100Gbps", "100Gbps", "100Gbps"},
                                               {"0ns", "1ps", "1ps", "1ps"});
  j["workload"]["flows"] = {{{"src", "h0"}, {"dst", "h1"}, {"size", "64KB"}}};
  CHECK(test_support::refused_path(j) == "topology.links[0].latency");
  j["topology"]["links"][0]["latency"] = "1ps";
  const scen::Scenario s = test_support::load(j);
  const topo::Partitioning part = topo::partition_fabric(s.fabric, 2);
  REQUIRE(part.count == 2);
  CHECK(part.lookahead_ps == 1);
  scen::RunOptions one, two;
  two.partitions = 2;
  const scen::RunOutcome a = scen::run_scenario(s, one), b = scen::run_scenario(s, two);
  CHECK(u64(a.results["flows_completed"]) == 1);
  CHECK(a.results.dump() == b.results.dump());
  CHECK(a.flows.at(0).fct == b.flows.at(0).fct);
}

TEST_CASE("split run: an event crossing partitions inside the window is an error",
          "[unit][split]") {
  sim::Simulator s(1);
  s.split(2, sim::Time(10'000));  // a 10 ns lookahead
  s.set_building_partition(0);
  Ticker a(s, sim::Time(1'000));
  s.set_building_partition(1);
  Ticker b(s, sim::Time(1'000));
  a.peer = &b;
  a.cross = sim::Time(2'000);  // 2 ns: shorter than the lookahead
  s.at(sim::Time(0), &a, 0);
  CHECK_THROWS_WITH(s.run(), Catch::Contains("lookahead"));
}

TEST_CASE("split run: the windows' barrier wakes every sleeping thread, window after window",
          "[unit][split]") {
  // Four partitions on four threads, more than this machine's cores when it has 2 (then no
  // thread spins: each one that waits sleeps), through 20,000 windows of 1 ns: a wake-up lost
  // at any one of them would leave the run asleep (as std::atomic::wait once did). Every
  // ticker's events all run, as on one thread.
  sim::Simulator s(1);
  s.split(4, sim::Time(1'000));
  s.set_threads(4);
  std::vector<std::unique_ptr<Ticker>> tickers;
  for (uint32_t p = 0; p < 4; ++p) {
    s.set_building_partition(p);
    tickers.push_back(std::make_unique<Ticker>(s, sim::Time(1'000)));
    tickers.back()->until = sim::Time(20'000'000);  // 20 us
    s.at(sim::Time(0), tickers.back().get(), 0);
  }
  CHECK(s.run() == sim::StopReason::Idle);
  for (const auto& t : tickers) CHECK(t->fired == 20'001);
}

TEST_CASE("split run: events cross through mailboxes and run where one list runs them",
          "[unit][split]") {
  // Two tickers that push each other events a lookahead later: each handler sees the same
  // times in one list and split in two, and the run ends at the same clock.
  auto run = [](uint32_t partitions, uint64_t stop_tick) {
    TickerPair t(partitions, sim::Time(5'000'000));
    t.b->stop_at_tick = stop_tick;
    const sim::StopReason r = t.s.run();
    return std::make_tuple(t.a->log, t.b->log, t.s.now(), r, t.s.events_executed(),
                           t.b->stopped_at);
  };
  const auto one = run(1, 0);
  const auto two = run(2, 0);
  CHECK(std::get<0>(one).size() > 1000);
  CHECK(std::get<0>(one) == std::get<0>(two));
  CHECK(std::get<1>(one) == std::get<1>(two));
  CHECK(std::get<2>(one) == std::get<2>(two));
  CHECK(std::get<3>(two) == sim::StopReason::Idle);

  // A stop asked for in one partition ends the run a grace later in both: partition 0 has
  // run its window before partition 1's stop, and stops at the same event as one list does.
  const auto stop_one = run(1, 200);
  const auto stop_two = run(2, 200);
  CHECK(std::get<3>(stop_two) == sim::StopReason::Requested);
  CHECK(std::get<0>(stop_one) == std::get<0>(stop_two));
  CHECK(std::get<1>(stop_one) == std::get<1>(stop_two));
  CHECK(std::get<4>(stop_one) == std::get<4>(stop_two));
  const int64_t stop_time = std::get<5>(stop_one);
  CHECK(std::get<5>(stop_two) == stop_time);
  REQUIRE(stop_time > 0);
  CHECK(std::get<2>(stop_two).ps == stop_time + sim::Simulator::kStopGrace.ps);
  CHECK(std::get<0>(stop_two).back() <= stop_time + sim::Simulator::kStopGrace.ps);
  CHECK(std::get<0>(stop_two).back() > stop_time);  // the grace's events ran
}

TEST_CASE("split run: events still in the mailboxes when a run ends are kept for the next run",
          "[unit][split]") {
  // Each partition's thread takes what the window before left for it as it takes the
  // partition; a run that ends at a time limit leaves the last window's crossings behind, and
  // the next run must find them in the lists, in their places.
  auto run = [](uint32_t partitions, std::vector<int64_t> limits) {
    TickerPair t(partitions, sim::Time(2'000'000));
    std::vector<size_t> pending;
    for (const int64_t limit : limits) {
      (void)t.s.run(sim::Time(limit));
      pending.push_back(t.s.pending_events());
    }
    (void)t.s.run();
    return std::make_tuple(t.a->log, t.b->log, t.s.now(), t.s.events_executed(), pending);
  };
  const auto whole = run(1, {});
  // The last limit falls just after both tickers' last ticks (2,001 and 2,002 ns): only their
  // crossings are pending then, all of them sent in the run's last windows.
  const std::vector<int64_t> limits{95'500, 401'000, 1'234'567, 2'002'500};
  const auto one = run(1, limits);
  const auto two = run(2, limits);
  CHECK(std::get<0>(one) == std::get<0>(whole));
  CHECK(std::get<0>(two) == std::get<0>(whole));
  CHECK(std::get<1>(two) == std::get<1>(whole));
  CHECK(std::get<2>(two) == std::get<2>(whole));
  CHECK(std::get<3>(two) == std::get<3>(whole));
  // Every stop left the same events pending, crossings in the mailboxes counted.
  CHECK(std::get<4>(two) == std::get<4>(one));
}

TEST_CASE("split run: a boundary event runs before every other event of its time, between windows",
          "[unit][split]") {
  // A ticker in each partition ticks every 1 ns, and one every 10 ns; an observer at the
  // boundary every 10 ns reads their counts. It reads every tick before its time and none of its
  // time — though the 10 ns ticker, numbered before it, pushes its tick at the same time as the
  // observer pushes its look, which would otherwise put the tick first — and the same counts in
  // one list and split in two (where a look in partition 0's list would see partition 1 behind).
  struct Observer final : sim::EventHandler {
    Observer(sim::Simulator& s, const Ticker& a, const Ticker& b, const Ticker& c)
        : EventHandler(s), sim(s), a(a), b(b), c(c) {}
    void on_event(uint32_t, uint64_t) override {
      seen.push_back({sim.now().ps, static_cast<int64_t>(a.fired), static_cast<int64_t>(b.fired),
                      static_cast<int64_t>(c.fired)});
      if (seen.size() < 50) sim.after_boundary(sim::Time(10'000), this, 0);
    }
    sim::Simulator& sim;
    const Ticker& a;
    const Ticker& b;
    const Ticker& c;
    std::vector<std::array<int64_t, 4>> seen;
  };
  auto run = [](uint32_t partitions) {
    sim::Simulator s(1);
    s.split(partitions, sim::Time(2'000));
    s.set_threads(partitions);
    s.set_building_partition(0);
    Ticker a(s, sim::Time(1'000));
    Ticker c(s, sim::Time(10'000));
    s.set_building_partition(partitions - 1);
    Ticker b(s, sim::Time(1'000));
    a.until = b.until = c.until = sim::Time(600'000);
    s.set_building_partition(0);
    Observer o(s, a, b, c);
    s.at(sim::Time(0), &a, 0);
    s.at(sim::Time(0), &b, 0);
    s.at(sim::Time(0), &c, 0);
    s.at_boundary(sim::Time(10'000), &o, 0);
    s.run();
    return o.seen;
  };
  const auto one = run(1);
  REQUIRE(one.size() == 50);
  // At 10 ns the ticks of 0 .. 9 ns have run (10 each) and the slow ticker's at 0; at 20 ns,
  // 20 each and the slow one's at 0 and 10, not its tick of 20 ns.
  CHECK(one[0] == std::array<int64_t, 4>{10'000, 10, 10, 1});
  CHECK(one[1] == std::array<int64_t, 4>{20'000, 20, 20, 2});
  CHECK(run(2) == one);
}

TEST_CASE("split run: a timer acts for its owner: no number of its own, the owner's partition",
          "[unit][split]") {
  sim::Simulator s(1);
  s.split(2, sim::Time(1'000));
  s.set_building_partition(1);
  Ticker owner(s, sim::Time(1'000));
  s.set_building_partition(0);
  Ticker other(s, sim::Time(1'000));
  sim::Timer t(s, &owner, 0);
  CHECK(t.origin() == owner.origin());
  CHECK(t.partition() == 1);
  CHECK(other.origin() == owner.origin() + 1);  // the timer took no number
}

TEST_CASE("split run: a handler built while the windows run is refused, between them it is not",
          "[unit][split]") {
  // Its number would be taken from a counter every partition's thread shares, in whatever
  // order they ran; a boundary event runs alone, in the order of one list.
  struct Builder final : sim::EventHandler {
    explicit Builder(sim::Simulator& s) : EventHandler(s), sim(s) {}
    void on_event(uint32_t, uint64_t) override {
      sim.set_building_partition(1);
      built = std::make_unique<Ticker>(sim, sim::Time(1));
      built->until = sim.now();  // one tick
      sim.after(sim::Time(1), built.get(), 0);
    }
    sim::Simulator& sim;
    std::unique_ptr<Ticker> built;
  };
  {
    sim::Simulator s(1);
    s.split(2, sim::Time(1'000));
    Builder b(s);
    s.at(sim::Time(5), &b, 0);
    CHECK_THROWS_WITH(s.run(), Catch::Contains("built while a split run's windows run"));
    CHECK(b.built == nullptr);
  }
  sim::Simulator s(1);
  s.split(2, sim::Time(1'000));
  Builder b(s);
  s.at_boundary(sim::Time(5), &b, 0);
  s.run();
  REQUIRE(b.built != nullptr);
  CHECK(b.built->partition() == 1);
  CHECK(b.built->origin() == b.origin() + 1);
  CHECK(b.built->log == std::vector<int64_t>{6});  // its event ran in partition 1's list
}

TEST_CASE("split run: threads, their counts and the partitions they need", "[unit][split]") {
  sim::Simulator s(1);
  CHECK_THROWS_AS(s.set_threads(2), std::invalid_argument);  // one partition: one thread
  s.split(3, sim::Time(1'000));
  CHECK_THROWS_AS(s.set_threads(0), std::invalid_argument);
  CHECK_THROWS_AS(s.set_threads(4), std::invalid_argument);
  s.set_threads(3);
  CHECK(s.threads() == 3);
}

TEST_CASE("split run: slots taken in one partition and given back in another", "[unit][split]") {
  // A packet crosses a cut link by handle: taken from the sender's partition's free list, given
  // back to the receiver's; each partition reuses what it was given, and the counts add up.
  struct Passer final : sim::EventHandler {
    Passer(sim::Simulator& s, models::SlotStore<uint64_t, 64>& store)
        : EventHandler(s), sim(s), store(store) {}
    void on_event(uint32_t kind, uint64_t arg) override {
      if (kind == 0) {  // take one and hand it to the peer a lookahead later
        const uint32_t h = store.take();
        store[h] = base + arg;
        handles.push_back(h);
        sim.after(sim::Time(1'000), peer, 1, h);
        if (arg < 500) sim.after(sim::Time(10), this, 0, arg + 1);
      } else {  // a peer's slot: check its value, give it back here
        values.push_back(store[static_cast<uint32_t>(arg)]);
        store.give_back(static_cast<uint32_t>(arg));
      }
    }
    sim::Simulator& sim;
    models::SlotStore<uint64_t, 64>& store;
    Passer* peer = nullptr;
    uint64_t base = 0;
    std::vector<uint32_t> handles;
    std::vector<uint64_t> values;
  };
  sim::Simulator s(1);
  s.split(2, sim::Time(1'000));
  s.set_threads(2);
  models::SlotStore<uint64_t, 64> store(1);
  store.set_partitions(2);
  s.set_building_partition(0);
  Passer a(s, store);
  s.set_building_partition(1);
  Passer b(s, store);
  a.peer = &b;
  b.peer = &a;
  b.base = 1000;
  s.at(sim::Time(0), &a, 0, 0);
  s.at(sim::Time(0), &b, 0, 0);
  s.run();
  REQUIRE(a.values.size() == 501);
  REQUIRE(b.values.size() == 501);
  for (uint64_t i = 0; i <= 500; ++i) {
    CHECK(b.values[i] == i);  // a's slots arrive intact, in order
    CHECK(a.values[i] == 1000 + i);
  }
  CHECK(store.in_use() == 0);
  CHECK(store.taken_total() == 1002);
  // Each side holds about a lookahead's worth (100 slots) at once, and reuses what its peer
  // gave back: far fewer slots than taken.
  CHECK(store.capacity() <= 6 * 64);
  CHECK(std::find(a.handles.begin(), a.handles.end(), 0u) == a.handles.end());  // 0 kept
}
