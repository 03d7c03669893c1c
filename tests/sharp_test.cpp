// In-network reduction (SHARP) on InfiniBand: the aggregation tree, the pipelined time against
// docs/references.md "Collectives" (T = S/B_b + 2·D·(L + c/B_b), B_b = min(link rate, reduction
// rate)), each host's traffic against a ring's, data-flow correctness (a reduction waits for
// every child) and determinism.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>

#include "scenario_helpers.hpp"
#include "scenarios/builder/build_network.hpp"
#include "sim/units.hpp"
#include "topologies/aggregation_tree.hpp"
#include "topologies/generators.hpp"

using namespace sim::literals;

namespace {

scen::Json leaf_spine(int leaves, int hosts_per_leaf, int spines = 2) {
  return {{"generator", "leaf-spine"}, {"leaves", leaves},
          {"spines", spines},          {"hosts_per_leaf", hosts_per_leaf},
          {"host_rate", "400Gbps"},    {"fabric_rate", "400Gbps"},
          {"host_latency", "100ns"},   {"fabric_latency", "100ns"}};
}

scen::Json sharp_scenario(const scen::Json& topology, const scen::Json& collective,
                          const scen::Json& sharp = scen::Json::object()) {
  scen::Json j;
  j["name"] = "sharp";
  j["fabric"] = "infiniband";
  j["topology"] = topology;
  j["infiniband"]["sharp"] = sharp;
  j["workload"]["collective"] = collective;
  return j;
}

// docs/references.md "Collectives": T = S/B_b + 2·D·(L + c/B_b). The bytes the links carry are wire
// bytes (payload + 26 bytes of IB headers per packet), the reduction rate counts payload; so
// S/B_b = max(S_wire/B, S/R), likewise for one chunk. L per level: the cable's propagation, the
// switch's latency and the aggregation node's.
double formula_ps(const scen::Scenario& s, int64_t size, int depth, int64_t rate_bps,
                  int64_t latency_ps) {
  const models::SharpChunks all{size, s.sharp.chunk_bytes, s.nic.mtu,
                                s.nic.header_bytes + s.nic.framing_bytes};
  const models::SharpChunks one{s.sharp.chunk_bytes, s.sharp.chunk_bytes, s.nic.mtu,
                                s.nic.header_bytes + s.nic.framing_bytes};
  auto time_of = [&](const models::SharpChunks& c) {
    double t = static_cast<double>(c.wire_bytes()) * 8e12 / static_cast<double>(rate_bps);
    if (s.sharp.reduction_rate_bps > 0) {
      t = std::max(
          t, static_cast<double>(c.bytes) * 8e12 / static_cast<double>(s.sharp.reduction_rate_bps));
    }
    return t;
  };
  const double level =
      static_cast<double>(latency_ps + s.switch_defaults.latency.ps + s.sharp.latency.ps);
  return time_of(all) + 2.0 * depth * (level + time_of(one));
}

// The pipeline in detail (reduction never the bottleneck, 400 Gb/s, 100 ns cables): the last
// chunk leaves its host at S/B, then crosses 2D - 1 more links whole (each level forwards a
// chunk once it has all of it), 2D - 1 switches (switch and aggregation-node latency) and 2D
// cables. The formula above counts one chunk time and one switch more. Credit updates share the
// links (one 8-byte flow-control packet per 4 KiB data packet at most: 0.2 %).
double pipeline_ps(const scen::Scenario& s, int64_t size, int depth) {
  const models::SharpChunks all{size, s.sharp.chunk_bytes, s.nic.mtu, 26};
  const models::SharpChunks one{s.sharp.chunk_bytes, s.sharp.chunk_bytes, s.nic.mtu, 26};
  const double byte_ps = 8e12 / 400e9;
  return static_cast<double>(all.wire_bytes()) * byte_ps +
         (2.0 * depth - 1) * static_cast<double>(one.wire_bytes()) * byte_ps +
         2.0 * depth * 100'000 +
         (2.0 * depth - 1) * static_cast<double>(s.switch_defaults.latency.ps + s.sharp.latency.ps);
}

}  // namespace

TEST_CASE("aggregation tree: leaves under one spine, a group inside a leaf stays there",
          "[mechanism][sharp]") {
  topo::LeafSpineParams p;
  p.leaves = 4;
  p.spines = 2;
  p.hosts_per_leaf = 4;
  const topo::Fabric f = topo::build_fabric(topo::make_leaf_spine(p));
  std::vector<int> all;
  for (size_t h = 0; h < f.host_node.size(); ++h) all.push_back(f.host_node[h]);
  const topo::AggregationTree t = topo::build_aggregation_tree(f, all);
  CHECK(t.depth == 2);
  REQUIRE(t.switches.size() == 5);  // spine0 and the four leaves
  CHECK(f.topo.nodes[t.switches[0].node].name == "spine0");
  CHECK(t.switches[0].child_ports.size() == 4);
  for (size_t i = 1; i < t.switches.size(); ++i) {
    CHECK(t.switches[i].parent == 0);
    CHECK(t.switches[i].child_ports.size() == 4);
  }
  // Hosts of leaf1 only: leaf1 alone reduces them.
  const topo::AggregationTree one =
      topo::build_aggregation_tree(f, {f.host_node[4], f.host_node[5], f.host_node[6]});
  CHECK(one.depth == 1);
  REQUIRE(one.switches.size() == 1);
  CHECK(f.topo.nodes[one.switches[0].node].name == "leaf1");
  CHECK(one.switches[0].child_ports.size() == 3);

  topo::FatTreeParams ft;
  ft.k = 4;
  const topo::Fabric g = topo::build_fabric(topo::make_fat_tree(ft));
  std::vector<int> hosts;
  for (size_t h = 0; h < g.host_node.size(); ++h) hosts.push_back(g.host_node[h]);
  const topo::AggregationTree c = topo::build_aggregation_tree(g, hosts);
  CHECK(c.depth == 3);
  CHECK(g.topo.nodes[c.switches[0].node].name == "core0");
  CHECK(c.switches.size() == 1 + 4 + 8);  // a core, one aggregation switch per pod, the edges
}

TEST_CASE("SHARP all-reduce time matches S/B_b + 2D(L + c/B_b) within 2 %", "[mechanism][sharp]") {
  struct Case {
    int leaves, hosts_per_leaf, depth;
    int64_t size;
    const char* reduction_rate;
  };
  const Case cases[] = {
      {1, 4, 1, 4 << 20, "0"}, {2, 4, 2, 4 << 20, "0"},       {4, 4, 2, 16 << 20, "0"},
      {4, 2, 2, 8 << 20, "0"}, {2, 4, 2, 8 << 20, "200Gbps"},  // the reduction is the bottleneck:
                                                               // B_b = 200 Gb/s
  };
  for (const Case& c : cases) {
    const scen::Scenario s = test_support::load(
        sharp_scenario(leaf_spine(c.leaves, c.hosts_per_leaf),
                       {{"op", "all_reduce"}, {"algorithm", "sharp"}, {"size", c.size}},
                       {{"chunk", "16KiB"}, {"reduction_rate", c.reduction_rate}}));
    const scen::RunOutcome out = scen::run_scenario(s);
    REQUIRE(out.collectives.size() == 1);
    const double expected = formula_ps(s, c.size, c.depth, 400'000'000'000, 100'000);
    const double got = static_cast<double>(out.collectives[0].time.ps);
    INFO("hosts " << c.leaves * c.hosts_per_leaf << " size " << c.size << " reduction "
                  << c.reduction_rate << ": formula " << expected / 1e6 << " us, got " << got / 1e6
                  << " us");
    CHECK(std::abs(got - expected) / expected < 0.02);
    CHECK(out.collectives[0].algorithm == models::CollectiveAlgorithm::Sharp);
    if (std::string(c.reduction_rate) != "0") continue;
    const double pipeline = pipeline_ps(s, c.size, c.depth);
    INFO("pipeline " << pipeline / 1e6 << " us");
    CHECK(std::abs(got - pipeline) / pipeline < 0.005);
  }
}

TEST_CASE("SHARP on a k = 4 fat-tree: three levels, the same formula, and a small window bounds it",
          "[mechanism][sharp]") {
  const int64_t size = 8 << 20;
  auto run = [&](int window) {
    const scen::Scenario s = test_support::load(sharp_scenario(
        {{"generator", "fat-tree"}, {"k", 4}, {"rate", "400Gbps"}, {"latency", "100ns"}},
        {{"op", "all_reduce"}, {"algorithm", "sharp"}, {"size", size}},
        {{"chunk", "32KiB"}, {"max_outstanding_chunks", window}}));
    const scen::RunOutcome out = scen::run_scenario(s);
    REQUIRE(out.collectives.size() == 1);
    return std::make_pair(s, static_cast<double>(out.collectives[0].time.ps));
  };
  // 16 chunks cover the round trip of a chunk through the six levels.
  const auto [s, got] = run(16);
  const double expected = formula_ps(s, size, 3, 400'000'000'000, 100'000);
  INFO("formula " << expected / 1e6 << " us, got " << got / 1e6 << " us");
  CHECK(std::abs(got - expected) / expected < 0.02);
  // 8 do not: a host sends W chunks per round trip of a chunk (its 2D link crossings whole,
  // 2D cables, 2D - 1 switches), so T = S_wire / (W c_wire / RTT) + RTT.
  const auto [s8, got8] = run(8);
  const models::SharpChunks all{size, 32768, s.nic.mtu, 26};
  const models::SharpChunks one{32768, 32768, s.nic.mtu, 26};
  const double byte_ps = 8e12 / 400e9;
  const double rtt = 6.0 * static_cast<double>(one.wire_bytes()) * byte_ps + 6.0 * 100'000 +
                     5.0 * static_cast<double>(s.switch_defaults.latency.ps + s.sharp.latency.ps);
  const double window_bound =
      static_cast<double>(all.wire_bytes()) * rtt / (8.0 * static_cast<double>(one.wire_bytes())) +
      rtt;
  INFO("window 8: bound " << window_bound / 1e6 << " us, got " << got8 / 1e6 << " us");
  CHECK(window_bound > expected * 1.05);
  CHECK(std::abs(got8 - window_bound) / window_bound < 0.02);
}

TEST_CASE("SHARP: each host sends S once and receives it once, about half a ring's bytes",
          "[mechanism][sharp]") {
  const int64_t size = 4 << 20;
  const int n = 8;
  auto run = [&](const char* algorithm) {
    const scen::Scenario s = test_support::load(sharp_scenario(
        leaf_spine(2, 4), {{"op", "all_reduce"}, {"algorithm", algorithm}, {"size", size}}));
    return std::make_pair(s, scen::run_scenario(s));
  };
  const auto [s, sharp] = run("sharp");
  const auto [s_ring, ring] = run("ring");
  const models::SharpChunks chunks{size, s.sharp.chunk_bytes, s.nic.mtu,
                                   s.nic.header_bytes + s.nic.framing_bytes};
  for (int r = 0; r < n; ++r) {
    CHECK(sharp.collectives[0].rank_data_sent[r] == size);
    CHECK(sharp.collectives[0].rank_data_received[r] == size);
    CHECK(ring.collectives[0].rank_data_sent[r] == 2 * (n - 1) * size / n);
  }
  // All of it through the NICs (collectives.csv's network_bytes), none over NVLink.
  CHECK(sharp.collectives[0].network_bytes == int64_t{n} * size);
  CHECK(sharp.collectives[0].nvlink_bytes == 0);
  // On the wire (the links' counters): a host's link carries S plus headers each way, and
  // nothing else in the data VL.
  for (int h = 0; h < n; ++h) {
    const std::string host = "h" + std::to_string(h);
    const std::string leaf = "leaf" + std::to_string(h / 4);
    const auto& up = test_support::link_between(sharp, host, leaf);
    const auto& down = test_support::link_between(sharp, leaf, host);
    CHECK(up.class_wire_bytes[0] == static_cast<uint64_t>(chunks.wire_bytes()));
    CHECK(down.class_wire_bytes[0] == static_cast<uint64_t>(chunks.wire_bytes()));
    const auto& ring_up = test_support::link_between(ring, host, leaf);
    const double ratio = static_cast<double>(up.class_wire_bytes[0]) /
                         static_cast<double>(ring_up.class_wire_bytes[0]);
    INFO(host << ": sharp " << up.class_wire_bytes[0] << " B, ring " << ring_up.class_wire_bytes[0]
              << " B");
    // Ring: 2(n-1)/n S of data plus its ACKs; SHARP: S. n = 8: ratio n / (2(n-1)) = 0.571.
    CHECK(ratio < 0.58);
    CHECK(ratio > 0.55);
  }
  // Faster than the ring at this size (half the bytes through each host link).
  CHECK(sharp.collectives[0].time < ring.collectives[0].time);
}

TEST_CASE("SHARP: every reduction waits for every child (a late host delays them all)",
          "[mechanism][sharp]") {
  const scen::Scenario s = test_support::load(sharp_scenario(
      leaf_spine(2, 4), {{"op", "all_reduce"}, {"algorithm", "sharp"}, {"size", "1MiB"}}));
  const std::vector<uint32_t> hosts = {0, 1, 2, 3, 4, 5, 6, 7};
  auto run = [&](const std::vector<sim::Time>& delays, sim::Time limit) {
    sim::Simulator sim(s.seed);
    auto net = scen::build_network(s, sim);
    REQUIRE(net->sharp != nullptr);
    const uint32_t g = net->sharp->group(hosts, 0);
    sim::Time finished = sim::Time::max();
    net->sharp->start(
        g, 1 << 20, [&] { finished = sim.now(); }, delays);
    sim.run(limit);
    return std::make_pair(finished, net->sharp->counters(g));
  };
  const auto [t0, base] = run({}, sim::Time::max());
  REQUIRE(t0 != sim::Time::max());
  const sim::Time delay = 50_us;
  std::vector<sim::Time> late(hosts.size(), sim::Time(0));
  late[5] = delay;
  const auto [t1, delayed] = run(late, sim::Time::max());
  // Nobody sees a result before host 5's data could have reached the root and come back.
  for (const auto& k : delayed) {
    CHECK(k.first_result > delay);
    CHECK(k.data_received == 1 << 20);
  }
  CHECK(base[0].first_result < delay);  // without the late host, results come long before
  // The whole all-reduce moves by the delay (the others' data waits in the tree).
  INFO("on time " << sim::format_time(t0) << ", one host 50us late " << sim::format_time(t1));
  CHECK(std::abs(static_cast<double>((t1 - t0 - delay).ps)) < 0.01 * static_cast<double>(t0.ps));
  // A host that never contributes: no host ever gets a result (nothing is reduced without it).
  std::vector<sim::Time> missing(hosts.size(), sim::Time(0));
  missing[2] = 10_ms;
  const auto [t2, starved] = run(missing, 5_ms);
  CHECK(t2 == sim::Time::max());
  for (const auto& k : starved) CHECK(k.data_received == 0);
}

TEST_CASE("SHARP: two all-reduces over the same hosts at once get a tree each",
          "[mechanism][sharp]") {
  const int64_t size = 2 << 20;
  scen::Json one = {{"op", "all_reduce"}, {"algorithm", "sharp"}, {"size", size}};
  const scen::Scenario s =
      test_support::load(sharp_scenario(leaf_spine(2, 4), scen::Json::array({one, one})));
  const scen::RunOutcome out = scen::run_scenario(s);
  REQUIRE(out.collectives.size() == 2);
  const models::SharpChunks chunks{size, s.sharp.chunk_bytes, s.nic.mtu, 26};
  // Both complete and each host's link carries both: the later one cannot end before the link
  // has carried 2 S (plus headers), and neither ends before one alone would.
  const auto& up = test_support::link_between(out, "h0", "leaf0");
  CHECK(up.class_wire_bytes[0] == 2 * static_cast<uint64_t>(chunks.wire_bytes()));
  const double alone = formula_ps(s, size, 2, 400'000'000'000, 100'000);
  const double both_on_link = 2.0 * static_cast<double>(chunks.wire_bytes()) * 8e12 / 400e9;
  const double last =
      static_cast<double>(std::max(out.collectives[0].time.ps, out.collectives[1].time.ps));
  INFO("one alone " << alone / 1e6 << " us, 2 S on the link " << both_on_link / 1e6
                    << " us, the later of the two " << last / 1e6 << " us");
  CHECK(last > both_on_link);
  CHECK(last < formula_ps(s, 2 * size, 2, 400'000'000'000, 100'000));
  for (const auto& c : out.collectives) {
    CHECK(c.rank_data_received[7] == size);
    CHECK(static_cast<double>(c.time.ps) > 0.98 * alone);
  }
}

TEST_CASE("SHARP as a training step's all-reduce: every bucket reduced in the switches",
          "[mechanism][sharp]") {
  scen::Json j = sharp_scenario(leaf_spine(2, 2), {{"algorithm", "sharp"}, {"size", "1MiB"}});
  j["workload"].erase("collective");
  j["workload"]["training"] = {
      {"layers", 3},
      {"layer", {{"forward", "10us"}, {"backward", "20us"}, {"gradients", "2MiB"}}},
      {"bucket", "2MiB"},
      {"overlap", false},
      {"comm", {{"algorithm", "sharp"}}}};
  const scen::Scenario s = test_support::load(j);
  const scen::RunOutcome out = scen::run_scenario(s);
  REQUIRE(out.training_steps.size() == 1);
  REQUIRE(out.training_all_reduces.size() == 3);
  const double alone = pipeline_ps(s, 2 << 20, 2);
  for (const auto& r : out.training_all_reduces) {
    CHECK(r.algorithm == models::CollectiveAlgorithm::Sharp);
    CHECK(std::abs(static_cast<double>(r.time.ps) - alone) / alone < 0.005);
  }
  // Not overlapped: the step is compute plus the three all-reduces.
  CHECK(out.training_steps[0].exposed == out.training_steps[0].communication);
}

TEST_CASE("SHARP runs are identical on rerun", "[mechanism][sharp]") {
  const scen::Scenario s =
      test_support::load(sharp_scenario(leaf_spine(2, 3), {{"op", "all_reduce"},
                                                           {"algorithm", "sharp"},
                                                           {"min", "64KiB"},
                                                           {"max", "4MiB"},
                                                           {"factor", 8}}));
  const scen::RunOutcome a = scen::run_scenario(s);
  const scen::RunOutcome b = scen::run_scenario(s);
  REQUIRE(a.collectives.size() == 3);
  for (size_t i = 0; i < a.collectives.size(); ++i) {
    CHECK(a.collectives[i].time == b.collectives[i].time);
    CHECK(a.collectives[i].wire_bytes == b.collectives[i].wire_bytes);
  }
  CHECK(a.results.dump() == b.results.dump());
  CHECK(a.counters.dump() == b.counters.dump());
}

TEST_CASE("SHARP is refused where it does not exist", "[mechanism][sharp]") {
  auto refused = [](scen::Json j, const std::string& path) {
    try {
      (void)test_support::load(j);
      FAIL("accepted " << j.dump());
    } catch (const scen::InputError& e) {
      CHECK(e.path == path);
    }
  };
  scen::Json roce = sharp_scenario(leaf_spine(1, 2), {{"algorithm", "sharp"}, {"size", "1MiB"}});
  roce["fabric"] = "roce";
  roce.erase("infiniband");
  refused(roce, "workload.collective.algorithm");
  refused(sharp_scenario(leaf_spine(1, 2),
                         {{"op", "all_gather"}, {"algorithm", "sharp"}, {"size", "1MiB"}}),
          "workload.collective.algorithm");
  refused(sharp_scenario(leaf_spine(1, 2),
                         {{"algorithm", "sharp"}, {"protocol", "ll"}, {"size", "1MiB"}}),
          "workload.collective.protocol");
  refused(
      sharp_scenario(leaf_spine(1, 2), {{"algorithm", "sharp"}, {"size", "1MiB"}}, {{"chunk", 0}}),
      "infiniband.sharp.chunk");
  refused(sharp_scenario(leaf_spine(1, 2), {{"algorithm", "sharp"}, {"size", "1MiB"}},
                         {{"max_outstanding_chunks", 0}}),
          "infiniband.sharp.max_outstanding_chunks");
}
