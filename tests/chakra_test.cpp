// Chakra execution traces (scenarios/chakra/, models/workloads/chakra_run.*): a generated
// Megatron step run from its traces takes exactly what the same step takes as a
// `training.parallel` workload (two executors of one schedule); a trace of compute alone
// takes its critical path; a send waits for its receive and moves its bytes as a message of
// that size does alone; every malformed trace is refused naming its file and node.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <string>

#include "cli_runner.hpp"
#include "models/timeline.hpp"
#include "scenario_helpers.hpp"
#include "scenarios/chakra/chakra_generate.hpp"
#include "scenarios/loader/chakra_trace.hpp"
#include "temp_dir.hpp"

namespace {

using ChakraProtoMsg::Node;
using test_support::TempDir;

scen::Json cluster(int servers) {
  return test_support::dgx_rail_cluster("chakra", servers);
}

scen::RunOutcome run_chakra(const TempDir& dir, scen::Json j, scen::RunOptions ro = {}) {
  return scen::run_scenario(scen::load_scenario_json(j, dir.path().string(), scen::LoadOptions{}),
                            ro);
}

scen::Scenario load_chakra(const TempDir& dir, scen::Json j) {
  return scen::load_scenario_json(j, dir.path().string(), scen::LoadOptions{});
}

Node& add(scen::EtFile& et, ChakraProtoMsg::NodeType type, std::vector<uint64_t> deps = {}) {
  Node& n = *et.nodes.emplace(et.nodes.end());
  n.set_id(et.nodes.size() - 1);
  n.set_name("node" + std::to_string(n.id()));
  n.set_type(type);
  for (uint64_t d : deps) n.add_data_deps(d);
  return n;
}

void attr(Node& n, const char* name, int64_t v) {
  auto* a = n.add_attr();
  a->set_name(name);
  a->set_int64_val(v);
}

scen::EtFile empty_trace() {
  scen::EtFile et;
  et.metadata.set_version("0.0.4");
  return et;
}

// Two plain hosts on a switch: rank 0 computes 10 us then sends `bytes` to rank 1, which
// receives them and computes 5 us.
void write_send_recv(const TempDir& dir, int64_t bytes) {
  scen::EtFile a = empty_trace(), b = empty_trace();
  add(a, ChakraProtoMsg::COMP_NODE).set_duration_micros(10);
  Node& s = add(a, ChakraProtoMsg::COMM_SEND_NODE, {0});
  attr(s, "comm_dst", 1);
  attr(s, "comm_size", bytes);
  Node& r = add(b, ChakraProtoMsg::COMM_RECV_NODE);
  attr(r, "comm_src", 0);
  attr(r, "comm_size", bytes);
  add(b, ChakraProtoMsg::COMP_NODE, {0}).set_duration_micros(5);
  scen::write_et_file((dir / "p2p.0.et").string(), a);
  scen::write_et_file((dir / "p2p.1.et").string(), b);
}

// Rank 0 sends `bytes` to rank 1 at once; rank 1 computes 30 us, then posts its receive.
void write_late_recv(const TempDir& dir, int64_t bytes) {
  scen::EtFile a = empty_trace(), b = empty_trace();
  Node& s = add(a, ChakraProtoMsg::COMM_SEND_NODE);
  attr(s, "comm_dst", 1);
  attr(s, "comm_size", bytes);
  add(b, ChakraProtoMsg::COMP_NODE).set_duration_micros(30);
  Node& r = add(b, ChakraProtoMsg::COMM_RECV_NODE, {0});
  attr(r, "comm_src", 0);
  attr(r, "comm_size", bytes);
  scen::write_et_file((dir / "p2p.0.et").string(), a);
  scen::write_et_file((dir / "p2p.1.et").string(), b);
}

scen::Json two_hosts() {
  scen::Json j;
  j["name"] = "chakra-p2p";
  j["topology"] = test_support::star(2, "100Gbps");
  j["fabric"]["switch"] = {{"latency", "500ns"}};
  j["workload"]["chakra"] = {{"traces", "p2p"}};
  return j;
}

}  // namespace

TEST_CASE("chakra: a generated Megatron step runs as the same training.parallel step",
          "[mechanism][chakra][training]") {
  TempDir dir("rdmasim_chakra");
  scen::ChakraTrainingLayout l;
  l.tp = 8;
  l.pp = 2;
  l.dp = 2;
  l.microbatches = 4;
  l.layers = 4;
  l.forward = sim::Time(100'000'000);
  l.backward = sim::Time(200'000'000);
  l.optimizer = sim::Time(100'000'000);
  l.activation_bytes = 1 << 20;
  l.gradient_bytes = 8 << 20;
  l.bucket_bytes = 16 << 20;
  REQUIRE(scen::write_training_traces(l, (dir / "step").string()) == 32);
  scen::Json c = cluster(4);
  c["workload"]["chakra"] = {{"traces", "step"}, {"comm_groups", "step.comm_groups.json"}};
  const scen::RunOutcome chakra = run_chakra(dir, c);
  scen::Json t = cluster(4);
  t["workload"]["training"] = {
      {"parallel", {{"tp", 8}, {"pp", 2}, {"dp", 2}, {"microbatches", 4}}},
      {"layers", 4},
      {"layer", {{"forward", "100us"}, {"backward", "200us"}, {"gradients", "8MiB"}}},
      {"activations", "1MiB"},
      {"optimizer", "100us"},
      {"bucket", "16MiB"}};
  const scen::RunOutcome training = scen::run_scenario(test_support::load(t));
  REQUIRE(chakra.chakra_ranks.size() == 32);
  sim::Time slowest;
  for (const auto& r : chakra.chakra_ranks) {
    slowest = std::max(slowest, r.iteration);
    CHECK(r.compute.ps == static_cast<int64_t>(4 * 2 * 300e6 + 100e6));  // 4 micro x 2 layers
    CHECK(r.exposed == r.iteration - r.compute);
    CHECK(r.collectives == 33u);  // 32 tensor all-reduces and one gradient bucket
  }
  INFO("chakra " << slowest.us() << " us, training.parallel "
                 << training.training_steps.at(0).step.us() << " us");
  CHECK(slowest == training.training_steps.at(0).step);
  // 32 tensor all-reduces per GPU and one gradient bucket: 4 tensor groups x 32 + 16 data
  // groups x 1.
  CHECK(chakra.chakra_collectives.size() == 4 * 32 + 16);
  CHECK(chakra.results["chakra"]["ranks_finished"] == 32);
}

TEST_CASE("chakra: compute alone takes its critical path, exposed nothing", "[mechanism][chakra]") {
  TempDir dir("rdmasim_chakra");
  // Per rank: a (30 us) and b (50 us) in parallel, then c (20 us) after both: 70 us.
  for (int rank = 0; rank < 2; ++rank) {
    scen::EtFile et = empty_trace();
    add(et, ChakraProtoMsg::COMP_NODE).set_duration_micros(30);
    add(et, ChakraProtoMsg::COMP_NODE).set_duration_micros(50);
    add(et, ChakraProtoMsg::METADATA_NODE, {0});
    Node& c = add(et, ChakraProtoMsg::COMP_NODE, {1});
    c.add_ctrl_deps(2);
    c.set_duration_micros(20);
    scen::write_et_file((dir / ("p2p." + std::to_string(rank) + ".et")).string(), et);
  }
  const scen::RunOutcome out = run_chakra(dir, two_hosts());
  REQUIRE(out.chakra_ranks.size() == 2);
  for (const auto& r : out.chakra_ranks) {
    CHECK(r.iteration.ps == 70'000'000);
    CHECK(r.compute.ps == 70'000'000);
    CHECK(r.exposed.ps == 0);
    CHECK(r.nodes == 4);
  }
}

TEST_CASE("chakra: a send moves its bytes once its receive is posted, as a message alone",
          "[mechanism][chakra]") {
  TempDir dir("rdmasim_chakra");
  write_send_recv(dir, 1 << 20);
  const scen::RunOutcome out = run_chakra(dir, two_hosts());
  REQUIRE(out.chakra_ranks.size() == 2);
  // The same 1 MiB as a flow of the workload, posted at 10 us.
  scen::Json f = two_hosts();
  f["workload"].erase("chakra");
  f["workload"]["flows"] = {{{"src", "h0"}, {"dst", "h1"}, {"size", "1MiB"}, {"start", "10us"}}};
  const scen::RunOutcome alone = scen::run_scenario(test_support::load(f));
  REQUIRE(alone.flows.size() == 1);
  const auto& rx = out.chakra_ranks[1];
  INFO("receiver " << rx.iteration.us() << " us; the flow alone completes in "
                   << alone.flows[0].fct.us() << " us");
  CHECK(rx.compute.ps == 5'000'000);
  CHECK(rx.recvs == 1);
  CHECK(out.chakra_ranks[0].sends == 1);
  // The receiver: 10 us for the sender's compute, the delivery, 5 us of its own compute.
  const double delivered = static_cast<double>((rx.iteration - sim::Time(15'000'000)).ps);
  CHECK(delivered > 0.9 * static_cast<double>(alone.flows[0].fct.ps) - 2e6);
  CHECK(delivered <= static_cast<double>(alone.flows[0].fct.ps));
}

TEST_CASE("chakra: a send waits for its receiver's clear-to-send, one small message's way",
          "[mechanism][chakra]") {
  // NCCL's receiver posts its receive and writes the sender a 64-byte FIFO element (where to
  // write); only then does the data go. Posted 30 us after the send, the send ends (its data
  // acknowledged) one clear-to-send's trip (two 1 us links and the switch at least) after the
  // data alone, posted at 30 us, would.
  TempDir dir("rdmasim_chakra");
  write_late_recv(dir, 1 << 20);
  const scen::RunOutcome out = run_chakra(dir, two_hosts());
  REQUIRE(out.chakra_ranks.size() == 2);
  scen::Json f = two_hosts();
  f["workload"].erase("chakra");
  f["workload"]["flows"] = {{{"src", "h0"}, {"dst", "h1"}, {"size", "1MiB"}, {"start", "30us"}},
                            {{"src", "h1"}, {"dst", "h0"}, {"size", "64B"}, {"start", "0us"}}};
  const scen::RunOutcome alone = scen::run_scenario(test_support::load(f));
  REQUIRE(alone.flows.size() == 2);
  const sim::Time data = alone.flows[0].fct, small = alone.flows[1].fct;
  const sim::Time extra = out.chakra_ranks[0].iteration - sim::Time(30'000'000) - data;
  INFO("send ends " << extra.us() << " us after the data alone would; a 64 B message's "
                    << "round trip " << small.us() << " us");
  CHECK(extra.ps >= 2'500'000);
  CHECK(extra <= small);
  // The receiver has the data before the sender hears it acknowledged.
  CHECK(out.chakra_ranks[1].iteration < out.chakra_ranks[0].iteration);
}

TEST_CASE("chakra: each rank's collective ends with its own part, as its GPU's kernel does",
          "[mechanism][chakra]") {
  // Four hosts broadcast 1 MiB from rank 0 (a chain), then each computes 10 us. NCCL runs the
  // broadcast as one kernel per GPU, which returns when that GPU's part is done: the root once
  // its sends are acknowledged, the chain's last rank once the data has reached it; each
  // GPU's next work starts then. Were every member's node done at the collective's end,
  // every rank would end together.
  TempDir dir("rdmasim_chakra");
  for (int rank = 0; rank < 4; ++rank) {
    scen::EtFile et = empty_trace();
    Node& b = add(et, ChakraProtoMsg::COMM_COLL_NODE);
    attr(b, "comm_type", 5);  // BROADCAST
    attr(b, "comm_size", 1 << 20);
    add(et, ChakraProtoMsg::COMP_NODE, {0}).set_duration_micros(10);
    scen::write_et_file((dir / ("bcast." + std::to_string(rank) + ".et")).string(), et);
  }
  scen::Json j;
  j["name"] = "chakra-broadcast";
  j["topology"] = test_support::star(4, "100Gbps");
  j["fabric"]["switch"] = {{"latency", "500ns"}};
  j["workload"]["chakra"] = {{"traces", "bcast"}, {"comm", {{"algorithm", "ring"}}}};
  const scen::RunOutcome out = run_chakra(dir, j);
  REQUIRE(out.chakra_ranks.size() == 4);
  const sim::Time root = out.chakra_ranks[0].iteration;
  sim::Time last;
  for (const auto& r : out.chakra_ranks) last = std::max(last, r.iteration);
  INFO("root " << root.us() << " us, last " << last.us() << " us");
  // The chain's last hop at least (1 MiB at 100 Gb/s is 84 us) separates them.
  CHECK((last - root).us() > 40);
  REQUIRE(out.chakra_collectives.size() == 1);
  CHECK(last == out.chakra_collectives[0].end + sim::Time(10'000'000));
}

TEST_CASE("chakra: the timeline has each rank's compute and communication",
          "[mechanism][chakra][timeline]") {
  TempDir dir("rdmasim_chakra");
  write_send_recv(dir, 64 << 10);
  scen::RunOptions ro;
  ro.timeline.enabled = true;
  const scen::RunOutcome out = run_chakra(dir, two_hosts(), ro);
  REQUIRE(out.timeline);
  std::map<std::string, int64_t> busy;
  for (const auto& sp : out.timeline->spans()) {
    const auto& tr = out.timeline->tracks()[sp.track];
    if (tr.process == "chakra 0") busy[tr.thread] += (sp.end - sp.start).ps;
  }
  CHECK(busy["rank 0 h0 compute"] == 10'000'000);
  CHECK(busy["rank 1 h1 compute"] == 5'000'000);
  CHECK(busy["rank 0 h0 comm"] > 0);
  CHECK(busy["rank 1 h1 comm"] > 0);
}

TEST_CASE("chakra: malformed traces are refused naming the file and the node",
          "[unit][chakra][robustness]") {
  struct Case {
    const char* what;
    std::function<void(const TempDir&)> make;
    const char* message;  // the start of the error, after the folder
  };
  const auto write_pair = [](const TempDir& dir, const scen::EtFile& a, const scen::EtFile& b) {
    scen::write_et_file((dir / "p2p.0.et").string(), a);
    scen::write_et_file((dir / "p2p.1.et").string(), b);
  };
  const std::vector<Case> cases = {
      {"not ET",
       [](const TempDir& dir) {
         dir.write("p2p.0.et", "{\"nodes\": []}\n");
         dir.write("p2p.1.et", "{\"nodes\": []}\n");
       },
       "p2p.0.et: got "},
      {"missing dependency",
       [&](const TempDir& dir) {
         scen::EtFile a = empty_trace();
         add(a, ChakraProtoMsg::COMP_NODE, {7});
         write_pair(dir, a, empty_trace());
       },
       "p2p.0.et: node 0 (node0): deps: got 7; expected the id of a node of the same trace"},
      {"cycle",
       [&](const TempDir& dir) {
         scen::EtFile a = empty_trace();
         add(a, ChakraProtoMsg::COMP_NODE, {1});
         add(a, ChakraProtoMsg::COMP_NODE, {0});
         write_pair(dir, a, empty_trace());
       },
       "p2p.0.et: node 0 (node0): deps: got a cycle"},
      {"missing process group",
       [&](const TempDir& dir) {
         scen::EtFile a = empty_trace();
         Node& n = add(a, ChakraProtoMsg::COMM_COLL_NODE);
         attr(n, "comm_type", 0);
         attr(n, "comm_size", 1024);
         auto* pg = n.add_attr();
         pg->set_name("pg_name");
         pg->set_string_val("tp_9");
         write_pair(dir, a, empty_trace());
       },
       "p2p.0.et: node 0 (node0): attribute pg_name: got tp_9; expected a process group"},
      {"unmatched send",
       [&](const TempDir& dir) {
         scen::EtFile a = empty_trace();
         Node& n = add(a, ChakraProtoMsg::COMM_SEND_NODE);
         attr(n, "comm_dst", 1);
         attr(n, "comm_size", 1024);
         write_pair(dir, a, empty_trace());
       },
       "p2p.1.et: got 0 receives from rank 0 with tag 0; expected one per send"},
      {"collectives that differ",
       [&](const TempDir& dir) {
         scen::EtFile a = empty_trace(), b = empty_trace();
         attr(add(a, ChakraProtoMsg::COMM_COLL_NODE), "comm_type", 0);
         attr(a.nodes[0], "comm_size", 1024);
         attr(add(b, ChakraProtoMsg::COMM_COLL_NODE), "comm_type", 2);
         attr(b.nodes[0], "comm_size", 1024);
         write_pair(dir, a, b);
       },
       "p2p.1.et: node 0 (node0): got all_gather of 1024 bytes; expected the same collective"},
      {"a peer out of range",
       [&](const TempDir& dir) {
         scen::EtFile a = empty_trace();
         Node& n = add(a, ChakraProtoMsg::COMM_SEND_NODE);
         attr(n, "comm_dst", 5);
         attr(n, "comm_size", 1024);
         write_pair(dir, a, empty_trace());
       },
       "p2p.0.et: node 0 (node0): attribute comm_dst: got 5; expected a rank below 2"},
      {"more traces than ranks",
       [&](const TempDir& dir) {
         write_pair(dir, empty_trace(), empty_trace());
         scen::write_et_file((dir / "p2p.2.et").string(), empty_trace());
       },
       "workload.chakra.traces: got "},
      {"a missing rank's trace",
       [&](const TempDir& dir) { scen::write_et_file((dir / "p2p.0.et").string(), empty_trace()); },
       "p2p.1.et: got nothing; expected a readable file"},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    TempDir dir("rdmasim_chakra_bad");
    c.make(dir);
    try {
      (void)load_chakra(dir, two_hosts());
      FAIL("accepted");
    } catch (const scen::InputError& e) {
      std::string msg = e.what();
      const std::string folder = dir.path().string() + "/";
      if (msg.rfind(folder, 0) == 0) msg = msg.substr(folder.size());
      CHECK_THAT(msg, Catch::StartsWith(c.message));
    }
  }
}

TEST_CASE("chakra: generate and run from the command line, chakra.csv per rank", "[cli][chakra]") {
  TempDir dir("rdmasim_chakra_cli");
  const test_support::Run g = test_support::rdmasim(
      {"chakra",    "generate", "--tp",           "8",      "--pp",        "2",
       "--dp",      "1",        "--microbatches", "2",      "--layers",    "2",
       "--forward", "20us",     "--activations",  "256KiB", "--gradients", "1MiB",
       "-o",        "step"},
      dir);
  INFO(g.err);
  REQUIRE(g.exit_code == 0);
  CHECK(std::filesystem::exists(dir / "step.15.et"));
  CHECK_FALSE(std::filesystem::exists(dir / "step.16.et"));
  scen::Json c = cluster(2);
  c["workload"]["chakra"] = {{"traces", "step"}, {"comm_groups", "step.comm_groups.json"}};
  dir.write("chakra.json", c.dump());
  const test_support::Run r = test_support::rdmasim({"run", "chakra.json", "--out", "out"}, dir);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("# chakra: 16 ranks, iteration") != std::string::npos);
  std::ifstream csv(dir / "out" / "chakra.csv");
  std::string line;
  int lines = 0;
  while (std::getline(csv, line)) ++lines;
  CHECK(lines == 17);
  // One trace too many for the 16 GPUs: refused before running, nothing written.
  std::filesystem::copy_file(dir / "step.0.et", dir / "step.16.et");
  const test_support::Run bad = test_support::rdmasim({"run", "chakra.json", "--out", "out2"}, dir);
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("workload.chakra.traces") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir / "out2"));
}
