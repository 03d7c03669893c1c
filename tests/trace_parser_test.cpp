// Trace parsers: every real trace in ../shared/traces (via RDMASIM_SHARED) parses, with values
// spot-checked against the files; version variants parse; truncated and garbled copies are
// refused with "file:line"; the perftest writer's output parses back to the same values.
#include <catch2/catch.hpp>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "scenarios/loader/input_error.hpp"
#include "scenarios/traces/trace.hpp"
#include "tests/temp_dir.hpp"
#include "tests/test_support.hpp"

namespace {

std::optional<scen::InputError> error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const scen::InputError& e) {
    return e;
  }
  return std::nullopt;
}

// The first `n` lines of `text`.
std::string head(const std::string& text, int n) {
  size_t pos = 0;
  for (int i = 0; i < n && pos != std::string::npos; ++i) {
    pos = text.find('\n', pos);
    if (pos != std::string::npos) ++pos;
  }
  return pos == std::string::npos ? text : text.substr(0, pos);
}

std::string replace_line(const std::string& text, int line, const std::string& with) {
  const std::string before = head(text, line - 1);
  const std::string upto = head(text, line);
  return before + with + "\n" + text.substr(upto.size());
}

constexpr double kMiB = 1048576.0;

}  // namespace

TEST_CASE("every shared trace parses with the values the files hold", "[unit][traces]") {
  RDMASIM_REQUIRE_SHARED(shared);
  const std::string dir = shared + "/traces";
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".txt") continue;
    ++files;
    INFO(e.path().string());
    const traces::Trace t = traces::read_trace_file(e.path().string());
    if (t.kind == traces::TraceKind::Perftest) {
      CHECK((t.perftest.bw.size() + t.perftest.lat.size()) > 0);
    } else {
      CHECK(!t.nccl.rows.empty());
    }
  }
  CHECK(files >= 3);

  const auto bw = traces::read_trace_file(dir + "/perftest_ib_write_bw_cx6_2node.txt").perftest;
  CHECK(bw.info.verb == "write");
  CHECK_FALSE(bw.info.latency);
  CHECK(bw.info.link_type == "IB");
  CHECK(bw.info.mtu == 4096);
  CHECK(bw.info.qps == 1);
  CHECK(bw.info.device == "mlx5_0");
  REQUIRE(bw.bw.size() == 23);  // 2 B .. 8 MiB
  CHECK(bw.bw.front().bytes == 2);
  CHECK(bw.bw.back().bytes == 8388608);
  CHECK(bw.bw.back().iterations == 5000);
  // "8388608 5000 23326.82 23317.65 0.002915": MB/sec is 2^20 bytes per second.
  CHECK(bw.bw.back().peak_bytes_per_s == Approx(23326.82 * kMiB));
  CHECK(bw.bw.back().average_bytes_per_s == Approx(23317.65 * kMiB));
  CHECK(bw.bw.back().msg_rate_mpps == Approx(0.002915));
  // The message rate is the average bandwidth over the size (perftest's own relation).
  CHECK(bw.bw.back().average_bytes_per_s / 8388608 / 1e6 ==
        Approx(bw.bw.back().msg_rate_mpps).epsilon(1e-3));

  const auto lat = traces::read_trace_file(dir + "/perftest_ib_write_lat_cx6_2node.txt").perftest;
  CHECK(lat.info.latency);
  CHECK(lat.info.verb == "write");
  REQUIRE(lat.lat.size() == 23);
  CHECK(lat.lat[0].bytes == 2);
  CHECK(lat.lat[0].t_typical_us == Approx(1.87));
  CHECK(lat.lat[0].t_min_us == Approx(1.79));
  CHECK(lat.lat[0].p999_us == Approx(5.41));
  CHECK(lat.lat[7].bytes == 256);  // the step past the inline limit
  CHECK(lat.lat[7].t_typical_us == Approx(2.87));
  CHECK(lat.lat.back().t_typical_us == Approx(345.55));
  CHECK(lat.lat.back().p99_us == Approx(441.71));

  const auto nccl = traces::read_trace_file(dir + "/nccl-tests_all_reduce_h100_1node_8gpu.txt");
  REQUIRE(nccl.kind == traces::TraceKind::NcclTests);
  CHECK(nccl.nccl.collective == "all_reduce");
  REQUIRE(nccl.nccl.ranks.size() == 8);
  CHECK(nccl.nccl.ranks[7].rank == 7);
  CHECK(nccl.nccl.ranks[7].device == 7);
  CHECK(nccl.nccl.ranks[7].gpu == "NVIDIA H100 80GB HBM3");
  REQUIRE(nccl.nccl.rows.size() == 32);  // 8 B .. 16 GiB
  CHECK(nccl.nccl.rows[2].bytes == 32);
  CHECK(nccl.nccl.rows[2].out_of_place.time_us == Approx(68.14));  // the source's outlier
  CHECK(nccl.nccl.rows[2].in_place.time_us == Approx(13.52));
  CHECK(nccl.nccl.rows.back().bytes == 17179869184);
  CHECK(nccl.nccl.rows.back().out_of_place.busbw_gb_s == Approx(479.90));
  CHECK(nccl.nccl.rows.back().in_place.busbw_gb_s == Approx(479.99));
  CHECK(nccl.nccl.rows.back().redop == "sum");
  CHECK(nccl.nccl.rows.back().root == -1);
  // busbw = algbw x 2(n-1)/n for all-reduce (nccl-tests PERFORMANCE.md), n = 8.
  for (const auto& r : nccl.nccl.rows) {
    if (r.bytes < 1 << 20) continue;
    CHECK(r.out_of_place.busbw_gb_s == Approx(r.out_of_place.algbw_gb_s * 14 / 8).epsilon(0.002));
  }
}

TEST_CASE("truncated and garbled copies of the shared traces are refused with the line",
          "[unit][traces]") {
  RDMASIM_REQUIRE_SHARED(shared);
  const test_support::TempDir tmp("rdmasim_traces");
  const std::string dir = shared + "/traces";
  const std::string bw = test_support::read_file(dir + "/perftest_ib_write_bw_cx6_2node.txt");
  const std::string lat = test_support::read_file(dir + "/perftest_ib_write_lat_cx6_2node.txt");
  const std::string nccl =
      test_support::read_file(dir + "/nccl-tests_all_reduce_h100_1node_8gpu.txt");
  REQUIRE(!bw.empty());
  auto refused = [&](const std::string& name, const std::string& text) {
    const std::string path = tmp.write(name, text).string();
    const auto e = error_of([&] { traces::read_trace_file(path); });
    REQUIRE(e.has_value());
    return *e;
  };
  // Cut in the middle of the 2 MiB row (line 30 of the file).
  {
    const std::string cut = head(bw, 29) + " 2097152    5000    23328";
    const auto e = refused("bw_cut_row.txt", cut);
    CHECK(e.path == tmp.path().string() + "/bw_cut_row.txt:30");
  }
  // Cut after a whole row: no closing dashes.
  {
    const auto e = refused("bw_cut.txt", head(bw, 25));
    CHECK(e.path == tmp.path().string() + "/bw_cut.txt:25");
    CHECK(e.expected.find("truncated") != std::string::npos);
  }
  // A garbled number in the latency table (line 12: the 8-byte row).
  {
    const std::string garbled =
        replace_line(lat, 12,
                     " 8       1000           1.77           4.7x2        1.88               1.88  "
                     "          0.13            2.01                   4.72");
    const auto e = refused("lat_garbled.txt", garbled);
    CHECK(e.path == tmp.path().string() + "/lat_garbled.txt:12");
    CHECK(e.value == "4.7x2");
  }
  // Rows out of order.
  {
    const std::string swapped =
        replace_line(lat, 12,
                     " 2       1000           1.79           5.41         1.87               1.88  "
                     "          0.18            2.03                   5.41");
    CHECK(refused("lat_order.txt", swapped).path == tmp.path().string() + "/lat_order.txt:12");
  }
  // nccl-tests cut before the closing line, and a row missing a field (line 19: 64 B).
  {
    const auto e = refused("all_reduce_cut.txt", head(nccl, 30));
    CHECK(e.path == tmp.path().string() + "/all_reduce_cut.txt:30");
    const std::string short_row = replace_line(
        nccl, 19,
        "          64            16     float     sum      -1    14.92    0.00    0.01 "
        "      0    14.72    0.00    0.01");
    CHECK(refused("all_reduce_short.txt", short_row).path ==
          tmp.path().string() + "/all_reduce_short.txt:19");
  }
  // Neither tool's output.
  CHECK(refused("notes.txt", "hello\n").path == tmp.path().string() + "/notes.txt:1");
  // inf, nan and 0 are no measurements (the relative errors would be infinite or nan).
  {
    const std::string inf_lat =
        replace_line(lat, 12,
                     " 8       1000           1.77           inf          1.88               1.88  "
                     "          0.13            2.01                   4.72");
    const auto e = refused("lat_inf.txt", inf_lat);
    CHECK(e.path == tmp.path().string() + "/lat_inf.txt:12");
    CHECK(e.value == "inf");
    const std::string zero_lat =
        replace_line(lat, 12,
                     " 8       1000           0.00           4.72         0.00               0.00  "
                     "          0.13            2.01                   4.72");
    CHECK(refused("lat_zero.txt", zero_lat).expected.find("positive") != std::string::npos);
    const std::string nan_time = replace_line(
        nccl, 19,
        "          64            16     float     sum      -1      nan    0.00    0.01 "
        "      0    14.72    0.00    0.01      0");
    CHECK(refused("all_reduce_nan.txt", nan_time).value == "nan");
    const std::string zero_time = replace_line(
        nccl, 19,
        "          64            16     float     sum      -1     0.00    0.00    0.01 "
        "      0    14.72    0.00    0.01      0");
    const auto z = refused("all_reduce_zero.txt", zero_time);
    CHECK(z.path == tmp.path().string() + "/all_reduce_zero.txt:19");
    CHECK(z.expected.find("positive time") != std::string::npos);
  }
}

TEST_CASE("perftest and nccl-tests version variants parse", "[unit][traces]") {
  // Older ib_send_lat: no t_avg/t_stdev/percentiles; RoCE link type; a warning in the table.
  const std::string old_lat =
      "---------------------------------------------------------------------------------------\n"
      "                    Send Latency Test\n"
      " Dual-port       : OFF\t\tDevice         : mlx5_1\n"
      " Number of qps   : 1\t\tTransport type : IB\n"
      " Connection type : RC\t\tUsing SRQ      : OFF\n"
      " Mtu             : 1024[B]\n"
      " Link type       : Ethernet\n"
      " GID index       : 3\n"
      "---------------------------------------------------------------------------------------\r\n"
      " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]\r\n"
      " 2       1000          1.21           4.32         1.27\r\n"
      "Conflicting CPU frequency values detected: 2000.000000 != 3000.000000\n"
      " 4       1000          1.20           3.01         1.28\n"
      "---------------------------------------------------------------------------------------\n";
  const auto t = traces::parse_perftest(old_lat, "old.txt");
  CHECK(t.info.verb == "send");
  CHECK(t.info.link_type == "Ethernet");
  CHECK(t.info.mtu == 1024);
  REQUIRE(t.lat.size() == 2);
  CHECK(t.lat[1].t_typical_us == Approx(1.28));
  CHECK(t.lat[1].t_avg_us == 0);
  // ib_read_bw with --report_gbits.
  const std::string gbits =
      "                    RDMA_Read BW Test\n"
      " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n"
      " 65536      1000           98.10              97.80                0.186523\n"
      "---------------------------------------------------------------------------------------\n";
  const auto g = traces::parse_perftest(gbits, "gbits.txt");
  CHECK(g.info.verb == "read");
  REQUIRE(g.bw.size() == 1);
  CHECK(g.bw[0].average_bytes_per_s == Approx(97.80e9 / 8));
  // Columns separated by single spaces.
  const std::string tight =
      "RDMA_Write Latency Test\n #bytes #iterations t_min[usec] t_max[usec] t_typical[usec] "
      "99% percentile[usec]\n 4096 100 2.0 3.0 2.5 2.9\n------------------------------\n";
  const auto ti = traces::parse_perftest(tight, "tight.txt");
  REQUIRE(ti.lat.size() == 1);
  CHECK(ti.lat[0].t_typical_us == Approx(2.5));
  CHECK(ti.lat[0].p99_us == Approx(2.9));
  // An unknown unit is refused with its line.
  const std::string kb =
      "RDMA_Read BW Test\n #bytes #iterations BW peak[KB/sec] "
      "BW average[KB/sec] MsgRate[Mpps]\n";
  CHECK(error_of([&] { traces::parse_perftest(kb, "kb.txt"); })->path == "kb.txt:2");

  // Older nccl-tests all_gather: no redop/root columns, "error" column; NCCL INFO lines.
  const std::string old_ag =
      "# nThread 1 nGpus 4 minBytes 1024 maxBytes 4096 step: 2(factor) warmup iters: 5 iters: 20\n"
      "#\n"
      "# Using devices\n"
      "#   Rank  0 Pid  12 on    gpu01 device  0 [0x1a] Tesla V100-SXM2-32GB\n"
      "node:12:12 [0] NCCL INFO Launch mode Parallel\n"
      "#\n"
      "#                                         out-of-place                       in-place\n"
      "#       size         count    type     time   algbw   busbw  error     time   algbw   "
      "busbw  error\n"
      "#        (B)    (elements)             (us)  (GB/s)  (GB/s)            (us)  (GB/s)  "
      "(GB/s)\n"
      "        1024            64   float    20.11    0.05    0.04  0e+00    19.80    0.05    "
      "0.04  0e+00\n"
      "        4096           256   float    21.00    0.20    0.15  0e+00    20.90    0.20    "
      "0.15    N/A\n"
      "# Out of bounds values : 0 OK\n"
      "# Avg bus bandwidth    : 0.095\n";
  const auto ag = traces::parse_nccl_tests(old_ag, "runs/all_gather_perf_4gpu.log");
  CHECK(ag.collective == "all_gather");
  REQUIRE(ag.rows.size() == 2);
  CHECK(ag.rows[1].in_place.wrong == -1);
  CHECK(ag.rows[1].out_of_place.time_us == Approx(21.00));
  CHECK(ag.avg_busbw_gb_s == Approx(0.095));
  // The collective from the file's own line beats the name; sendrecv and alltoall are known.
  for (const std::string c : {"sendrecv", "alltoall", "reduce_scatter", "broadcast"}) {
    const std::string named = "# Collective test starting: " + c + "_perf\n" + old_ag;
    CHECK(traces::parse_nccl_tests(named, "x.log").collective == c);
  }
  CHECK(error_of([&] { traces::parse_nccl_tests(old_ag, "x.log"); }).has_value());
}

TEST_CASE("the perftest writer's tables parse back to the same values", "[unit][traces]") {
  traces::PerftestTrace t;
  t.info.title = "RDMA_Write BW Test";
  t.info.link_type = "TCP";
  t.info.mtu = 4096;
  t.bw.push_back({4096, 100, 1000.5 * kMiB, 900.25 * kMiB, 0.230451, 0});
  t.bw.push_back({65536, 100, 2000 * kMiB, 1999.99 * kMiB, 0.031999, 0});
  const auto back = traces::parse_perftest(traces::format_perftest(t), "w.txt");
  CHECK(back.info.verb == "write");
  CHECK(back.info.link_type == "TCP");
  REQUIRE(back.bw.size() == 2);
  CHECK(back.bw[0].average_bytes_per_s == Approx(900.25 * kMiB));
  CHECK(back.bw[1].msg_rate_mpps == Approx(0.031999));
  t.info.latency = true;
  t.info.title = "Send Latency Test";
  t.lat.push_back({2, 1000, 10.5, 30.25, 11.0, 11.5, 0.5, 20.0, 30.0, 0});
  const auto lat = traces::parse_perftest(traces::format_perftest(t), "l.txt");
  REQUIRE(lat.lat.size() == 1);
  CHECK(lat.info.verb == "send");
  CHECK(lat.lat[0].t_typical_us == Approx(11.0));
  CHECK(lat.lat[0].p999_us == Approx(30.0));
}

TEST_CASE("nccl-tests rank lines with numbers beyond an int are refused with their line",
          "[unit][traces]") {
  // Found by tests/fuzz/fuzz_nccl_tests: std::stoi threw std::out_of_range on such a line.
  auto report = [](const std::string& rank, const std::string& device) {
    return "# nThread 1 nGpus 1 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20\n"
           "#\n"
           "# Using devices\n"
           "#  Rank " +
           rank + " Group  0 Pid   1000 on  node-00 device  " + device +
           " [0000:00:00] NVIDIA H100 80GB HBM3\n"
           "#\n"
           "#       size         count      type   redop    root     time   algbw   busbw #wrong"
           "     time   algbw   busbw #wrong\n"
           "           8             2     float     sum      -1    13.67    0.00    0.00       0"
           "    13.03    0.00    0.00       0\n"
           "# Out of bounds values : 0 OK\n";
  };
  for (const auto& [rank, device] : {std::pair<std::string, std::string>{"99999999999", "0"},
                                     {"0", "2147483648"},
                                     {"0", "99999999999999999999999"}}) {
    INFO(rank << " " << device);
    const std::string text = report(rank, device);
    const auto e = error_of([&] { traces::parse_nccl_tests(text, "all_reduce.txt"); });
    REQUIRE(e);
    CHECK(e->path == "all_reduce.txt:4");
  }
  // The largest numbers an int holds are read.
  const auto t = traces::parse_nccl_tests(report("2147483647", "2147483647"), "all_reduce.txt");
  REQUIRE(t.ranks.size() == 1);
  CHECK(t.ranks[0].rank == 2147483647);
  CHECK(t.ranks[0].device == 2147483647);
}
