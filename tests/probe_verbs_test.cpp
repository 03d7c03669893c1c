// The verbs scenario replay, in every part that runs without RDMA hardware: the connection data
// that ranks exchange over MPI (a round trip, and each kind of corruption refused with both
// values named); the queue pairs a rank creates, checked against the simulator's own striping
// of each flow over its QPs (models/transport.cpp is the oracle); and the probe's command
// line: argument validation and "no RDMA device found; use --transport tcp" with exit 2, run
// alone and under mpirun.
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>

#include "scenarios/builder/build_network.hpp"
#include "tests/cli_runner.hpp"
#include "tests/scenario_helpers.hpp"
#include "tests/temp_dir.hpp"
#include "tools/probe/verbs_connection.hpp"
#include "tools/probe/verbs_replay_plan.hpp"

namespace {

probe::ConnectionData sample_connection() {
  probe::ConnectionData c;
  c.rank = 3;
  c.lid = 0x1234;
  for (size_t i = 0; i < 16; ++i) c.gid[i] = static_cast<uint8_t>(0xF0 + i);
  c.rkey = 0xDEADBEEF;
  c.addr = 0x00007F1234567890ULL;
  c.region_bytes = 64ULL << 20;
  c.qps = {{7, 0, probe::QpRole::Requester, 0xABCDEF, 0x123456},
           {7, 1, probe::QpRole::Requester, 0x000001, 0xFFFFFF},
           {9, 0, probe::QpRole::Responder, 0x800000, 0}};
  return c;
}

void set32(std::vector<unsigned char>& b, size_t at, uint32_t v) {
  const uint32_t n = htonl(v);
  std::memcpy(&b[at], &n, 4);
}

std::string refusal(const std::vector<unsigned char>& b, uint32_t rank, size_t max_qps = 16) {
  try {
    probe::decode_connection(b.data(), b.size(), rank, max_qps);
  } catch (const probe::ProtocolError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("verbs connection data round-trips and corrupt copies are refused",
          "[cli][probe][verbs]") {
  const probe::ConnectionData c = sample_connection();
  const std::vector<unsigned char> b = probe::encode_connection(c);
  REQUIRE(b.size() == probe::kConnectionHeaderBytes + 3 * probe::kQpAddressBytes);
  const probe::ConnectionData d = probe::decode_connection(b.data(), b.size(), 3, 16);
  CHECK(d.rank == c.rank);
  CHECK(d.lid == c.lid);
  CHECK(d.gid == c.gid);
  CHECK(d.rkey == c.rkey);
  CHECK(d.addr == c.addr);
  CHECK(d.region_bytes == c.region_bytes);
  REQUIRE(d.qps.size() == 3);
  for (size_t i = 0; i < 3; ++i) {
    CHECK(d.qps[i].flow == c.qps[i].flow);
    CHECK(d.qps[i].index == c.qps[i].index);
    CHECK(d.qps[i].role == c.qps[i].role);
    CHECK(d.qps[i].qpn == c.qps[i].qpn);
    CHECK(d.qps[i].psn == c.qps[i].psn);
  }
  // Network byte order on the wire, whatever the host's: the magic reads "RSMP".
  CHECK(std::string(b.begin(), b.begin() + 4) == "RSMP");

  SECTION("another format version names both") {
    auto v = b;
    set32(v, 4, 2);
    CHECK(refusal(v, 3) ==
          "connection data from rank 3 has format version 2, this probe version 1");
  }
  SECTION("from the wrong rank") {
    CHECK(refusal(b, 2) == "connection data from rank 2 names rank 3");
  }
  SECTION("bad magic") {
    auto v = b;
    v[0] = 'X';
    CHECK(test_support::contains(refusal(v, 3), "bad magic"));
  }
  SECTION("truncated: shorter than the header, or than its entries") {
    CHECK(refusal({b.begin(), b.begin() + 20}, 3) ==
          "connection data from rank 3 is 20 bytes, shorter than its 56-byte header");
    CHECK(refusal({b.begin(), b.end() - 1}, 3) ==
          "connection data from rank 3 is 115 bytes, expected 116 for 3 queue pairs");
  }
  SECTION("a count that disagrees with the length, or beyond the limit") {
    auto v = b;
    set32(v, 20, 4);
    CHECK(refusal(v, 3) ==
          "connection data from rank 3 is 116 bytes, expected 136 for 4 queue pairs");
    CHECK(refusal(b, 3, 2) ==
          "connection data from rank 3 lists 3 queue pairs, at most 2 expected");
  }
  SECTION("an entry out of range") {
    auto v = b;
    set32(v, probe::kConnectionHeaderBytes + 12, 0x1000000);  // first entry's QP number
    CHECK(test_support::contains(refusal(v, 3), "entry 0: role 0, QP number 16777216"));
    auto r = b;
    set32(r, probe::kConnectionHeaderBytes + probe::kQpAddressBytes + 8, 2);  // second's role
    CHECK(test_support::contains(refusal(r, 3), "entry 1: role 2"));
  }
}

TEST_CASE("verbs replay stripes each flow over its queue pairs as the simulator does",
          "[cli][probe][verbs]") {
  // Sizes around the MTU and qps above the packet count (fewer QPs used), as the simulator.
  scen::Json j;
  j["topology"] = test_support::star(3);
  j["fabric"]["nic"]["mtu"] = "1KiB";
  j["workload"]["flows"] = scen::Json::array(
      {{{"src", "h0"}, {"dst", "h1"}, {"size", "10000B"}, {"qps", 4}},
       {{"src", "h1"}, {"dst", "h2"}, {"size", "1MiB"}, {"qps", 3}, {"priority", 5}},
       {{"src", "h2"}, {"dst", "h0"}, {"size", "100B"}, {"qps", 8}},
       {{"src", "h0"}, {"dst", "h2"}, {"size", "3073B"}, {"qps", 3}},
       {{"src", "h0"}, {"dst", "h1"}, {"size", "5MiB"}, {"qps", 2}}});
  const scen::Scenario s = test_support::load(j);
  sim::Simulator sim(1);
  const auto net = scen::build_network(s, sim);
  for (size_t f = 0; f < s.flows.size(); ++f) {
    const models::FlowState& st = net->transport->flow(static_cast<uint32_t>(f));
    const auto shares = probe::stripe_shares(s.flows[f].bytes, s.flows[f].qps, s.nic.mtu);
    INFO("flow " << f);
    REQUIRE(shares.size() == st.qp_count);
    int64_t sum = 0;
    for (size_t k = 0; k < shares.size(); ++k) {
      CHECK(shares[k] == net->transport->qp(st.first_qp + static_cast<uint32_t>(k)).bytes);
      sum += shares[k];
    }
    CHECK(sum == s.flows[f].bytes);  // conservation
  }
  // The chunk: the largest share (5 MiB over 2 QPs = 2.5 MiB), under the 64 MiB cap.
  const int64_t chunk = probe::replay_chunk_bytes(s.flows, s.nic.mtu);
  CHECK(chunk == (5LL << 20) / 2);
  CHECK(probe::replay_chunk_bytes({{0, 1, 1LL << 30, {}, 3, 26, 1, {}, ""}}, 4096) ==
        probe::kMaxChunkBytes);
  // Host 0 sends flows 0, 3, 4 and receives flow 2: requesters and responders, in order.
  const auto plan = probe::plan_replay_qps(s.flows, 0, s.nic.mtu, chunk);
  REQUIRE(plan.size() == 4 + 1 + 3 + 2);
  CHECK(plan[0].flow == 0);
  CHECK(plan[0].role == probe::QpRole::Requester);
  CHECK(plan[0].peer == 1);
  CHECK(plan[4].flow == 2);
  CHECK(plan[4].role == probe::QpRole::Responder);
  CHECK(plan[4].peer == 2);
  CHECK(plan[4].bytes == 100);
  CHECK(plan[4].chunks == 1);
  // Host 1 receives flow 4's two 2.5 MiB shares (one chunk each) and sends flow 1 at SL 5.
  const auto h1 = probe::plan_replay_qps(s.flows, 1, s.nic.mtu, chunk);
  size_t responders = 0;
  for (const auto& q : h1) {
    if (q.role == probe::QpRole::Responder) ++responders;
    if (q.flow == 1) CHECK(q.priority == 5);
  }
  CHECK(responders == 4 + 2);
  // A share larger than the chunk takes several work requests.
  const auto small = probe::plan_replay_qps(s.flows, 0, s.nic.mtu, 1 << 20);
  CHECK(small.back().flow == 4);
  CHECK(small.back().chunks == 3);  // 2.5 MiB in 1 MiB writes
}

namespace {

// Runs `sh -c cmd` in `dir`, capturing stdout and stderr; returns the exit code.
test_support::Run shell_in(const std::string& cmd, const test_support::TempDir& dir) {
  const std::string full = "cd " + test_support::shell_quote(dir.path().string()) + " && (" + cmd +
                           ") </dev/null >.out 2>.err";
  const int status = std::system(full.c_str());
  test_support::Run r;
  if (status != -1 && WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  r.out = test_support::read_file(dir / ".out");
  r.err = test_support::read_file(dir / ".err");
  return r;
}

const std::string kProbeBin = "LSAN_OPTIONS=suppressions=" RDMASIM_SOURCE_DIR
                              "/tests/lsan.supp " RDMASIM_BIN_DIR "/rdmasim-probe";
const std::string kScenario = RDMASIM_SOURCE_DIR "/scenarios/probe-replay-4hosts.json";

}  // namespace

TEST_CASE("probe verbs replay: arguments checked, no RDMA device refused with exit 2",
          "[cli][probe][verbs]") {
#ifndef RDMASIM_HAVE_PROBE
  std::printf("SKIPPED: rdmasim-probe was not built (Open MPI missing: libopenmpi-dev)\n");
  return;
#endif
  const test_support::TempDir dir("rdmasim_probe_verbs_replay");
  const std::string replay = kProbeBin + " replay " + kScenario + " -o out --transport verbs";
  struct Bad {
    std::string args, says;
  };
  for (const Bad& b :
       {Bad{" --mtu 1000", "--mtu"}, Bad{" --verb read", "--verb"},
        Bad{" --ib-port 0", "--ib-port"}, Bad{" --gid-index=-2", "--gid-index: got -2"}}) {
    const auto r = shell_in(replay + b.args, dir);
    INFO(b.args << ": " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(test_support::contains(r.err, b.says));
  }
  const auto t = shell_in(kProbeBin + " replay " + kScenario + " -o out --transport rdma", dir);
  CHECK(t.exit_code == 2);
  CHECK(test_support::contains(t.err, "tcp or verbs"));
  const auto q = shell_in(kProbeBin + " bw --transport verbs --qps 65", dir);
  CHECK(q.exit_code == 2);
  CHECK(test_support::contains(q.err, "--qps"));

  if (std::system("ls /sys/class/infiniband/* >/dev/null 2>&1") == 0) {
    std::printf("SKIPPED: this machine has an RDMA device (no-device path not checked)\n");
    return;
  }
  // Alone (MPI never starts: the check comes first) ...
  const auto alone = shell_in(replay, dir);
  INFO(alone.err);
  CHECK(alone.exit_code == 2);
  // "built without libibverbs" here would mean CMake did not find libibverbs-dev.
  CHECK(test_support::contains(alone.err,
                               "rdmasim-probe: no RDMA device found; use --transport tcp"));
  CHECK_FALSE(std::filesystem::exists(dir / "out"));
  // ... and as a 4-rank job: every rank refuses, mpirun passes the exit code on.
  if (std::system("command -v mpirun >/dev/null 2>&1") != 0) {
    std::printf("SKIPPED: mpirun not found (openmpi-bin)\n");
    return;
  }
  const auto job = shell_in(
      "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun --oversubscribe -np 4 "
      "--mca btl_vader_single_copy_mechanism none -x ASAN_OPTIONS=detect_leaks=0 " RDMASIM_BIN_DIR
      "/rdmasim-probe replay " +
          kScenario + " -o out --transport verbs",
      dir);
  INFO(job.out << job.err);
  CHECK(job.exit_code == 2);
  CHECK(test_support::contains(job.err, "no RDMA device found; use --transport tcp"));
}
