// Calibration against nccl-tests traces: nccl-tests-format traces that rdmasim simulated with
// known scales of NCCL's launch and step costs and a known NVLink rate are fitted back (within
// 2 %, within 3 % with 1 % noise); the steady-state line that replaces large sizes agrees with a
// direct simulation within 1 %; the real 8 x H100 all-reduce (../shared via RDMASIM_SHARED) parses
// and fits with the ring; calibrate and validate run from the command line on a held-out trace.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "scenarios/loader/input_error.hpp"
#include "scenarios/loader/scenario.hpp"
#include "tests/cli_runner.hpp"
#include "tests/temp_dir.hpp"
#include "tests/test_support.hpp"
#include "tools/calibration/calibration.hpp"
#include "tools/calibration/collective_experiments.hpp"
#include "tools/calibration/small_messages.hpp"

namespace {

// One generic server of 8 GPUs, NVLink 2400 Gb/s each way (the ceiling of the fit), ring.
const char* kClusterJson = R"({
  "name": "one-server", "nodes": 1, "gpus_per_node": 8, "nics_per_node": 2,
  "link_rate": "200Gbps", "fabric": "infiniband",
  "gpu_servers": {"preset": "generic", "nvlink_rate": "2400Gbps"},
  "topology": {"generator": "leaf-spine", "leaves": 1, "spines": 1, "hosts_per_leaf": 2},
  "collective": {"algorithm": "ring", "protocol": "simple"}})";

calib::ClusterSpec one_server() {
  return calib::read_cluster_json(scen::Json::parse(kClusterJson), "one-server.json", ".");
}

// The parameters the generated traces were simulated with.
calib::FabricParams truth_params(const calib::ClusterSpec& c) {
  calib::FabricParams p = calib::prior_params(c);
  p.launch_scale = 1.5;
  p.step_scale = 2.5;
  p.nvlink_rate_gbps = 1600;
  return p;
}

// nccl-tests' all_reduce_perf report of `gpus` ranks on one host with these times (us).
std::string nccl_text(int gpus, const std::vector<int64_t>& sizes, const std::vector<double>& times,
                      int gpus_per_host = 64) {
  std::string t = "# Collective test starting: all_reduce_perf\n";
  t += "# nThread 1 nGpus 1 minBytes 8 maxBytes 4194304 step: 4(factor)\n#\n";
  t += "# Using devices\n";
  char buf[256];
  for (int r = 0; r < gpus; ++r) {
    std::snprintf(buf, sizeof buf,
                  "#  Rank %2d Group  0 Pid %6d on     node-%c device %2d [0000:00:00] GPU\n", r,
                  1000 + r, static_cast<char>('a' + r / gpus_per_host), r % gpus_per_host);
    t += buf;
  }
  t += "#\n#       size         count      type   redop    root     time   algbw   busbw "
       "#wrong     time   algbw   busbw #wrong\n";
  for (size_t i = 0; i < sizes.size(); ++i) {
    const double algbw = static_cast<double>(sizes[i]) / times[i] / 1e3;
    const double busbw = algbw * 2.0 * (gpus - 1) / gpus;
    std::snprintf(buf, sizeof buf,
                  "%12lld %12lld     float     sum      -1 %8.2f %7.2f %7.2f      0 %8.2f %7.2f "
                  "%7.2f      0\n",
                  static_cast<long long>(sizes[i]), static_cast<long long>(sizes[i] / 4), times[i],
                  algbw, busbw, times[i], algbw, busbw);
    t += buf;
  }
  t += "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 1.0\n";
  return t;
}

std::vector<int64_t> sweep(int64_t lo, int64_t hi, int64_t factor) {
  std::vector<int64_t> s;
  for (int64_t b = lo; b <= hi; b *= factor) s.push_back(b);
  return s;
}

// Deterministic noise in [-amplitude, +amplitude] (a linear congruential sequence).
double noise(uint64_t& state, double amplitude) {
  state = state * 6364136223846793005ULL + 1442695040888963407ULL;
  return amplitude * (2.0 * static_cast<double>(state >> 11) / 9007199254740992.0 - 1.0);
}

// A generated trace of `gpus` ranks, simulated at `p`, through the nccl-tests parser.
calib::Experiment generated(const calib::ClusterSpec& c, const calib::FabricParams& p, int gpus,
                            double noise_amplitude, uint64_t& state) {
  const std::vector<int64_t> sizes = sweep(64, 4 << 20, 4);
  const std::string placeholder = nccl_text(gpus, sizes, std::vector<double>(sizes.size(), 1.0));
  calib::Experiment e =
      calib::experiment_from_nccl(traces::parse_nccl_tests(placeholder, "gen.txt"), c, false);
  std::vector<double> times = calib::simulate_collective(c, p, e);
  for (double& t : times) t *= 1 + noise(state, noise_amplitude);
  const std::string file = "all_reduce_" + std::to_string(gpus) + "gpu.txt";
  return calib::experiment_from_nccl(traces::parse_nccl_tests(nccl_text(gpus, sizes, times), file),
                                     c, false);
}

void check_fit_back(double noise_amplitude, double tolerance) {
  const calib::ClusterSpec c = one_server();
  const calib::FabricParams truth = truth_params(c);
  uint64_t state = 7;
  // Two GPU counts: the latency floor scales with the 2(n-1) steps of the ring.
  std::vector<calib::Experiment> ex = {generated(c, truth, 4, noise_amplitude, state),
                                       generated(c, truth, 8, noise_amplitude, state)};
  REQUIRE(ex[1].ranks.size() == 8);
  CHECK(ex[1].ranks[7] == "n0g7");
  const calib::CalibrationResult r = calib::calibrate(c, ex, 0);
  INFO(calib::format_report(r));
  CHECK(r.fitted == std::vector<std::string>{"launch_scale", "step_scale", "nvlink_rate_Gbps"});
  CHECK(r.params.launch_scale == Approx(truth.launch_scale).epsilon(tolerance));
  CHECK(r.params.step_scale == Approx(truth.step_scale).epsilon(tolerance));
  CHECK(r.params.nvlink_rate_gbps == Approx(truth.nvlink_rate_gbps).epsilon(tolerance));
}

// The shipped one-dgx-h100 cluster description, and the real 8 x H100 all_reduce_perf trace
// on it (../shared/traces).
calib::ClusterSpec h100_cluster() {
  return calib::read_cluster_file(RDMASIM_SOURCE_DIR "/scenarios/clusters/dgx-h100-1node.json");
}
calib::Experiment h100_trace(const calib::ClusterSpec& c, const std::string& shared) {
  const traces::Trace t =
      traces::read_trace_file(shared + "/traces/nccl-tests_all_reduce_h100_1node_8gpu.txt");
  return calib::experiment_from_nccl(t.nccl, c, false);
}

}  // namespace

TEST_CASE("nccl-tests traces simulated with known cost scales and NVLink rate are fitted back",
          "[mechanism][calibrate][nccl]") {
  SECTION("exactly: within 2 %") {
    check_fit_back(0.0, 0.02);
  }
  SECTION("with 1 % multiplicative noise: within 3 %") {
    check_fit_back(0.01, 0.03);
  }
}

TEST_CASE("the cost scales, the per-step overhead and the NVLink rate shape the all-reduce",
          "[mechanism][calibrate][nccl]") {
  // Oracle (docs/references.md "Collectives"): ring all-reduce T = launch + 2(n-1)·α +
  // 2(n-1)/n · S/B. One more unit of the launch scale adds NCCL's base latency of the ring's
  // Simple protocol (8.4 us, tuning.cc) to every size; one more of the step scale adds 2(n-1)
  // x the software part of NCCL's NVLink step (3.4 us less the hardware's, the same at every
  // size); an extra overhead adds 2(n-1) x its value; the NVLink rate sets the slope.
  const calib::ClusterSpec c = one_server();
  uint64_t state = 1;
  calib::Experiment e = generated(c, truth_params(c), 8, 0, state);
  calib::FabricParams a = truth_params(c), b = a, d = a, l = a, st = a;
  b.step_overhead_ns += 1000;
  d.nvlink_rate_gbps *= 2;
  l.launch_scale += 1;
  st.step_scale += 1;
  const std::vector<double> ta = calib::simulate_collective(c, a, e);
  const std::vector<double> tb = calib::simulate_collective(c, b, e);
  const std::vector<double> td = calib::simulate_collective(c, d, e);
  const std::vector<double> tl = calib::simulate_collective(c, l, e);
  const std::vector<double> ts = calib::simulate_collective(c, st, e);
  const double per_step = (ts[0] - ta[0]) / (2 * 7);
  CHECK(per_step > 2.0);  // NCCL's 3.4 us less the hardware's few hundred ns
  CHECK(per_step < 3.4);
  for (size_t i = 0; i < e.bytes.size(); ++i) {
    CHECK(tb[i] - ta[i] == Approx(2 * 7 * 1.0).epsilon(0.01));  // us
    CHECK(tl[i] - ta[i] == Approx(8.4).epsilon(0.01));
    CHECK(ts[i] - ta[i] == Approx(2 * 7 * per_step).epsilon(0.01));
  }
  // The largest size: the bandwidth term halves with twice the rate.
  const double s = static_cast<double>(e.bytes.back());
  const double bw_term = 2.0 * 7 / 8 * s * 8 / 1600e9 * 1e6 * (4096 + 26) / 4096.0;  // us
  CHECK(ta.back() - td.back() == Approx(bw_term / 2).epsilon(0.03));
}

TEST_CASE("sizes beyond the simulated bound lie on the steady-state line within 1 %",
          "[mechanism][calibrate][nccl]") {
  const calib::SteadyLine l = calib::steady_line(100, 3, 300, 5);
  CHECK(l.bw == Approx(100.0));
  CHECK(l.a == Approx(2.0));
  CHECK(l.at(1000) == Approx(12.0));
  const calib::ClusterSpec c = one_server();
  uint64_t state = 3;
  calib::Experiment e = generated(c, truth_params(c), 8, 0, state);
  e.bytes.push_back(16 << 20);  // beyond the 4 MiB the test sets as the bound
  e.measured.push_back(1);
  e.iterations.push_back(1);
  e.max_simulated_bytes = 4 << 20;
  const std::vector<double> line = calib::simulate_collective(c, truth_params(c), e);
  e.max_simulated_bytes = 16 << 20;
  const std::vector<double> direct = calib::simulate_collective(c, truth_params(c), e);
  INFO("line " << line.back() << " us, direct " << direct.back() << " us");
  CHECK(std::fabs(line.back() / direct.back() - 1) < 0.01);
  CHECK(line[line.size() - 2] == direct[direct.size() - 2]);  // simulated either way
  // Without the bound's two sizes there is no line: refused.
  e.max_simulated_bytes = 64;
  CHECK_THROWS_AS(calib::simulate_collective(c, truth_params(c), e), scen::InputError);
}

TEST_CASE("the real 8 x H100 all-reduce trace parses and fits with the ring",
          "[mechanism][calibrate][nccl]") {
  RDMASIM_REQUIRE_SHARED(shared);
  const calib::ClusterSpec c = h100_cluster();
  calib::Experiment e = h100_trace(c, shared);
  REQUIRE(e.ranks.size() == 8);
  CHECK(e.servers == 1);
  REQUIRE(e.bytes.size() == 32);
  // Sizes to 16 MiB simulated, the rest on the ring's steady-state line (exact for the ring
  // without chunking: its time is affine in the size). The ring forced, as NCCL_ALGO=Ring.
  e.max_simulated_bytes = 16 << 20;
  e.algorithm = "ring";
  e.protocol = "simple";
  std::vector<calib::Experiment> ex = {e};
  const calib::CalibrationResult r = calib::calibrate(c, ex, 0);
  INFO(calib::format_report(r));
  REQUIRE(r.curves.size() == 1);
  // The ring can reach at most the NVLink rate (busbw ~447 GB/s at 450 GB/s with packet
  // headers); the trace's NVLS plateau is 480. Sizes up to 1 MiB are the latency floor NCCL's
  // scaled costs describe.
  double mape_floor = 0;
  int n = 0;
  for (const calib::PointReport& p : r.points) {
    if (p.bytes <= (1 << 20) && p.bytes != 32) {
      mape_floor += std::fabs(p.error_pct);
      ++n;
    }
  }
  mape_floor /= n;
  CHECK(mape_floor < 12.0);
  // From 128 MiB up the ring at the NVLink line rate is within 8 % on average (measured 5.9 %),
  // and below the NVLS plateau at the largest sizes: the ring's ceiling.
  CHECK(r.params.nvlink_rate_gbps <= 3600.0);
  double mape_large = 0;
  int large = 0;
  for (const calib::PointReport& p : r.points) {
    if (p.bytes >= (int64_t{128} << 20)) {
      mape_large += std::fabs(p.error_pct);
      ++large;
    }
  }
  REQUIRE(large == 8);
  CHECK(mape_large / large < 8.0);
  CHECK(r.points.back().simulated > r.points.back().measured);
  // The 32 B out-of-place time (68 us among 13-15 us) is an outlier of the source: Huber's
  // loss weighs it a tiny fraction of a well-described point.
  for (const calib::PointReport& p : r.points) {
    if (p.bytes == 32) {
      CHECK(p.error_pct < -70);
      CHECK(p.weight < 0.05);
    }
  }
  // Inline sends and the message-rate cap are perftest's small sizes: below calibrate's default
  // --min-size a collective's small sizes are NCCL's costs', and fit neither.
  calib::FabricParams held = r.params;
  std::vector<std::string> fitted, notes;
  int sims = 0;
  calib::fit_small_messages(c, ex, 4096, held, fitted, notes, sims);
  CHECK(sims == 0);
  CHECK(fitted.empty());
  CHECK(held.small.inline_threshold_bytes == 0);
  CHECK(held.small.inline_saving_ns == 0);
}

TEST_CASE("the real 8 x H100 trace fits with NCCL's choice, costs and the NVLS rate",
          "[mechanism][calibrate][nccl][slow]") {
  // As NCCL ran it: auto picks ring LL to 1 MiB and NVLS above (NCCL's tuning model), NCCL's
  // costs are scaled, the NVSwitch's reduction rate fitted on the NVLS sizes; the NVLink rate
  // stays at the preset (NVLS bounds the large sizes, not the links).
  RDMASIM_REQUIRE_SHARED(shared);
  const calib::ClusterSpec c = h100_cluster();
  calib::Experiment e = h100_trace(c, shared);
  e.max_simulated_bytes = 64 << 20;  // the cluster's collective: auto/auto, as NCCL ran
  std::vector<calib::Experiment> ex = {e};
  const calib::CalibrationResult r = calib::calibrate(c, ex, 0);
  INFO(calib::format_report(r));
  CHECK(r.fitted == std::vector<std::string>{"launch_scale", "step_scale", "nvls_rate_Gbps",
                                             "nvls_chunk_cost_ns"});
  CHECK(r.params.nccl_costs);
  CHECK(r.params.nvlink_rate_gbps == 3600.0);
  REQUIRE(r.points.size() == 32);
  CHECK(r.points.front().ran == "ring/ll");
  CHECK(r.points.back().ran == "nvls/simple");
  // The plateau (sizes >= 1 GiB, algbw ~274 GB/s) within 4 %, all sizes within 13 % MAPE
  // (11.0 % measured with the default bound; the ring's fit without NCCL's costs: 15.3 %).
  REQUIRE(r.curves.size() == 1);
  CHECK(r.curves[0].mape_all < 13.0);
  for (const calib::PointReport& p : r.points) {
    if (p.bytes >= (int64_t{1} << 30)) CHECK(std::fabs(p.error_pct) < 4.0);
  }
  // The overlay carries NCCL's costs, scaled, and the NVLS rate.
  const scen::Json o = calib::params_overlay(c, r.params);
  CHECK(o["workload"]["collective"]["costs"] == "nccl");
  CHECK(o["topology"]["nodes"].contains("nvls_reduction_rate"));
}

TEST_CASE("across two servers: a trace simulated with known cost scales is fitted back",
          "[mechanism][calibrate][nccl][slow]") {
  // Two dgx-h100 on 8 rails, as NCCL runs by default: the tree (LL, LL128) for small sizes,
  // NVLS-tree from 2 MiB (NCCL's tuning model). Its calls differ in step counts and network
  // steps, so the launch and step scales separate on one trace.
  const calib::ClusterSpec c =
      calib::read_cluster_file(RDMASIM_SOURCE_DIR "/scenarios/clusters/dgx-h100-2node.json");
  calib::FabricParams truth = calib::prior_params(c);
  truth.launch_scale = 1.3;
  truth.step_scale = 0.8;
  const std::vector<int64_t> sizes = sweep(8, 64 << 20, 8);
  const std::string placeholder =
      nccl_text(16, sizes, std::vector<double>(sizes.size(), 1.0), /*gpus_per_host=*/8);
  calib::Experiment e =
      calib::experiment_from_nccl(traces::parse_nccl_tests(placeholder, "gen.txt"), c, false);
  REQUIRE(e.servers == 2);
  const std::vector<double> times = calib::simulate_collective(c, truth, e);
  std::vector<calib::Experiment> ex = {calib::experiment_from_nccl(
      traces::parse_nccl_tests(nccl_text(16, sizes, times, 8), "two.txt"), c, false)};
  const calib::CalibrationResult r = calib::calibrate(c, ex, 0);
  INFO(calib::format_report(r));
  CHECK(r.params.launch_scale == Approx(1.3).epsilon(0.05));
  CHECK(r.params.step_scale == Approx(0.8).epsilon(0.05));
  REQUIRE(r.curves.size() == 1);
  CHECK(r.curves[0].mape_all < 1.0);
  CHECK(r.points.front().ran == "double_binary_tree/ll");
  CHECK(r.points.back().ran == "nvls_tree/simple");
}

TEST_CASE("an overlay written before the cost scales still validates: one overhead, no costs",
          "[unit][calibrate][nccl]") {
  const test_support::TempDir dir("rdmasim_calibrate_old_overlay");
  dir.write("old.json", R"({"fabric": {"nic": {"tx_latency": "0ps", "rx_latency": "0ps",
      "send_efficiency": 1.0, "message_overhead": "50000ps"}, "switch": {"latency": "130000ps"}},
    "topology": {"nodes": {"nvlink_rate": "1600000Mbps", "nvlink_latency": "100000ps"}},
    "workload": {"collective": {"costs": "none", "step_latency_simple": "4000000ps",
      "step_latency_ll128": "4000000ps", "step_latency_ll": "4000000ps"}}})");
  const calib::ClusterSpec c = one_server();
  const calib::FabricParams p = calib::read_params_overlay((dir / "old.json").string(), c);
  CHECK_FALSE(p.nccl_costs);
  CHECK(p.step_overhead_ns == Approx(4000));
  const scen::Json back = calib::params_overlay(c, p);
  CHECK(back["workload"]["collective"]["costs"] == "none");
  CHECK(back["workload"]["collective"]["step_latency_ll"] == "4000000ps");
  CHECK_FALSE(back["workload"]["collective"].contains("launch_scale"));
}

TEST_CASE("calibrate on nccl-tests traces, validate on a held-out one, from the command line",
          "[mechanism][calibrate][nccl][cli]") {
  // Two rank counts separate NCCL's launch cost from its step costs (a ring of n ranks has
  // 2(n-1) steps a call); the third count is predicted.
  const test_support::TempDir dir("rdmasim_calibrate_nccl");
  dir.write("cluster.json", kClusterJson);
  const calib::ClusterSpec c = one_server();
  const calib::FabricParams truth = truth_params(c);
  uint64_t state = 11;
  for (const int gpus : {8, 4, 6}) {
    const calib::Experiment e = generated(c, truth, gpus, 0, state);
    dir.write("ar" + std::to_string(gpus) + ".txt", nccl_text(gpus, e.bytes, e.measured));
  }
  const auto cal =
      test_support::rdmasim({"calibrate", "--cluster", "cluster.json", "--trace", "ar8.txt",
                             "--trace", "ar4.txt", "-o", "fit/params.json", "--no-plot"},
                            dir);
  INFO(cal.out << cal.err);
  REQUIRE(cal.exit_code == 0);
  CHECK(test_support::contains(cal.out, "NCCL's costs x"));
  CHECK(test_support::contains(cal.out, "ring/simple, out-of-place time"));
  // The held-out 6-GPU trace is predicted without fitting.
  const auto val =
      test_support::rdmasim({"validate", "--cluster", "cluster.json", "--params", "fit/params.json",
                             "--trace", "ar6.txt", "--report", "val", "--no-plot"},
                            dir);
  INFO(val.out << val.err);
  REQUIRE(val.exit_code == 0);
  const std::string csv = test_support::read_file(dir / "val/report.csv");
  double mape = 0;
  int rows = 0;
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    // file,kind,switches,bytes,measured,simulated,error_pct,...
    std::vector<std::string> f;
    std::stringstream ls(line);
    for (std::string x; std::getline(ls, x, ',');) f.push_back(x);
    REQUIRE(f.size() >= 7);
    CHECK(f[1] == "collective_us");
    mape += std::fabs(std::stod(f[6]));
    ++rows;
  }
  REQUIRE(rows == 9);
  CHECK(mape / rows < 2.0);
  // params.json is an overlay for scenarios of GPU servers with one collective object.
  dir.write("s.json", R"({"include": ["fit/params.json"],
    "topology": {"generator": "leaf-spine", "leaves": 1, "spines": 1, "hosts_per_leaf": 2,
                 "nodes": {"count": 1, "preset": "generic", "gpus": 8, "nics": 2,
                           "nic_rate": "200Gbps"}},
    "workload": {"collective": {"op": "all_reduce", "size": "1MiB"}}})");
  const scen::Scenario s = scen::load_scenario_file((dir / "s.json").string());
  CHECK(static_cast<double>(s.fabric.topo.gpus.params.nvlink_rate_bps) ==
        Approx(1600e9).epsilon(0.02));
  REQUIRE(s.collectives.size() == 1);
  CHECK(s.collectives[0].nccl_costs);
  CHECK(s.collectives[0].launch_scale == Approx(1.5).epsilon(0.02));
  CHECK(s.collectives[0].step_scale == Approx(2.5).epsilon(0.02));
}

TEST_CASE("nccl-tests traces need GPU servers that hold their ranks",
          "[mechanism][calibrate][nccl][cli]") {
  const test_support::TempDir dir("rdmasim_calibrate_nccl_bad");
  dir.write("plain.json", R"({"name": "x", "nodes": 2, "link_rate": "100Gbps",
    "topology": {"nodes": [{"name": "h0", "kind": "host"}, {"name": "h1", "kind": "host"},
                           {"name": "s", "kind": "switch"}],
                 "links": [{"a": "h0", "b": "s", "rate": "100Gbps", "latency": "1ns"},
                           {"a": "s", "b": "h1", "rate": "100Gbps", "latency": "1ns"}]}})");
  dir.write("ar16.txt", nccl_text(16, {1024, 4096}, {20, 21}));
  const auto a = test_support::rdmasim(
      {"calibrate", "--cluster", "plain.json", "--trace", "ar16.txt", "-o", "p.json"}, dir);
  CHECK(a.exit_code == 2);
  CHECK(test_support::contains(a.err, "gpu_servers"));
  // 16 devices on one host; the server has 8 GPUs.
  dir.write("cluster.json", kClusterJson);
  const auto b = test_support::rdmasim(
      {"calibrate", "--cluster", "cluster.json", "--trace", "ar16.txt", "-o", "p.json"}, dir);
  CHECK(b.exit_code == 2);
  CHECK(test_support::contains(b.err, "rank 8"));
  CHECK(test_support::contains(b.err, "gpus_per_node = 8"));
  // gpu_servers keys that the cluster's own keys set are refused with their path.
  std::string bad = kClusterJson;
  bad.replace(bad.find("\"preset\""), 8, "\"count\": 2, \"preset\"");
  dir.write("bad.json", bad);
  const auto d = test_support::rdmasim(
      {"calibrate", "--cluster", "bad.json", "--trace", "ar16.txt", "-o", "p.json"}, dir);
  CHECK(d.exit_code == 2);
  CHECK(test_support::contains(d.err, "gpu_servers.count"));
  const auto e = test_support::rdmasim({"calibrate", "--cluster", "cluster.json", "--trace",
                                        "ar16.txt", "--nccl-column", "both", "-o", "p.json"},
                                       dir);
  CHECK(e.exit_code == 2);
  CHECK(test_support::contains(e.err, "--nccl-column"));
}
