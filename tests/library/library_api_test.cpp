// The library API (scenarios/api/include/rdmasim/simulation.hpp) through librdmasim alone, as
// a user's program links it: runs equal to the CLI's, messages with completion and receive
// callbacks, timers, stepping, refusals and determinism.
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <rdmasim/simulation.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace {

using rdmasim::kMicrosecond;
using rdmasim::Picoseconds;

// n hosts h0..h(n-1) on one switch, 100 Gb/s links of 1 µs, lossy Ethernet; no workload.
std::string star(int n, const std::string& extra_workload = "") {
  std::string nodes = R"({"name": "s0", "kind": "switch"})";
  std::string links;
  for (int h = 0; h < n; ++h) {
    const std::string name = "h" + std::to_string(h);
    nodes += R"(, {"name": ")" + name + R"(", "kind": "host"})";
    links += std::string(h ? ", " : "") + R"({"a": ")" + name +
             R"(", "b": "s0", "rate": "100Gbps", "latency": "1us"})";
  }
  return R"({"name": "api-star", "seed": 3, "topology": {"nodes": [)" + nodes + R"(], "links": [)" +
         links + R"(]}, "workload": {)" + extra_workload +
         R"(}, "stop": {"until": "workload-done", "time": "50ms"}})";
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string temp_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("rdmasim-api-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  return dir.string();
}

// The message of the InputError `f` throws, or "accepted".
template <class F>
std::string refusal(F&& f) {
  try {
    f();
  } catch (const rdmasim::InputError& e) {
    return e.what();
  }
  return "accepted";
}

}  // namespace

TEST_CASE("library: run() writes what rdmasim run writes, byte for byte", "[cli][library]") {
  const std::string scenario = RDMASIM_SOURCE_DIR "/scenarios/quickstart.json";
  const std::string cli_dir = temp_dir("cli"), api_dir = temp_dir("api");
  const std::string command = std::string(RDMASIM_BIN_DIR "/rdmasim run ") + scenario + " -q -o " +
                              cli_dir + " > /dev/null";
  REQUIRE(std::system(command.c_str()) == 0);

  rdmasim::Simulation sim = rdmasim::Simulation::from_file(scenario);
  CHECK(sim.name() == "quickstart");
  CHECK(sim.hosts().size() == 16);
  const rdmasim::Results r = sim.run();
  CHECK(r.stop_reason == "workload-done");
  CHECK(r.flows.size() == 20);
  for (const auto& f : r.flows) CHECK(f.completed);
  CHECK(r.counters.at("events") == r.events);
  sim.write_outputs(api_dir);
  for (const char* file : {"summary.json", "flows.csv", "links.csv", "timeseries.csv"}) {
    INFO(file);
    CHECK(read_file(api_dir + "/" + file) == read_file(cli_dir + "/" + file));
  }
  CHECK(r.summary_json == read_file(cli_dir + "/summary.json"));
  std::filesystem::remove_all(cli_dir);
  std::filesystem::remove_all(api_dir);
}

TEST_CASE(
    "library: a message sent through the API completes when the same flow in the "
    "scenario file does",
    "[mechanism][library]") {
  // The same 1 MB from h0 to h1 at time 0, once as a flow of the file, once posted by send().
  rdmasim::Simulation by_file = rdmasim::Simulation::from_json(
      star(3, R"("flows": [{"src": "h0", "dst": "h1", "size": "1MB"}])"));
  const rdmasim::Results file_run = by_file.run();
  REQUIRE(file_run.flows.size() == 1);

  rdmasim::Simulation sim = rdmasim::Simulation::from_json(star(3));
  rdmasim::Message seen;
  int calls = 0;
  const uint64_t id = sim.send("h0", "h1", 1000000, [&](const rdmasim::Message& m) {
    seen = m;
    ++calls;
  });
  CHECK(id == 1);
  CHECK(sim.run_until_done());
  REQUIRE(calls == 1);
  CHECK(seen.id == id);
  CHECK(seen.src == "h0");
  CHECK(seen.dst == "h1");
  CHECK(seen.bytes == 1000000);
  CHECK(seen.posted == 0);
  CHECK(seen.completed == file_run.flows[0].finish);
  // Delivered one ACK's trip before the sender hears of it: at least the link latencies.
  CHECK(seen.delivered > 0);
  CHECK(seen.completed - seen.delivered >= 2 * kMicrosecond);
  const rdmasim::Results r = sim.finish();
  REQUIRE(r.flows.size() == 1);
  CHECK(r.flows[0].tag == "api");
  CHECK(r.flows[0].fct == file_run.flows[0].fct);
  CHECK(r.flows[0].ideal_fct == file_run.flows[0].ideal_fct);
}

TEST_CASE(
    "library: recv() matches messages by source, destination and tag, before or after "
    "their delivery",
    "[mechanism][library]") {
  rdmasim::Simulation sim = rdmasim::Simulation::from_json(star(4));
  std::vector<std::string> log;
  rdmasim::MessageOptions tag5, tag6;
  tag5.tag = 5;
  tag6.tag = 6;
  // Posted before: called at delivery.
  Picoseconds early_delivery = -1, early_called = -1;
  sim.recv("h0", "h1", 5, [&](const rdmasim::Message& m) {
    early_delivery = m.delivered;
    early_called = sim.now();
    log.push_back("h0->h1 tag 5");
  });
  sim.send("h0", "h1", 4096, {}, tag5);
  sim.send("h2", "h1", 4096, {}, tag6);  // another tag: not this receive's
  sim.run_until(100 * kMicrosecond);
  CHECK(sim.now() == 100 * kMicrosecond);
  CHECK(early_called == early_delivery);
  CHECK(early_delivery > 0);
  // Posted after the delivery: called at once, told when the message arrived.
  Picoseconds late_delivery = -1;
  sim.recv("h2", "h1", 6, [&](const rdmasim::Message& m) {
    late_delivery = m.delivered;
    log.push_back("h2->h1 tag 6");
  });
  CHECK(late_delivery > 0);
  CHECK(late_delivery < 100 * kMicrosecond);
  // Nothing from h3 yet: the receive waits.
  bool h3 = false;
  sim.recv("h3", "h1", 5, [&](const rdmasim::Message&) { h3 = true; });
  sim.run_until(200 * kMicrosecond);
  CHECK_FALSE(h3);
  CHECK(log == std::vector<std::string>{"h0->h1 tag 5", "h2->h1 tag 6"});
}

TEST_CASE(
    "library: callbacks at their time chain work as a system simulator does: a "
    "ping-pong",
    "[mechanism][library]") {
  rdmasim::Simulation sim = rdmasim::Simulation::from_json(star(2));
  // h0 sends; when h1 has it, h1 answers after 10 µs of "compute"; then h0 is done.
  Picoseconds ping_delivered = 0, pong_delivered = 0, timer = 0;
  sim.recv("h0", "h1", 0, [&](const rdmasim::Message& m) {
    ping_delivered = m.delivered;
    sim.schedule(10 * kMicrosecond, [&] {
      timer = sim.now();
      sim.send("h1", "h0", 64000);
    });
  });
  sim.recv("h1", "h0", 0, [&](const rdmasim::Message& m) { pong_delivered = m.delivered; });
  sim.send("h0", "h1", 64000);
  CHECK(sim.run_until_done());
  CHECK(timer == ping_delivered + 10 * kMicrosecond);
  // The two directions are alike: the pong takes as long after its post as the ping did.
  CHECK(pong_delivered - timer == ping_delivered);
  CHECK(sim.counters().at("flows_done") == 2);
}

TEST_CASE("library: stepping leaves the clock where asked and the run equal to one run",
          "[mechanism][library]") {
  const std::string json = star(4, R"("flows": [{"src": "h0", "dst": "h3", "size": "2MB"},
                                                {"src": "h1", "dst": "h3", "size": "2MB"}])");
  rdmasim::Simulation whole = rdmasim::Simulation::from_json(json);
  const rdmasim::Results at_once = whole.run();

  rdmasim::Simulation stepped = rdmasim::Simulation::from_json(json);
  uint64_t last_hops = 0;
  for (Picoseconds t = 20 * kMicrosecond; t <= 200 * kMicrosecond; t += 20 * kMicrosecond) {
    stepped.run_until(t);
    CHECK(stepped.now() == t);
    const uint64_t hops = stepped.counters().at("packet_hops");
    CHECK(hops >= last_hops);
    last_hops = hops;
  }
  CHECK(stepped.run_until_done());
  const rdmasim::Results in_steps = stepped.finish();
  REQUIRE(in_steps.flows.size() == 2);
  for (size_t i = 0; i < 2; ++i) CHECK(in_steps.flows[i].finish == at_once.flows[i].finish);
  CHECK(in_steps.packet_hops == at_once.packet_hops);
  // An idle fabric: the clock still moves to the time asked.
  rdmasim::Simulation idle = rdmasim::Simulation::from_json(star(2));
  idle.run_until(5 * rdmasim::kMillisecond);
  CHECK(idle.now() == 5 * rdmasim::kMillisecond);
}

TEST_CASE(
    "library: GPU to GPU: over NVLink inside a server, through the GPUs' NICs between "
    "servers",
    "[mechanism][library]") {
  // Two DGX H100 servers on 8 rails, the scenario's own collective left out.
  rdmasim::LoadOptions no_workload;
  no_workload.sets = {"workload={}"};
  const std::string scenario = RDMASIM_SOURCE_DIR "/scenarios/allreduce-2x8-h100-rails.json";
  const auto completion = [&](const std::string& src, const std::string& dst) {
    rdmasim::Simulation sim = rdmasim::Simulation::from_file(scenario, no_workload);
    Picoseconds done = -1;
    sim.send(src, dst, 8 << 20, [&](const rdmasim::Message& m) { done = m.completed; });
    CHECK(sim.run_until_done());
    return done;
  };
  rdmasim::Simulation sim = rdmasim::Simulation::from_file(scenario, no_workload);
  REQUIRE(sim.gpus().size() == 16);
  CHECK(sim.gpus().front() == "n0g0");
  CHECK(sim.gpus().back() == "n1g7");
  // Between servers a GPU's message is its NIC's: GPU 0 of each server sits next to NIC 0.
  const Picoseconds gpu_to_gpu = completion("n0g0", "n1g0");
  CHECK(gpu_to_gpu > 0);
  CHECK(gpu_to_gpu == completion("n0r0", "n1r0"));
  // Inside a server, NVLink (450 GB/s) against the NIC's 400 Gb/s: far quicker.
  const Picoseconds nvlink = completion("n0g0", "n0g1");
  CHECK(nvlink > 0);
  CHECK(nvlink * 4 < gpu_to_gpu);
}

TEST_CASE("library: the same posts give the same times", "[mechanism][library]") {
  const auto times = [] {
    rdmasim::Simulation sim = rdmasim::Simulation::from_json(star(6));
    std::vector<Picoseconds> done;
    for (int i = 1; i < 6; ++i) {
      sim.send("h" + std::to_string(i), "h0", 300000,
               [&done](const rdmasim::Message& m) { done.push_back(m.completed); });
    }
    sim.run_until_done();
    return done;
  };
  const std::vector<Picoseconds> a = times(), b = times();
  CHECK(a.size() == 5);
  CHECK(a == b);
}

TEST_CASE("library: bad input is refused with its path, before anything is simulated",
          "[cli][library]") {
  rdmasim::Simulation sim = rdmasim::Simulation::from_json(star(3));
  CHECK(refusal([&] { sim.send("h9", "h1", 100); }).rfind("send.src: got h9", 0) == 0);
  CHECK(refusal([&] { sim.send("h0", "h0", 100); }).rfind("send.dst: got h0", 0) == 0);
  CHECK(refusal([&] { sim.send("h0", "h1", 0); }).rfind("send.bytes: got 0", 0) == 0);
  rdmasim::MessageOptions bad_class;
  bad_class.priority = 8;
  CHECK(refusal([&] { sim.send("h0", "h1", 100, {}, bad_class); }).rfind("send.priority", 0) == 0);
  rdmasim::MessageOptions tcp;
  tcp.transport = rdmasim::Transport::Tcp;
  CHECK(refusal([&] { sim.send("h0", "h1", 100, {}, tcp); }).rfind("send.transport", 0) == 0);
  CHECK(refusal([&] { sim.schedule(-1, [] {}); }).rfind("schedule.delay", 0) == 0);
  CHECK(refusal([&] { sim.recv("x", "h1", 0, {}); }).rfind("recv.src: got x", 0) == 0);
  CHECK(sim.counters().at("events") == 0);
  CHECK(sim.counters().at("flows") == 0);

  CHECK(refusal([] { rdmasim::Simulation::from_json("{\"name\": "); }).find("<json>") !=
        std::string::npos);
  rdmasim::LoadOptions set;
  set.sets = {"fabric.switch.latency=-3ns"};
  CHECK(refusal([&] {
          rdmasim::Simulation::from_json(star(2), set);
        }).rfind("fabric.switch.latency", 0) == 0);
  CHECK(refusal([] { rdmasim::Simulation::from_file("/nonexistent/x.json"); }) != "accepted");
  CHECK(rdmasim::version() == "0.1.0");
}
