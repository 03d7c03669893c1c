// rdmasim-probe: the tcp transport's ping-pong and bandwidth sweeps over loopback produce
// traces the perftest parser reads; the server refuses peers of another protocol version or
// too large a size; the verbs transport without a device says so (exit 2); a 4-rank scenario
// replay under mpirun writes flows.csv exactly as rdmasim run does, and compare reads both.
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>

#include "scenarios/traces/trace.hpp"
#include "tests/cli_runner.hpp"
#include "tests/temp_dir.hpp"

namespace {

#ifdef RDMASIM_HAVE_PROBE
#define RDMASIM_REQUIRE_PROBE()
#else
#define RDMASIM_REQUIRE_PROBE()                                                             \
  std::printf("SKIPPED: rdmasim-probe was not built (Open MPI missing: libopenmpi-dev)\n"); \
  return
#endif

using test_support::shell;

// The probe, with MPI's and libibverbs' lifetime allocations kept out of LeakSanitizer's
// report in the sanitizer run (harmless otherwise).
const std::string kProbe = "LSAN_OPTIONS=suppressions=" RDMASIM_SOURCE_DIR
                           "/tests/lsan.supp " RDMASIM_BIN_DIR "/rdmasim-probe";

// A port unlikely to be taken, different per test process.
int test_port(int k) {
  return 20000 + static_cast<int>(getpid() % 20000) + k;
}

}  // namespace

TEST_CASE("probe tcp ping-pong and bandwidth sweeps over loopback give perftest traces",
          "[cli][probe]") {
  RDMASIM_REQUIRE_PROBE();
  const test_support::TempDir dir("rdmasim_probe");
  const auto lat = shell(kProbe + " lat --sizes 2:64KiB --iters 50 -o lat.txt", dir);
  INFO(lat.out << lat.err);
  REQUIRE(lat.exit_code == 0);
  CHECK(test_support::contains(lat.out, "t_typical[usec]"));
  const traces::Trace t = traces::read_trace_file((dir / "lat.txt").string());
  REQUIRE(t.kind == traces::TraceKind::Perftest);
  CHECK(t.perftest.info.latency);
  CHECK(t.perftest.info.link_type == "TCP");
  REQUIRE(t.perftest.lat.size() == 16);  // 2 B .. 64 KiB
  for (const auto& r : t.perftest.lat) {
    CHECK(r.iterations == 50);
    CHECK(r.t_min_us > 0);
    CHECK(r.t_min_us <= r.t_typical_us);
    CHECK(r.t_typical_us <= r.t_max_us);
    CHECK(r.p99_us <= r.t_max_us);
  }
  const auto bw = shell(kProbe + " bw --sizes 4KiB:1MiB --iters 64 -o bw.txt", dir);
  INFO(bw.out << bw.err);
  REQUIRE(bw.exit_code == 0);
  const traces::Trace b = traces::read_trace_file((dir / "bw.txt").string());
  CHECK_FALSE(b.perftest.info.latency);
  REQUIRE(b.perftest.bw.size() == 9);  // 4 KiB .. 1 MiB
  for (const auto& r : b.perftest.bw) {
    CHECK(r.iterations == 64);
    CHECK(r.average_bytes_per_s > 0);
    CHECK(r.peak_bytes_per_s >= r.average_bytes_per_s * 0.999);
    // perftest's relation: message rate = average bandwidth / size.
    CHECK(r.msg_rate_mpps == Approx(r.average_bytes_per_s / r.bytes / 1e6).epsilon(0.01));
  }
}

TEST_CASE("probe server and client in two processes with the server checking versions and sizes",
          "[cli][probe]") {
  RDMASIM_REQUIRE_PROBE();
  const test_support::TempDir dir("rdmasim_probe2");
  const std::string port = std::to_string(test_port(1));
  const auto two = shell(kProbe + " lat --server --port " + port + " --sizes 2:4KiB & " + kProbe +
                             " lat --connect 127.0.0.1 --port " + port +
                             " --sizes 2:4KiB --iters 20 -o t.txt; wait $!",
                         dir);
  INFO(two.out << two.err);
  REQUIRE(two.exit_code == 0);
  CHECK(traces::read_trace_file((dir / "t.txt").string()).perftest.lat.size() == 12);
  // A peer speaking protocol version 2: refused, exit 2, both versions named.
  const std::string p2 = std::to_string(test_port(2));
  const auto v2 = shell(kProbe + " lat --server --port " + p2 +
                            " & sleep 0.5; bash -c \"printf '\\x52\\x53\\x4d\\x50\\x00\\x00\\x00"
                            "\\x02\\x00\\x00\\x00\\x01\\x00\\x00\\x00\\x01\\x00\\x00\\x00\\x00\\x00"
                            "\\x00\\x10\\x00' > /dev/tcp/127.0.0.1/" +
                            p2 + "\"; wait $!",
                        dir);
  CHECK(v2.exit_code == 2);
  CHECK(test_support::contains(v2.err, "protocol version 2"));
  // A client asking for larger messages than the server's buffers: refused, exit 2.
  const std::string p3 = std::to_string(test_port(3));
  const auto big = shell(kProbe + " lat --server --port " + p3 + " --sizes 2:4KiB & " + kProbe +
                             " lat --connect 127.0.0.1 --port " + p3 +
                             " --sizes 2:64KiB --iters 2; c=$?; wait $!; s=$?; echo \"$c $s\"",
                         dir);
  CHECK(test_support::contains(big.err, "bytes, more than the 4096 agreed"));
}

TEST_CASE("probe server gives up on a client that connects and sends nothing",
          "[cli][slow][probe]") {
  RDMASIM_REQUIRE_PROBE();
  const test_support::TempDir dir("rdmasim_probe_idle");
  const std::string port = std::to_string(test_port(4));
  // The client holds the connection open, silent, for 4 s; the server waits 1 s for it.
  const auto r = shell("timeout 30 env " + kProbe + " lat --server --port " + port +
                           " --idle-timeout 1 & srv=$!; sleep 0.5; python3 -c \"import socket, "
                           "time; s = socket.create_connection(('127.0.0.1', " +
                           port +
                           ")); time.sleep(4)\" & s=$(date +%s); wait $srv; e=$?; "
                           "echo \"$e $(( $(date +%s) - s ))\"; wait",
                       dir);
  INFO(r.out << r.err);
  CHECK(test_support::contains(r.err, "sent nothing for 1 s"));
  // Exited with an error (not killed by `timeout`: 124) within a few seconds.
  CHECK(r.out.rfind("1 ", 0) == 0);
  const int waited = std::stoi(r.out.substr(r.out.find(' ') + 1));
  CHECK(waited <= 5);
  CHECK(shell(kProbe + " lat --server --idle-timeout -1", dir).exit_code == 2);
}

TEST_CASE("probe verbs transport without an RDMA device exits 2 with a clear message",
          "[cli][probe]") {
  RDMASIM_REQUIRE_PROBE();
  if (std::system("ls /sys/class/infiniband/* >/dev/null 2>&1") == 0) {
    std::printf("SKIPPED: this machine has an RDMA device\n");
    return;
  }
  const test_support::TempDir dir("rdmasim_probe_verbs");
  const auto r = shell(kProbe + " lat --transport verbs --sizes 2:64", dir);
  CHECK(r.exit_code == 2);
  CHECK(test_support::contains(r.err, "no RDMA device found; use --transport tcp"));
}

TEST_CASE("probe replays a 4-host scenario under mpirun and compare reads its flows.csv",
          "[cli][slow][probe][mpi]") {
  RDMASIM_REQUIRE_PROBE();
  if (std::system("command -v mpirun >/dev/null 2>&1") != 0) {
    std::printf("SKIPPED: mpirun not found (openmpi-bin)\n");
    return;
  }
  const test_support::TempDir dir("rdmasim_replay");
  const std::string scenario = RDMASIM_SOURCE_DIR "/scenarios/probe-replay-4hosts.json";
  // Root in CI containers needs Open MPI's consent; no shared-memory single copy in
  // containers; MPI's own allocations are not ours to leak-check (ASAN_OPTIONS for the ranks).
  const std::string mpirun =
      "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun --oversubscribe -np 4 "
      "--mca btl_vader_single_copy_mechanism none -x ASAN_OPTIONS=detect_leaks=0 ";
  const auto real =
      shell(mpirun + RDMASIM_BIN_DIR "/rdmasim-probe replay " + scenario + " -o real", dir);
  INFO(real.out << real.err);
  REQUIRE(real.exit_code == 0);
  const auto sim = test_support::rdmasim({"run", scenario, "-o", "sim", "-q"}, dir);
  REQUIRE(sim.exit_code == 0);
  const auto real_rows = test_support::lines_of(test_support::read_file(dir / "real/flows.csv"));
  const auto sim_rows = test_support::lines_of(test_support::read_file(dir / "sim/flows.csv"));
  REQUIRE(real_rows.size() == 6);  // header + 5 flows
  REQUIRE(sim_rows.size() == 6);
  CHECK(real_rows[0] == sim_rows[0]);  // the same columns
  for (size_t i = 1; i < 6; ++i) {
    // flow_id,tag,src,dst,bytes,priority,qps,start_ns: identical; the ideal FCT too.
    auto prefix = [](const std::string& row, int fields) {
      size_t pos = 0;
      for (int k = 0; k < fields; ++k) pos = row.find(',', pos) + 1;
      return row.substr(0, pos);
    };
    CHECK(prefix(real_rows[i], 8) == prefix(sim_rows[i], 8));
    CHECK(real_rows[i].substr(real_rows[i].size() - 2) == ",1");  // completed
  }
  // One rank per host: a run with fewer ranks is refused before anything is sent.
  std::string two_ranks = mpirun;
  two_ranks.replace(two_ranks.find("-np 4"), 5, "-np 2");
  const auto wrong =
      shell(two_ranks + RDMASIM_BIN_DIR "/rdmasim-probe replay " + scenario + " -o r2", dir);
  CHECK(wrong.exit_code == 2);
  CHECK(test_support::contains(wrong.err, "one MPI rank per host: mpirun -np 4"));
  const auto cmp = test_support::rdmasim({"compare", "sim", "real"}, dir);
  INFO(cmp.out << cmp.err);
  REQUIRE(cmp.exit_code == 0);
  CHECK(test_support::contains(cmp.out, "5 matched"));
  CHECK(test_support::contains(cmp.out, "p99"));
}

TEST_CASE("probe options that cannot work are refused before anything listens or connects",
          "[cli][probe][robustness]") {
  RDMASIM_REQUIRE_PROBE();
  const test_support::TempDir dir("rdmasim_probe");
  struct Case {
    const char* args;
    const char* option;
  };
  const Case cases[] = {{"lat --server --connect 127.0.0.1", "--connect"},
                        {"lat --server --bind nonsense.invalid", "--bind"},
                        {"bw --bind nonsense.invalid", "--bind"},
                        {"lat --sizes 2:16GiB", "--sizes"}};
  for (const Case& c : cases) {
    const auto r = shell(kProbe + " " + c.args, dir);
    INFO(c.args << ": " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(test_support::contains(r.err, c.option));
  }
}
