// Calibration: parameters are identifiable (traces simulated with known parameters at two
// switch counts are fitted back within 2 %, within 3 % with 1 % noise); the real ConnectX-6
// perftest traces (../shared via RDMASIM_SHARED) are reproduced within 5 % MAPE over sizes
// >= 4 KiB; params.json is an overlay a scenario includes; a collective trace needs a cluster
// of GPU servers (collective_calibration_test.cpp).
#include "tools/calibration/calibration.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>

#include "scenarios/loader/input_error.hpp"
#include "scenarios/loader/scenario.hpp"
#include "tests/cli_runner.hpp"
#include "tests/temp_dir.hpp"
#include "tests/test_support.hpp"

namespace {

// Two leaves of two hosts under one spine, 100 Gb/s RoCE: h0-h1 cross one switch, h0-h2 three.
calib::ClusterSpec small_cluster() {
  const scen::Json j = scen::Json::parse(R"({
    "name": "two-leaves", "nodes": 4, "nics_per_node": 1, "link_rate": "100Gbps",
    "fabric": "roce",
    "topology": {"generator": "leaf-spine", "leaves": 2, "spines": 1, "hosts_per_leaf": 2,
                 "host_rate": "100Gbps", "fabric_rate": "100Gbps",
                 "host_latency": "20ns", "fabric_latency": "50ns"},
    "pair": ["h0", "h1"]})");
  return calib::read_cluster_json(j, "two-leaves.json", ".");
}

calib::Experiment synthetic(bool latency, const std::string& src, const std::string& dst) {
  calib::Experiment e;
  e.file = std::string(latency ? "lat" : "bw") + "_" + src + "_" + dst;
  e.latency = latency;
  e.src = src;
  e.dst = dst;
  e.mtu = 4096;
  for (int64_t b = 64; b <= (1 << 20); b *= 4) {
    e.bytes.push_back(b);
    e.iterations.push_back(16);
  }
  return e;
}

// Deterministic noise in [-amplitude, +amplitude] (a linear congruential sequence).
double noise(uint64_t& state, double amplitude) {
  state = state * 6364136223846793005ULL + 1442695040888963407ULL;
  return amplitude * (2.0 * static_cast<double>(state >> 11) / 9007199254740992.0 - 1.0);
}

void check_fit_back(double noise_amplitude, double tolerance) {
  const calib::ClusterSpec c = small_cluster();
  const calib::FabricParams truth = calib::network_params(1200, 600, 0.9, 250);
  std::vector<calib::Experiment> ex = {synthetic(true, "h0", "h1"), synthetic(true, "h0", "h2"),
                                       synthetic(false, "h0", "h1")};
  uint64_t state = 42;
  for (auto& e : ex) {
    e.measured.assign(e.bytes.size(), 1.0);
    e.measured = calib::simulate(c, truth, e);
    for (double& m : e.measured) m *= 1 + noise(state, noise_amplitude);
  }
  CHECK(ex[0].switches == 1);
  CHECK(ex[1].switches == 3);
  const calib::CalibrationResult r = calib::calibrate(c, ex, 64);
  INFO(calib::format_report(r));
  CHECK(r.fitted.size() == 4);
  CHECK(r.params.host_latency_ns == Approx(truth.host_latency_ns).epsilon(tolerance));
  CHECK(r.params.hop_latency_ns == Approx(truth.hop_latency_ns).epsilon(tolerance));
  CHECK(r.params.efficiency == Approx(truth.efficiency).epsilon(tolerance));
  CHECK(r.params.message_overhead_ns == Approx(truth.message_overhead_ns).epsilon(tolerance));
}

}  // namespace

TEST_CASE("parameters simulated at two switch counts are fitted back within 2 %",
          "[mechanism][calibrate]") {
  check_fit_back(0.0, 0.02);
}

TEST_CASE("with 1 % multiplicative noise the parameters are fitted back within 3 %",
          "[mechanism][calibrate]") {
  check_fit_back(0.01, 0.03);
}

TEST_CASE("the send engine's rate cap and per-message overhead shape the stream",
          "[mechanism][calibrate]") {
  // Oracle: N messages of S bytes stream in N x (wire(S) / max_send_rate + overhead) when the
  // engine is the bottleneck; without the mechanism the stream runs at line rate.
  const calib::ClusterSpec c = small_cluster();
  calib::Experiment e = synthetic(false, "h0", "h1");
  const calib::FabricParams line = calib::network_params(0, 500, 1.0, 0);
  const calib::FabricParams capped = calib::network_params(0, 500, 0.5, 1000);
  const std::vector<double> fast = calib::simulate(c, line, e);
  const std::vector<double> slow = calib::simulate(c, capped, e);
  for (size_t i = 0; i < e.bytes.size(); ++i) {
    const int64_t s = e.bytes[i];
    const int64_t packets = (s + 4095) / 4096;
    const double wire_bits = 8.0 * static_cast<double>(s + packets * (62 + 20));
    const double per_message_s = wire_bits / 50e9 + 1000e-9;
    CHECK(slow[i] == Approx(static_cast<double>(s) / per_message_s).epsilon(0.03));
    CHECK(fast[i] > 1.5 * slow[i]);
  }
}

TEST_CASE("calibrating on the ConnectX-6 perftest traces reproduces both curves",
          "[mechanism][calibrate]") {
  RDMASIM_REQUIRE_SHARED(shared);
  const calib::ClusterSpec c =
      calib::read_cluster_file(RDMASIM_SOURCE_DIR "/scenarios/clusters/cx6-hdr-2node.json");
  std::vector<calib::Experiment> ex;
  for (const char* f :
       {"perftest_ib_write_lat_cx6_2node.txt", "perftest_ib_write_bw_cx6_2node.txt"}) {
    ex.push_back(
        calib::experiment_from_trace(traces::read_trace_file(shared + "/traces/" + f), c, "", ""));
  }
  const calib::CalibrationResult r = calib::calibrate(c, ex, 4096);
  INFO(calib::format_report(r));
  REQUIRE(r.curves.size() == 2);
  CHECK(r.curves[0].mape_in_range <= 5.0);
  CHECK(r.curves[1].mape_in_range <= 5.0);
  // The plateau: ~23,300 MB/sec of 2^20 B on a 200 Gb/s HDR port.
  CHECK(r.params.efficiency > 0.9);
  CHECK(r.params.efficiency <= 1.0);
}

TEST_CASE("calibrate and validate from the command line with params.json as an overlay",
          "[mechanism][calibrate][cli]") {
  const test_support::TempDir dir("rdmasim_calibrate");
  // Traces made by rdmasim itself (perftest layout) at known parameters.
  const calib::ClusterSpec c = small_cluster();
  // One switch count: the per-switch latency is the RoCE prior (500 ns), the host latency is
  // fitted.
  const calib::FabricParams truth = calib::network_params(1500, 500, 0.95, 100);
  dir.write("cluster.json", R"({
    "name": "two-leaves", "nodes": 4, "nics_per_node": 1, "link_rate": "100Gbps",
    "fabric": "roce",
    "topology": {"generator": "leaf-spine", "leaves": 2, "spines": 1, "hosts_per_leaf": 2,
                 "host_rate": "100Gbps", "fabric_rate": "100Gbps",
                 "host_latency": "20ns", "fabric_latency": "50ns"},
    "pair": ["h0", "h1"]})");
  for (const bool latency : {true, false}) {
    calib::Experiment e = synthetic(latency, "h0", "h1");
    const std::vector<double> v = calib::simulate(c, truth, e);
    traces::PerftestTrace t;
    t.info.title = latency ? "RDMA_Write Latency Test" : "RDMA_Write BW Test";
    t.info.latency = latency;
    t.info.mtu = 4096;
    for (size_t i = 0; i < e.bytes.size(); ++i) {
      if (latency) {
        t.lat.push_back({e.bytes[i], 16, v[i], v[i], v[i], v[i], 0, v[i], v[i], 0});
      } else {
        t.bw.push_back({e.bytes[i], 16, v[i], v[i], v[i] / e.bytes[i] / 1e6, 0});
      }
    }
    dir.write(latency ? "lat.txt" : "bw.txt", traces::format_perftest(t));
  }
  const auto cal = test_support::rdmasim(
      {"calibrate", "--cluster", "cluster.json", "--trace", "lat.txt", "--trace", "bw.txt",
       "--min-size", "64", "-o", "fit/params.json", "--no-plot"},
      dir);
  INFO(cal.out << cal.err);
  REQUIRE(cal.exit_code == 0);
  CHECK(test_support::contains(cal.out, "MAPE"));
  CHECK(std::filesystem::exists(dir / "fit/report.csv"));
  // A scenario includes params.json and gets the fitted values.
  dir.write("s.json", R"({"include": ["fit/params.json"],
    "topology": {"nodes": [{"name": "a", "kind": "host"}, {"name": "b", "kind": "host"}],
                 "links": [{"a": "a", "b": "b", "rate": "100Gbps", "latency": "1ns"}]},
    "workload": {"flows": [{"src": "a", "dst": "b", "size": "1KB"}]}})");
  const scen::Scenario s = scen::load_scenario_file((dir / "s.json").string());
  // tx + rx = host latency (2 % of 1500 ns), and the rest of the overlay within 2 %.
  CHECK(static_cast<double>((s.nic.tx_latency + s.nic.rx_latency).ps) ==
        Approx(1500e3).epsilon(0.02));
  // The send engine's cap as a fraction of the line rate (95 Gb/s on this 100 Gb/s link).
  CHECK(s.nic.send_efficiency == Approx(0.95).epsilon(0.02));
  CHECK(s.nic.max_send_rate_bps == 0);
  // Validate predicts the same traces from params.json within a few per cent.
  const auto val = test_support::rdmasim(
      {"validate", "--cluster", "cluster.json", "--params", "fit/params.json", "--trace", "lat.txt",
       "--min-size", "64", "--report", "val", "--no-plot"},
      dir);
  INFO(val.out << val.err);
  REQUIRE(val.exit_code == 0);
  CHECK(test_support::contains(val.out, "MAPE"));
  CHECK(std::filesystem::exists(dir / "val/report.txt"));
  // Without --report: the table on the terminal and no file written into the current folder
  // (issue 17 item 13).
  const auto listed = std::distance(std::filesystem::directory_iterator(dir.path()),
                                    std::filesystem::directory_iterator{});
  const auto plain =
      test_support::rdmasim({"validate", "--cluster", "cluster.json", "--params", "fit/params.json",
                             "--trace", "lat.txt", "--min-size", "64"},
                            dir);
  INFO(plain.out << plain.err);
  REQUIRE(plain.exit_code == 0);
  CHECK(test_support::contains(plain.out, "MAPE"));
  CHECK(std::distance(std::filesystem::directory_iterator(dir.path()),
                      std::filesystem::directory_iterator{}) == listed);
  CHECK_FALSE(std::filesystem::exists(dir / "calibration.png"));
  CHECK_FALSE(std::filesystem::exists(dir / "report.txt"));
  // A collective trace needs GPU servers, which this cluster has not: refused, exit code 2.
  dir.write("all_reduce.txt",
            "# nThread 1 nGpus 1\n#  size count type redop root time algbw busbw #wrong time "
            "algbw busbw #wrong\n 8 2 float sum -1 13.67 0.00 0.00 0 13.03 0.00 0.00 0\n"
            "# Out of bounds values : 0 OK\n");
  const auto coll = test_support::rdmasim({"calibrate", "--cluster", "cluster.json", "--trace",
                                           "all_reduce.txt", "-o", "p.json", "--no-plot"},
                                          dir);
  CHECK(coll.exit_code == 2);
  CHECK(test_support::contains(coll.err, "gpu_servers"));
}

TEST_CASE("calibrate refuses a bad cluster description or host pair with exit code 2",
          "[mechanism][calibrate][cli]") {
  const test_support::TempDir dir("rdmasim_calibrate_bad");
  dir.write("lat.txt",
            "RDMA_Write Latency Test\n #bytes #iterations t_min[usec] t_max[usec] "
            "t_typical[usec]\n 4096 100 2.0 3.0 2.5\n------------------------------\n");
  dir.write("no_topology.json", R"({"name": "x", "nodes": 2, "link_rate": "100Gbps"})");
  const auto a = test_support::rdmasim(
      {"calibrate", "--cluster", "no_topology.json", "--trace", "lat.txt", "-o", "p.json"}, dir);
  CHECK(a.exit_code == 2);
  CHECK(test_support::contains(a.err, "topology"));
  dir.write("fabric.json", R"({"name": "x", "nodes": 2, "link_rate": "100Gbps",
    "fabric": "ethernet", "topology": {}})");
  const auto b = test_support::rdmasim(
      {"calibrate", "--cluster", "fabric.json", "--trace", "lat.txt", "-o", "p.json"}, dir);
  CHECK(b.exit_code == 2);
  CHECK(test_support::contains(b.err, "ethernet"));
  dir.write("ok.json", R"({"name": "x", "nodes": 2, "link_rate": "100Gbps",
    "topology": {"nodes": [{"name": "h0", "kind": "host"}, {"name": "h1", "kind": "host"},
                           {"name": "s", "kind": "switch"}],
                 "links": [{"a": "h0", "b": "s", "rate": "100Gbps", "latency": "1ns"},
                           {"a": "s", "b": "h1", "rate": "100Gbps", "latency": "1ns"}]}})");
  const auto c = test_support::rdmasim(
      {"calibrate", "--cluster", "ok.json", "--trace", "lat.txt@h0,h9", "-o", "p.json"}, dir);
  CHECK(c.exit_code == 2);
  CHECK(test_support::contains(c.err, "h9"));
  // A description whose link rate is not its topology's, or whose node count is not.
  std::string rate = test_support::read_file(dir / "ok.json");
  rate.replace(rate.find("\"100Gbps\""), 9, "\"200Gbps\"");
  dir.write("rate.json", rate);
  const auto e = test_support::rdmasim(
      {"calibrate", "--cluster", "rate.json", "--trace", "lat.txt", "-o", "p.json"}, dir);
  CHECK(e.exit_code == 2);
  CHECK(test_support::contains(e.err, "link_rate"));
  std::string nodes = test_support::read_file(dir / "ok.json");
  nodes.replace(nodes.find("\"nodes\": 2"), 10, "\"nodes\": 3");
  dir.write("nodes.json", nodes);
  const auto f = test_support::rdmasim(
      {"calibrate", "--cluster", "nodes.json", "--trace", "lat.txt", "-o", "p.json"}, dir);
  CHECK(f.exit_code == 2);
  CHECK(test_support::contains(f.err, "nodes x nics_per_node"));
  const auto d = test_support::rdmasim({"calibrate", "--trace", "lat.txt", "-o", "p.json"}, dir);
  CHECK(d.exit_code == 2);
  CHECK(test_support::contains(d.err, "--cluster"));
}
