// Scenarios run over processes (RunOptions::ranks; `rdmasim run` under mpirun): every process's
// own state is the single run's, and the results gathered into the first process are the single
// run's, every file byte for byte. The processes are in-process ranks (sim/local_ranks.hpp),
// threads of the test, and two MPI ranks under mpirun for the command line.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "chakra_step.hpp"
#include "cli_runner.hpp"
#include "models/network.hpp"
#include "scenarios/loader/json_reader.hpp"
#include "scenarios/loader/scenario.hpp"
#include "scenarios/outputs/timeline_json.hpp"
#include "scenarios/outputs/write_outputs.hpp"
#include "scenarios/run/run_scenario.hpp"
#include "sim/local_ranks.hpp"
#include "temp_dir.hpp"

namespace {

// What one process of a run holds for its own partitions: its senders' flows' finishes and
// counts, its NICs', switches' and sending ports' counts — and the run's end, every process's.
std::vector<std::string> own_state(scen::ScenarioRun& run) {
  const scen::Scenario& s = run.scenario();
  const topo::Fabric& f = s.fabric;
  models::Network& net = run.network();
  const sim::Simulator& sim = run.simulator();
  auto local = [&](int node) { return sim.is_local(net.partition_of(node)); };
  std::vector<std::string> rows;
  rows.push_back("end " + std::to_string(sim.now().ps) + " events " +
                 std::to_string(sim.events_executed()) + " done " +
                 std::to_string(run.workload_done()));
  for (uint32_t id = 0; id < net.transport->flow_count(); ++id) {
    const models::FlowState& fl = net.transport->flow(id);
    // What a workload posts as it runs (a collective's messages, pipeline transfers and their
    // clear-to-sends: an owner's) takes other ids over processes, and a spare slot is no flow:
    // collectives.csv, the training's rows and the totals check them.
    if (fl.spec.src_host < 0 || fl.owner != nullptr) continue;
    if (!local(f.host_node[static_cast<size_t>(fl.spec.src_host)])) continue;
    uint64_t retransmitted = 0, timeouts = 0;
    for (uint32_t k = 0; k < fl.qp_count; ++k) {
      retransmitted += net.transport->qp(fl.first_qp + k).retransmitted_packets;
      timeouts += net.transport->qp(fl.first_qp + k).timeouts;
    }
    rows.push_back("flow " + std::to_string(id) + " finish " + std::to_string(fl.finish.ps) +
                   " retransmitted " + std::to_string(retransmitted) + " timeouts " +
                   std::to_string(timeouts) + " done " + std::to_string(fl.done));
  }
  for (size_t h = 0; h < net.nics.size(); ++h) {
    if (!local(f.host_node[h])) continue;
    const models::NicStats& n = net.nics[h]->stats();
    rows.push_back("nic " + std::to_string(h) + " " + std::to_string(n.data_packets_sent) + " " +
                   std::to_string(n.data_packets_received) + " " + std::to_string(n.acks_sent) +
                   " " + std::to_string(n.acks_received) + " " +
                   std::to_string(n.pause_frames_received) + " " +
                   std::to_string(n.pause_frames_sent) + " " + std::to_string(n.cnps_received) +
                   " " + std::to_string(n.flow_control_received));
  }
  for (size_t node = 0; node < f.topo.nodes.size(); ++node) {
    if (net.node_switch[node] < 0 || !local(static_cast<int>(node))) continue;
    const models::SwitchStats& w =
        net.switches[static_cast<size_t>(net.node_switch[node])]->stats();
    rows.push_back("switch " + std::to_string(node) + " " + std::to_string(w.received) + " " +
                   std::to_string(w.tail_drops) + " " + std::to_string(w.pause_frames_received) +
                   " " + std::to_string(w.flow_control_received));
  }
  for (size_t i = 0; i < net.links.size(); ++i) {
    const topo::Link& l = f.topo.links[i / 2];
    if (!local(i % 2 == 0 ? l.a : l.b)) continue;  // its counts are its sender's
    rows.push_back("link " + std::to_string(i) + " " +
                   std::to_string(net.links[i]->stats().packets) + " " +
                   std::to_string(net.links[i]->stats().wire_bytes));
  }
  return rows;
}

scen::Scenario shipped_scenario(const std::string& name, const std::vector<std::string>& sets,
                                const std::string& fabric = "") {
  scen::LoadOptions load;
  load.sets = sets;
  load.fabric = fabric;  // of a scenario that compares fabrics
  return scen::load_scenario_file(RDMASIM_SOURCE_DIR "/scenarios/" + name + ".json", load);
}

// Every file a finished run writes (but run_stats.json: wall time, memory), by name.
std::map<std::string, std::string> outputs_of(const scen::Scenario& s, const scen::RunOutcome& out,
                                              const std::filesystem::path& folder) {
  scen::write_outputs(s, out, folder.string());
  return test_support::run_files(folder);
}

// `name` in one process, then over `ranks` in-process ranks of `threads` threads each: every
// process's own state is the single run's, and the results gathered into the first process
// are the single run's, every file byte for byte.
// With `timeline`, a timeline is recorded too, and compared as `rdmasim run --timeline` writes it.
void check_over_ranks(const scen::Scenario& s, uint32_t ranks, int threads, bool timeline = false) {
  INFO(s.name << " over " << ranks << " ranks of " << threads << " threads");
  const test_support::TempDir dir("rdmasim_ranks");
  scen::RunOptions single;
  single.timeline.enabled = timeline;
  scen::ScenarioRun alone(s, single);
  alone.advance(s.stop_time);
  std::vector<std::string> everything = own_state(alone);
  REQUIRE(everything.size() > 5);
  const scen::RunOutcome one = alone.finish();
  const auto expected_files = outputs_of(s, one, dir / "one");
  sim::LocalRanks group(ranks);
  std::vector<std::vector<std::string>> mine(ranks);
  std::vector<std::string> errors(ranks);
  std::vector<scen::RunOutcome> outcomes(ranks);
  std::vector<std::thread> processes;
  for (uint32_t r = 0; r < ranks; ++r) {
    processes.emplace_back([&, r] {
      try {
        scen::RunOptions o;
        o.ranks = &group.rank(r);
        o.threads = threads;
        o.timeline.enabled = timeline;
        scen::ScenarioRun run(s, o);
        run.advance(s.stop_time);
        mine[r] = own_state(run);
        outcomes[r] = run.finish();  // (Catch2's assertions are for the test's own thread)
      } catch (const std::exception& e) {
        errors[r] = e.what();
      }
      // A rank whose run went on past this one's fails rather than waits for ever.
      group.leave(r);
    });
  }
  for (auto& p : processes) p.join();
  std::string failures;  // every process's, the failing one's reason among them
  for (uint32_t r = 0; r < ranks; ++r) {
    if (!errors[r].empty()) failures += "rank " + std::to_string(r) + ": " + errors[r] + "\n";
  }
  INFO(failures);
  std::vector<std::string> together;
  for (uint32_t r = 0; r < ranks; ++r) {
    REQUIRE(errors[r].empty());
    REQUIRE(mine[r].size() > 1);
    CHECK(mine[r].front() == everything.front());  // the same end in every process
    together.insert(together.end(), mine[r].begin() + 1, mine[r].end());
    // The first process holds every result; the others, the end only.
    CHECK(outcomes[r].results_elsewhere == (r != 0));
    CHECK(outcomes[r].end_time == outcomes[0].end_time);
    CHECK(outcomes[r].events == outcomes[0].events);
  }
  std::sort(together.begin(), together.end());
  std::vector<std::string> expected(everything.begin() + 1, everything.end());
  std::sort(expected.begin(), expected.end());
  CHECK(together == expected);
  if (timeline) {
    REQUIRE(one.timeline != nullptr);
    REQUIRE(outcomes[0].timeline != nullptr);
    CHECK(one.timeline->spans().size() > 5);
    CHECK(scen::chrome_trace_json(*outcomes[0].timeline) == scen::chrome_trace_json(*one.timeline));
  }
  // Chakra's collective rows (the files count them; the outcome holds them whole).
  const auto rows = [](const scen::RunOutcome& out) {
    std::vector<std::string> text;
    for (const models::CollectiveResult& r : out.chakra_collectives) {
      text.push_back(std::to_string(r.collective) + " " + std::to_string(r.size_bytes) + " " +
                     std::to_string(r.start.ps) + " " + std::to_string(r.end.ps) + " " +
                     std::to_string(r.messages) + " " + std::to_string(r.wire_bytes) + " " +
                     std::to_string(r.rank_data_sent.size()));
    }
    return text;
  };
  CHECK(rows(outcomes[0]) == rows(one));
  const auto gathered_files = outputs_of(s, outcomes[0], dir / "ranks");
  REQUIRE(gathered_files.size() == expected_files.size());
  for (const auto& [file, text] : expected_files) {
    INFO(file);
    REQUIRE(gathered_files.count(file) == 1);
    CHECK(gathered_files.at(file) == text);
  }
}

}  // namespace

void check_over_ranks(const std::string& name, const std::vector<std::string>& sets, uint32_t ranks,
                      int threads, bool timeline = false) {
  check_over_ranks(shipped_scenario(name, sets), ranks, threads, timeline);
}

TEST_CASE(
    "ranks: flow scenarios run over processes as in one, their results gathered into the first",
    "[scenario][split][ranks]") {
  // Lossy Ethernet, go-back-N after drops and timeouts: data, ACKs and NACKs cross processes.
  check_over_ranks("incast-8to1", {}, 2, 1);
  // PFC: pause frames cross processes too; the deadlock detector's looks at every switch.
  check_over_ranks("roce-incast-pfc", {}, 2, 2);
  // DCQCN: ECN marks, CNPs and rate timers.
  check_over_ranks("roce-incast-8to1-dcqcn", {"fabric.pfc.deadlock_detection=false"}, 3, 1);
  // InfiniBand: credits (flow-control packets) and adaptive routing.
  check_over_ranks("ib-adaptive-routing", {}, 2, 2);
  // Link events (boundary events that change links and tables in every process) make a
  // routing loop that deadlocks: the cycle found, by every process, from their looks.
  check_over_ranks("deadlock-routing-loop", {}, 2, 1);
  check_over_ranks("deadlock-routing-loop", {}, 3, 1);
  // A NIC's pause storm, PFC frames that no buffer asked for; a timeline of the pauses.
  check_over_ranks("pause-storm", {}, 2, 1, true);
  check_over_ranks("roce-incast-pfc", {}, 3, 1, true);
  // Time series of ports and flows, and DCQCN's rate changes of the sampled flows.
  check_over_ranks("quickstart", {}, 2, 1);
  // (HPCC's telemetry too; the samples are boundary events, after which the processes agree
  // again on the next window's start: the events crossing between one process's own
  // partitions count there, as they wait in the outboxes.)
  check_over_ranks("cc-compare-incast", {"fabric.pfc.deadlock_detection=false"}, 3, 1);
}

TEST_CASE("ranks: collectives of schedule algorithms run over processes as in one",
          "[scenario][split][ranks][collective]") {
  // A ring all-reduce sweep over an oversubscribed RoCE fabric: messages added as the calls
  // go, their flows told to the receivers' processes; rows ended at the boundary after their
  // last rank's end.
  check_over_ranks("allreduce-oversubscribed", {}, 2, 1);
  // Hierarchical all-reduce on 16 dgx-h100 servers (NVLink inside, rails between; NCCL's
  // launch latency: each row's ranks launch at a boundary event), over 3 processes of 2
  // threads; InfiniBand credits.
#ifndef RDMASIM_SANITIZER_PASS
  // (Release pass only, as the largest of these: the sanitizer pass runs the same paths on
  // the InfiniBand sweep below.)
  check_over_ranks("allreduce-sweep-roce-16x8", {"workload.collective.max=128KiB"}, 3, 2);
#endif
  check_over_ranks("allreduce-sweep-ib-16x8", {"workload.collective.max=128KiB"}, 2, 1);
  // NCCL's channel placement with PXN relays; ring, double binary tree, and ring again; GPUDirect
  // RDMA off (host memory staging).
  check_over_ranks("allreduce-2x8-h100-rails",
                   {"workload.collective[0].max=1MiB", "workload.collective[1].max=1MiB",
                    "workload.collective[2].max=1MiB", "workload.collective[2].algorithm=ring"},
                   2, 1);
  check_over_ranks("allreduce-gdr-off", {"workload.collective.max=4MiB"}, 2, 1);
  // A timeline: each rank's calls and messages recorded where the rank is, merged.
  check_over_ranks("allreduce-oversubscribed", {"workload.collective.max=256KiB"}, 3, 1, true);
  // All-to-all of two QPs a message; lossy, with drops, timeouts and go-back-N (finished
  // messages' slots reused once no process holds a packet of them).
  check_over_ranks("alltoall-moe", {"workload.collective.max=1MiB"}, 3, 1);
  check_over_ranks(
      "alltoall-moe",
      {"workload.collective.max=1MiB", "fabric.pfc.enabled=false", "fabric.switch.buffer=300KB"}, 2,
      1);
  // A ring all-reduce whose retransmission timer (5 us) fires before queued ACKs arrive:
  // spurious go-back-N retransmissions still fly to the receiver after the sender has its last
  // ACK, so a finished message's slot must wait until no process holds a packet of it (reused
  // at once, the stale duplicates land on the next message: its bytes go wrong).
  check_over_ranks("allreduce-oversubscribed",
                   {"workload.collective.max=1MiB", "fabric.pfc.enabled=false",
                    "fabric.switch.buffer=300KB", "fabric.nic.rto=5us"},
                   3, 1);
}

TEST_CASE(
    "ranks: in-network all-reduces (SHARP, NVLS, NVLS-tree, CollNet) run over processes "
    "as in one",
    "[scenario][split][ranks][collective][sharp]") {
  // SHARP on InfiniBand, after a ring: each host starts where it is, its chunks reduced by the
  // leaves' and the spine's aggregation nodes (their packets and credits crossing processes);
  // each host's end told, the call ended once every process knows of all 32.
  const std::vector<std::string> small = {"workload.collective[0].max=4MiB",
                                          "workload.collective[1].max=4MiB"};
  check_over_ranks("ib-sharp-allreduce", small, 2, 1);
  check_over_ranks("ib-sharp-allreduce", small, 3, 1, true);
  // NVLS: one server's NVSwitch, in one process; the others learn of its GPUs' ends.
  check_over_ranks("nvls-allreduce-1node", small, 2, 1);
  // Data-parallel training whose buckets are all-reduced by SHARP: each bucket asked for at a
  // compute phase's end (a boundary event), the next one's posts a launch latency after the
  // last one's end, found at the boundary after it; two steps.
  scen::Json j = scen::read_json_file(RDMASIM_SOURCE_DIR "/scenarios/ib-sharp-allreduce.json");
  j["name"] = "training-sharp";
  j["workload"] = {{"training",
                    {{"layers", 6},
                     {"steps", 2},
                     {"layer", {{"forward", "50us"}, {"backward", "100us"}, {"gradients", "2MiB"}}},
                     {"bucket", "4MiB"},
                     {"optimizer", "50us"},
                     {"comm", {{"algorithm", "sharp"}, {"launch_latency", "5us"}}}}}};
  check_over_ranks(scen::load_scenario_json(j, RDMASIM_SOURCE_DIR "/scenarios", {}), 3, 1);
  // NVLS-tree ("auto" picks it from 2 MiB) on two dgx-h100 servers: each server's NVSwitch
  // group where the server is, the heads' partial sums and results as messages between
  // processes (the message in the flow's owner tag), their counts and bytes told.
  check_over_ranks("allreduce-2x8-h100-rails",
                   {"workload.collective[0].max=1MiB", "workload.collective[1].max=1MiB",
                    "workload.collective[2].min=2MiB", "workload.collective[2].max=16MiB"},
                   2, 1);
  // CollNet, direct and chain: the rails' SHARP groups of head NICs across processes, gated by
  // the GPUs' chunks inside each server; a timeline.
  check_over_ranks("ib-collnet-2x8-h100",
                   {"workload.collective[0].max=1MiB", "workload.collective[1].max=1MiB",
                    "workload.collective[2].max=16MiB"},
                   3, 1, true);
}

TEST_CASE("ranks: data-parallel training steps run over processes as in one",
          "[scenario][split][ranks][collective]") {
  // Compute phases at boundary events; each bucket's ring all-reduce asked for there while
  // the ones before run (each process knows where the others' ranks are from their ends).
  check_over_ranks("training-step-dp16", {}, 2, 1);
  // Its timeline: compute phases and the all-reduce stream recorded alike by every process (the
  // first keeps them), the all-reduces' ranks where they are.
  check_over_ranks("training-step-dp16", {}, 3, 1, true);
#ifndef RDMASIM_SANITIZER_PASS
  // Eight steps beside WebSearch flows (Release pass only: under the sanitizers this case
  // alone takes most of a minute, and the step above runs the same paths).
  check_over_ranks("training-noisy-neighbor", {}, 3, 1);
#endif
}

TEST_CASE("ranks: kernel TCP runs over processes as in one", "[scenario][split][ranks][tcp]") {
  // Connections opened where their senders are, receive cores chosen where their receivers
  // are; the moment a message's application has it told to the sender's process before the
  // last acknowledgement arrives there: lossy incasts with SACK recovery and timeouts (Cubic,
  // DCTCP with ECN), a ring all-reduce over TCP (messages added as the calls go), and the
  // shipped comparison's TCP fabric (a training step staging through host memory).
  check_over_ranks("incast-8to1", {"fabric.transport=tcp"}, 2, 1);
  check_over_ranks("incast-8to1",
                   {"fabric.transport=tcp", "fabric.tcp.cc=dctcp", "fabric.ecn.enabled=true"}, 3,
                   1);
  check_over_ranks("allreduce-sweep-roce-16x8",
                   {"fabric.transport=tcp", "workload.collective.max=128KiB"}, 2, 1);
#ifndef RDMASIM_SANITIZER_PASS
  check_over_ranks(shipped_scenario("rdma-vs-tcp-scaling", {}, "tcp"), 2, 2);
#endif
}

TEST_CASE("ranks: tensor, pipeline and data-parallel training runs over processes as in one",
          "[scenario][split][ranks][collective]") {
  // Each replica's program where its GPU server is (its compute, its tensor group's NVLink
  // all-reduces in its partition alone, its side of each pipeline transfer); each GPU joins its
  // data group's buckets where it is; the replicas' figures told before the step's end.
  // training-step-tp8-pp4-dp16 on 16 servers (dp 4): 4 micro-batches and two steps over 2
  // processes; 2 micro-batches with a timeline over 3.
  const std::vector<std::string> quarter = {"topology.nodes.count=16",
                                            "workload.training.parallel.dp=4"};
  std::vector<std::string> sets = quarter;
  sets.insert(sets.end(),
              {"workload.training.parallel.microbatches=4", "workload.training.steps=2"});
  check_over_ranks("training-step-tp8-pp4-dp16", sets, 2, 1);
  sets = quarter;
  sets.push_back("workload.training.parallel.microbatches=2");
  check_over_ranks("training-step-tp8-pp4-dp16", sets, 3, 1, true);
  // No gradients, and no data parallelism: each stage's groups are done with its last replica,
  // whichever process runs it — found once every process has told of the stage's replicas.
  sets.push_back("workload.training.layer.gradients=0");
  check_over_ranks("training-step-tp8-pp4-dp16", sets, 2, 1);
  check_over_ranks("training-step-tp8-pp4-dp16",
                   {"topology.nodes.count=4", "workload.training.parallel.dp=1",
                    "workload.training.parallel.microbatches=4", "workload.training.steps=2"},
                   2, 1);
}

TEST_CASE("ranks: Chakra traces run over processes as in one", "[scenario][split][ranks][chakra]") {
  // Each rank's nodes where its GPU is (its first ones started by its agent's event); each
  // group's collectives (ring) joined rank by rank where the ranks are; sends after their
  // receivers' clear-to-send; every rank's end told to every process. A generated Megatron step
  // (tp 8, pp 2, dp 4) on 8 servers, over 2 processes, and over 3 with a timeline.
  const test_support::TempDir dir;
  check_over_ranks(test_support::chakra_step(dir, "ring"), 2, 1);
  check_over_ranks(test_support::chakra_step(dir, "ring"), 3, 1, true);
  // The default algorithms: the tensor groups' all-reduces NVLS inside each server, each once
  // every member has reached it, there alone, its rows told to the others (over 3 processes,
  // two of which hold servers).
  check_over_ranks(test_support::chakra_step(dir, ""), 3, 1);
}

TEST_CASE("ranks: the 1,024-host permutation over processes", "[scenario][split][ranks][slow]") {
#ifdef RDMASIM_SANITIZER_PASS
  // The sanitizer pass finds memory errors of this path in the small fabrics above; this one
  // adds only minutes there.
  std::printf("SKIPPED: the 1,024-host run over processes runs in the Release pass\n");
#else
  check_over_ranks("permutation-fattree-1024", {}, 2, 2);
#endif
}

TEST_CASE(
    "ranks: rdmasim run under mpirun (2 and 3 processes) writes the single process's files, once",
    "[cli][split][ranks][mpi]") {
  if (!test_support::mpi_runs()) return;
  const test_support::TempDir dir("rdmasim_ranks");
  const std::string rdmasim = RDMASIM_BIN_DIR "/rdmasim run " RDMASIM_SOURCE_DIR "/scenarios/";
  const std::string mpirun = test_support::mpirun(2) + rdmasim;
  // Lossy Ethernet with go-back-N over 3 processes (each takes its messages in the order they
  // come, tagged by the exchange's parity: tools/mpi/mpi_ranks.cpp), and kernel TCP; DCQCN over
  // PFC, on 2 threads a process; a hierarchical all-reduce sweep on 16 GPU servers; ring and
  // SHARP all-reduces on InfiniBand.
  struct Run {
    std::string scenario, options;
    int processes = 2;
  };
  const Run runs[] = {
      {"incast-8to1.json", "", 3},
      {"incast-8to1.json", " --set fabric.transport=tcp"},
      {"roce-incast-8to1-dcqcn.json", " --set fabric.pfc.deadlock_detection=false --threads 2"},
      {"allreduce-sweep-roce-16x8.json", " --set workload.collective.max=128KiB"},
      {"ib-sharp-allreduce.json",
       " --set workload.collective[0].max=1MiB --set workload.collective[1].max=1MiB"}};
  for (const auto& [scenario, options, processes] : runs) {
    INFO(scenario << options << " over " << processes);
    const auto one = test_support::shell(rdmasim + scenario + options + " -q --out one", dir);
    REQUIRE(one.exit_code == 0);
    const auto two = test_support::shell(
        test_support::mpirun(processes) + rdmasim + scenario + options + " --out two", dir);
    INFO(two.out << two.err);
    REQUIRE(two.exit_code == 0);
    // One headline: the first process's.
    CHECK(std::count(two.out.begin(), two.out.end(), '\n') > 3);
    size_t headlines = 0;
    for (const std::string& line : test_support::lines_of(two.out)) {
      headlines += line.rfind("scenario ", 0) == 0 ? 1 : 0;
    }
    CHECK(headlines == 1);
    const auto expected = test_support::run_files(dir / "one");
    const auto gathered = test_support::run_files(dir / "two");
    CHECK(expected.size() >= 5);
    REQUIRE(gathered.size() == expected.size());
    for (const auto& [file, text] : expected) {
      INFO(file);
      REQUIRE(gathered.count(file) == 1);
      CHECK(gathered.at(file) == text);
    }
    std::filesystem::remove_all(dir / "one");
    std::filesystem::remove_all(dir / "two");
  }
  // Every process reads the same input: one message, exit code 2, nothing written; what it
  // cannot run yet likewise.
  for (const std::string& bad : {std::string("incast-8to1.json --set fabric.nope=1"),
                                 std::string("allreduce-oversubscribed.json --set "
                                             "workload.collective.size_gap=0ns")}) {
    INFO(bad);
    const auto run = test_support::shell(mpirun + bad + " --out bad", dir);
    INFO(run.out << run.err);
    CHECK(run.exit_code == 2);
    size_t errors = 0;
    for (const std::string& line : test_support::lines_of(run.err)) {
      errors += line.rfind("rdmasim: error: ", 0) == 0 ? 1 : 0;
    }
    CHECK(errors == 1);
    CHECK(!std::filesystem::exists(dir / "bad"));
  }
}

TEST_CASE("ranks: what a run over processes cannot run yet is refused, with the reason",
          "[unit][split][ranks]") {
  sim::LocalRanks group(2);
  scen::RunOptions o;
  o.ranks = &group.rank(0);
  // What a split run refuses (here, the next size of a sweep starting on every rank at once
  // less than a window after the last one's end).
  CHECK_THROWS_WITH(
      scen::ScenarioRun(
          shipped_scenario("allreduce-oversubscribed", {"workload.collective.size_gap=0ns"}), o),
      Catch::Contains("a run over MPI ranks does not yet run a collective size_gap below 1 us"));
}
