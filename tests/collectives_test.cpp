// Collectives against the α-β formulas (docs/references.md "Collectives"), with α and B taken
// from the model itself: B is the payload rate of a host link (MTU payload per MTU + headers
// + framing on the wire) and α the unloaded latency of one step beyond its serialization
// (models/ideal_fct: tx latency, propagation, switch latency). A step's receiver moves on when
// the data is delivered; the call ends when the last message is acknowledged: one ACK return
// (ack_ps) on top.
#include <catch2/catch.hpp>
#include <cmath>

#include "models/collectives/schedule.hpp"
#include "models/ideal_fct.hpp"
#include "scenario_helpers.hpp"
#include "scenarios/builder/build_network.hpp"
#include "scenarios/outputs/collectives_table.hpp"
#include "scenarios/traces/trace.hpp"
#include "sim/units.hpp"
#include "temp_dir.hpp"

namespace {

// n hosts on one switch: every host has its own up and down link, so ring neighbours never
// share one (a non-blocking fabric).
using test_support::star;

scen::Json collective_scenario(const scen::Json& topology, const scen::Json& collective) {
  scen::Json j;
  j["name"] = "collective";
  j["topology"] = topology;
  j["fabric"]["switch"] = {{"latency", "500ns"}};
  // Only the last packet of a message is acknowledged, so ACKs do not take link time from
  // the data going the other way (no competing traffic at all).
  j["fabric"]["nic"] = {{"ack_every", 1 << 20}};
  j["workload"]["collective"] = collective;
  return j;
}

struct AlphaBeta {
  double alpha_ps = 0;
  double bytes_per_ps = 0;  // payload
  double ack_ps = 0;        // the last message's acknowledgement back to its sender
};

// α and B between h0 and h1 of a scenario, from the ideal-FCT recursion of the model.
AlphaBeta alpha_beta(const scen::Scenario& s) {
  sim::Simulator sim(1);
  auto net = scen::build_network(s, sim);
  const auto data = scen::trace_path(s, *net, 0, 1, 50000, 0);
  const auto ack = scen::trace_path(s, *net, 1, 0, 50000, 0);
  const int64_t mtu = s.nic.mtu;
  const int64_t wire = mtu + s.nic.header_bytes + s.nic.framing_bytes;
  const int64_t rate = data[0].rate_bps;
  const double ser_packet = static_cast<double>(sim::serialization_time(wire, rate).ps);
  AlphaBeta ab;
  const double delivery = static_cast<double>(models::ideal_delivery(data, mtu, s.nic).ps);
  ab.alpha_ps = delivery - ser_packet;
  ab.ack_ps = static_cast<double>(models::ideal_fct(data, ack, mtu, s.nic).ps) - delivery;
  ab.bytes_per_ps = static_cast<double>(mtu) / ser_packet;
  return ab;
}

}  // namespace

TEST_CASE("ring all-reduce takes 2(n-1)α + 2(n-1)/n S/B + one ACK return",
          "[mechanism][collectives]") {
  for (int n : {2, 4, 8}) {
    for (int64_t segment : {int64_t{4096} * 4, int64_t{4096} * 64}) {
      const int64_t size = segment * n;  // whole packets per step
      const scen::Scenario s = test_support::load(collective_scenario(
          star(n), {{"op", "all_reduce"}, {"algorithm", "ring"}, {"size", size}}));
      const scen::RunOutcome out = scen::run_scenario(s);
      REQUIRE(out.collectives.size() == 1);
      const AlphaBeta ab = alpha_beta(s);
      const double expected = 2.0 * (n - 1) * ab.alpha_ps + ab.ack_ps +
                              2.0 * (n - 1) / n * static_cast<double>(size) / ab.bytes_per_ps;
      const double got = static_cast<double>(out.collectives[0].time.ps);
      INFO("n " << n << " size " << size << " expected " << expected / 1e6 << " us, got "
                << got / 1e6 << " us");
      CHECK(std::abs(got - expected) / expected < 0.01);
      // Per-rank conservation: every rank sent and received 2(n-1)/n of the data.
      for (int r = 0; r < n; ++r) {
        CHECK(out.collectives[0].rank_data_sent[r] == 2 * (n - 1) * segment);
        CHECK(out.collectives[0].rank_data_received[r] == 2 * (n - 1) * segment);
      }
    }
  }
}

TEST_CASE("collective runs are identical on rerun", "[mechanism][collectives]") {
  const scen::Json j = collective_scenario(star(6), {{"op", "all_reduce"},
                                                     {"algorithm", "ring"},
                                                     {"min", "1KiB"},
                                                     {"max", "256KiB"},
                                                     {"factor", 8},
                                                     {"channels", 2},
                                                     {"chunk", "16KiB"}});
  const scen::Scenario s = test_support::load(j);
  const scen::RunOutcome a = scen::run_scenario(s);
  const scen::RunOutcome b = scen::run_scenario(s);
  REQUIRE(a.collectives.size() == 3);
  REQUIRE(a.collectives.size() == b.collectives.size());
  for (size_t i = 0; i < a.collectives.size(); ++i) {
    CHECK(a.collectives[i].time == b.collectives[i].time);
    CHECK(a.collectives[i].wire_bytes == b.collectives[i].wire_bytes);
    CHECK(a.collectives[i].messages == b.collectives[i].messages);
  }
  CHECK(a.results.dump() == b.results.dump());
}

TEST_CASE("a sweep's next size starts size_gap after the last one ends, its time unchanged",
          "[mechanism][collectives]") {
  // Between two sizes nccl-tests runs an untimed call and host barriers: the fabric idle
  // for size_gap. With nothing in the fabric to carry over, each size's time is the same
  // whatever the gap.
  scen::Json c = {{"op", "all_reduce"}, {"algorithm", "ring"}, {"min", "64KiB"},
                  {"max", "256KiB"},    {"factor", 4},         {"size_gap", "7us"}};
  const scen::RunOutcome a =
      scen::run_scenario(test_support::load(collective_scenario(star(4), c)));
  c["size_gap"] = "40us";
  const scen::RunOutcome b =
      scen::run_scenario(test_support::load(collective_scenario(star(4), c)));
  REQUIRE(a.collectives.size() == 2);
  REQUIRE(b.collectives.size() == 2);
  CHECK(a.collectives[1].start == a.collectives[0].end + sim::Time(7'000'000));
  CHECK(b.collectives[1].start == b.collectives[0].end + sim::Time(40'000'000));
  CHECK(a.collectives[0].time == b.collectives[0].time);
  CHECK(a.collectives[1].time == b.collectives[1].time);
}

TEST_CASE("collective input errors name the path", "[mechanism][collectives]") {
  auto refused = [](const scen::Json& collective, const std::string& path) {
    try {
      (void)test_support::load(collective_scenario(star(3), collective));
      FAIL("accepted " << collective.dump());
    } catch (const scen::InputError& e) {
      CHECK(e.path == path);
    }
  };
  refused({{"op", "all_reduce"}, {"algorithm", "halving_doubling"}, {"size", "1MiB"}},
          "workload.collective.algorithm");
  refused({{"op", "all_gather"}, {"algorithm", "double_binary_tree"}, {"size", "1MiB"}},
          "workload.collective.algorithm");
  refused({{"op", "all_reduce"}, {"size", "1MiB"}, {"ranks", {"h0", "h0"}}},
          "workload.collective.ranks[1]");
  refused({{"op", "all_reduce"}, {"size", "1MiB"}, {"chanels", 2}}, "workload.collective.chanels");
  refused({{"op", "all_reduce"}, {"min", "1MiB"}, {"max", "1KiB"}}, "workload.collective.max");
}

TEST_CASE("halving-doubling all-reduce takes 2 log2(n) α + 2(n-1)/n S/B + one ACK return",
          "[mechanism][collectives]") {
  for (int n : {4, 8}) {
    const int64_t size = int64_t{4096} * 32 * n;
    const scen::Scenario s = test_support::load(collective_scenario(
        star(n), {{"op", "all_reduce"}, {"algorithm", "halving_doubling"}, {"size", size}}));
    const scen::RunOutcome out = scen::run_scenario(s);
    REQUIRE(out.collectives.size() == 1);
    const AlphaBeta ab = alpha_beta(s);
    const double log2n = std::log2(n);
    const double expected = 2.0 * log2n * ab.alpha_ps + ab.ack_ps +
                            2.0 * (n - 1) / n * static_cast<double>(size) / ab.bytes_per_ps;
    const double got = static_cast<double>(out.collectives[0].time.ps);
    INFO("n " << n << " expected " << expected / 1e6 << " us, got " << got / 1e6 << " us");
    CHECK(std::abs(got - expected) / expected < 0.02);
    for (int r = 0; r < n; ++r) {
      CHECK(out.collectives[0].rank_data_sent[r] == 2 * (n - 1) * (size / n));
      CHECK(out.collectives[0].rank_data_received[r] == 2 * (n - 1) * (size / n));
    }
  }
}

TEST_CASE("pipelined double binary tree all-reduce takes about 2 log2(n) α + 2 S/B",
          "[mechanism][collectives]") {
  // Every rank is interior in at most one tree.
  for (int n : {5, 8, 12}) {
    std::vector<int> interior(n, 0);
    for (int t = 0; t < 2; ++t) {
      const std::vector<int> parent = models::binary_tree_parents(n, t);
      std::vector<int> children(n, 0);
      int roots = 0;
      for (int x = 0; x < n; ++x) {
        if (parent[x] >= 0) {
          ++children[parent[x]];
        } else {
          ++roots;
        }
      }
      CHECK(roots == 1);
      for (int x = 0; x < n; ++x) {
        CHECK(children[x] <= 2);
        if (children[x] == 2) ++interior[x];
      }
    }
    for (int x = 0; x < n; ++x) CHECK(interior[x] <= 1);
  }
  const int n = 8;
  const int64_t size = int64_t{16} << 20;
  const scen::Scenario s =
      test_support::load(collective_scenario(star(n), {{"op", "all_reduce"},
                                                       {"algorithm", "double_binary_tree"},
                                                       {"size", size},
                                                       {"chunk", "16KiB"}}));
  const scen::RunOutcome out = scen::run_scenario(s);
  REQUIRE(out.collectives.size() == 1);
  const AlphaBeta ab = alpha_beta(s);
  const double expected =
      2.0 * std::log2(n) * ab.alpha_ps + 2.0 * static_cast<double>(size) / ab.bytes_per_ps;
  const double got = static_cast<double>(out.collectives[0].time.ps);
  INFO("expected " << expected / 1e6 << " us, got " << got / 1e6 << " us");
  CHECK(std::abs(got - expected) / expected < 0.02);
  // Conservation: the ranks together sent what they received, 2 (n - 1) halves per tree.
  int64_t sent = 0, received = 0;
  for (int r = 0; r < n; ++r) {
    sent += out.collectives[0].rank_data_sent[r];
    received += out.collectives[0].rank_data_received[r];
    CHECK(out.collectives[0].rank_data_sent[r] <= 2 * size);
  }
  CHECK(sent == received);
  CHECK(sent == 2 * (n - 1) * size);  // per tree: (n-1) edges up and down, S/2 each
}

TEST_CASE(
    "large all-reduce bus bandwidth reaches the link's payload rate times the protocol "
    "efficiency",
    "[mechanism][collectives]") {
  const int n = 4;
  const int64_t size = int64_t{32} << 20;
  for (const auto& [protocol, efficiency] : std::vector<std::pair<std::string, double>>{
           {"simple", 1.0}, {"ll128", 120.0 / 128}, {"ll", 0.5}}) {
    const scen::Scenario s = test_support::load(collective_scenario(
        star(n),
        {{"op", "all_reduce"}, {"algorithm", "ring"}, {"protocol", protocol}, {"size", size}}));
    const scen::RunOutcome out = scen::run_scenario(s);
    REQUIRE(out.collectives.size() == 1);
    const AlphaBeta ab = alpha_beta(s);
    const double expected_gbps = ab.bytes_per_ps * 1e12 / 1e9 * efficiency;
    INFO(protocol << ": busbw " << out.collectives[0].busbw_gbps() << " GB/s, expected "
                  << expected_gbps);
    CHECK(std::abs(out.collectives[0].busbw_gbps() - expected_gbps) / expected_gbps < 0.02);
  }
}

TEST_CASE("all-to-all on a 2:1 oversubscribed leaf-spine takes about twice as long",
          "[mechanism][collectives]") {
  auto run = [](const std::string& fabric_rate) {
    scen::Json topo = {{"generator", "leaf-spine"},
                       {"leaves", 8},
                       {"spines", 2},
                       {"hosts_per_leaf", 2},
                       {"host_rate", "100Gbps"},
                       {"fabric_rate", fabric_rate},
                       {"host_latency", "1us"},
                       {"fabric_latency", "1us"}};
    const scen::Scenario s = test_support::load(
        collective_scenario(topo, {{"op", "all_to_all"}, {"size", "1MiB"}, {"qps", 4}}));
    const scen::RunOutcome out = scen::run_scenario(s);
    REQUIRE(out.collectives.size() == 1);
    // Conservation: each rank sent and received (n-1)/n of its buffer.
    for (int r = 0; r < 16; ++r) {
      CHECK(out.collectives[0].rank_data_sent[r] == 15 * (int64_t{1} << 20) / 16);
      CHECK(out.collectives[0].rank_data_received[r] == 15 * (int64_t{1} << 20) / 16);
    }
    return static_cast<double>(out.collectives[0].time.ps);
  };
  const double full = run("100Gbps");  // 2 hosts, 2 uplinks of the host rate: non-blocking
  const double half = run("50Gbps");   // the same uplinks at half the rate: 2:1
  INFO("non-blocking " << full / 1e6 << " us, 2:1 " << half / 1e6 << " us");
  CHECK(half / full >= 1.8);
  CHECK(half / full <= 2.2);
}

TEST_CASE("the collectives table has nccl-tests' columns and conventions",
          "[mechanism][collectives]") {
  // all_gather's size is the total output: on 4 ranks each rank contributes a quarter, so
  // every rank receives 3/4 of the size, and busbw = algbw × 3/4.
  const scen::Scenario s = test_support::load(collective_scenario(star(4), {{"op", "all_gather"},
                                                                            {"algorithm", "ring"},
                                                                            {"min", "64KiB"},
                                                                            {"max", "256KiB"},
                                                                            {"factor", 4}}));
  const scen::RunOutcome out = scen::run_scenario(s);
  REQUIRE(out.collectives.size() == 2);
  for (const auto& r : out.collectives) {
    CHECK(r.count == r.size_bytes / 4);
    CHECK(std::abs(r.busbw_gbps() - r.algbw_gbps() * 0.75) < 1e-9);
    for (int k = 0; k < 4; ++k) CHECK(r.rank_data_received[k] == r.size_bytes / 4 * 3);
  }
  const std::string table = scen::collectives_table(out.collectives, s.collectives);
  CHECK(
      table.find("#       size         count      type   redop    root     time   algbw   busbw") !=
      std::string::npos);
  CHECK(table.find("       65536         16384     float    none      -1") != std::string::npos);
  CHECK(table.find("# Avg bus bandwidth    : ") != std::string::npos);
  // nccl-tests' own parser reads it back: the collective, the ranks, both halves of each row.
  const traces::NcclTrace t = traces::parse_nccl_tests(table, "rdmasim-table");
  CHECK(t.collective == "all_gather");
  CHECK(t.ranks.size() == 4);
  REQUIRE(t.rows.size() == 2);
  for (size_t i = 0; i < 2; ++i) {
    CHECK(t.rows[i].bytes == out.collectives[i].size_bytes);
    CHECK(std::abs(t.rows[i].out_of_place.time_us - out.collectives[i].time.us()) < 0.006);
    CHECK(t.rows[i].in_place.time_us == t.rows[i].out_of_place.time_us);
    CHECK(t.rows[i].out_of_place.wrong == 0);
  }
  CHECK(table.find("#          65536 B: ring/simple") != std::string::npos);
  // As a file, it reads as an nccl-tests trace (what `rdmasim calibrate --trace` takes).
  const test_support::TempDir dir;
  const traces::Trace file = traces::read_trace_file(dir.write("table.txt", table).string());
  CHECK(file.kind == traces::TraceKind::NcclTests);
  CHECK(file.nccl.rows.size() == 2);
  const std::string csv = scen::collectives_csv(out.collectives, s.collectives);
  CHECK(csv.rfind("collective,op,ranks,algorithm,protocol,size_bytes,count,type_bytes,time_us,"
                  "algbw_GBps,busbw_GBps,messages,wire_bytes,nvlink_bytes,network_bytes,channels,"
                  "chunk_bytes\n0,"
                  "all_gather,4,"
                  "ring,simple,65536,16384,4,",
                  0) == 0);
}

TEST_CASE("every collective conserves bytes per rank", "[mechanism][collectives]") {
  const int n = 4;
  const int64_t size = int64_t{4096} * 16 * n;
  struct Case {
    std::string op, algorithm;
    int64_t sent, received;  // per rank, except where the root differs (broadcast)
  };
  const std::vector<Case> cases = {
      {"reduce_scatter", "ring", (n - 1) * size / n, (n - 1) * size / n},
      {"all_gather", "ring", (n - 1) * size / n, (n - 1) * size / n},
      {"send_recv", "direct", size, size},
      {"all_to_all", "direct", (n - 1) * size / n, (n - 1) * size / n},
  };
  for (const Case& c : cases) {
    const scen::Scenario s = test_support::load(collective_scenario(
        star(n), {{"op", c.op}, {"algorithm", c.algorithm}, {"size", size}, {"chunk", "16KiB"}}));
    const scen::RunOutcome out = scen::run_scenario(s);
    REQUIRE(out.collectives.size() == 1);
    for (int r = 0; r < n; ++r) {
      INFO(c.op << " rank " << r);
      CHECK(out.collectives[0].rank_data_sent[r] == c.sent);
      CHECK(out.collectives[0].rank_data_received[r] == c.received);
    }
  }
  // Broadcast down the chain from root 1: every rank but the root receives the buffer once,
  // every rank but the last of the chain (root - 1) sends it once.
  const scen::Scenario s = test_support::load(collective_scenario(
      star(n), {{"op", "broadcast"}, {"size", size}, {"root", 1}, {"chunk", "16KiB"}}));
  const scen::RunOutcome out = scen::run_scenario(s);
  REQUIRE(out.collectives.size() == 1);
  for (int r = 0; r < n; ++r) {
    CHECK(out.collectives[0].rank_data_received[r] == (r == 1 ? 0 : size));
    CHECK(out.collectives[0].rank_data_sent[r] == (r == 0 ? 0 : size));
  }
}
