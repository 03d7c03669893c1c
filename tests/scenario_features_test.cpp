// Scenario features end to end, through the loader and a run: includes, --set, per-switch and
// per-port overrides, multiple QPs per flow, ACK coalescing, link failures, the port
// timeseries and the workload generators. Each check is one the feature's removal would break.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "scenario_helpers.hpp"
#include "sim/units.hpp"
#include "temp_dir.hpp"
#include "topologies/routing.hpp"

namespace {

using scen::Json;

uint64_t u(const Json& j) {
  return j.get<uint64_t>();
}

// n senders h1..hn and one receiver h0 on one switch "sw", 100 Gb/s and 1 us links.
Json star(int senders) {
  Json t;
  t["nodes"] = Json::array({{{"name", "sw"}, {"kind", "switch"}}});
  for (int h = 0; h <= senders; ++h) {
    t["nodes"].push_back({{"name", "h" + std::to_string(h)}, {"kind", "host"}});
    t["links"].push_back({{"a", "h" + std::to_string(h)}, {"b", "sw"}});
  }
  t["defaults"] = {{"rate", "100Gbps"}, {"latency", "1us"}};
  Json j;
  j["topology"] = t;
  j["fabric"]["switch"] = {{"latency", "300ns"}};
  j["fabric"]["nic"] = {{"mtu", "1000B"}, {"rto", "50us"}};
  return j;
}

// Every sender h1..hn sends `size` to h0, all starting at 0.
Json incast(int senders, const std::string& size) {
  Json j = star(senders);
  for (int h = 1; h <= senders; ++h) {
    j["workload"]["flows"].push_back(
        {{"src", "h" + std::to_string(h)}, {"dst", "h0"}, {"size", size}});
  }
  return j;
}

// The port of switch `sw` that faces node `peer`, from the loaded fabric (not assumed).
int port_facing(const scen::Scenario& s, const std::string& sw, const std::string& peer) {
  const int node = s.fabric.node_by_name(sw), peer_node = s.fabric.node_by_name(peer);
  for (size_t p = 0; p < s.fabric.ports[node].size(); ++p) {
    if (s.fabric.ports[node][p].peer_node == peer_node) return static_cast<int>(p);
  }
  FAIL("no port of " << sw << " faces " << peer);
  return -1;
}

// Leaf-spine with the given sizes, 100 Gb/s and 1 us everywhere.
Json leaf_spine(int leaves, int spines, int hosts_per_leaf) {
  return {{"generator", "leaf-spine"}, {"leaves", leaves},
          {"spines", spines},          {"hosts_per_leaf", hosts_per_leaf},
          {"host_rate", "100Gbps"},    {"fabric_rate", "100Gbps"},
          {"host_latency", "1us"},     {"fabric_latency", "1us"}};
}

// The leaf -> spine links (one direction) from `leaf` that carried packets.
int used_uplinks(const scen::RunOutcome& out, const std::string& leaf) {
  int used = 0;
  for (const auto& l : out.links) {
    if (l.from == leaf && l.to.rfind("spine", 0) == 0 && l.packets > 0) ++used;
  }
  return used;
}

uint64_t uplink_packets(const scen::RunOutcome& out, const std::string& leaf) {
  uint64_t packets = 0;
  for (const auto& l : out.links) {
    if (l.from == leaf && l.to.rfind("spine", 0) == 0) packets += l.packets;
  }
  return packets;
}

}  // namespace

TEST_CASE("features: include merges overlays in order, the including file wins",
          "[scenario][features]") {
  test_support::TempDir dir("rdmasim_features");
  // a.json and b.json both set the MTU and the switch latency; only a.json sets the RTO and
  // only b.json the ACK coalescing.
  REQUIRE(!dir.write("a.json", R"({"fabric": {"nic": {"mtu": "1000B", "rto": "10us"},
                                              "switch": {"latency": "100ns"}}})")
               .empty());
  REQUIRE(!dir.write("b.json", R"({"fabric": {"nic": {"mtu": "2000B", "ack_every": 3},
                                              "switch": {"latency": "200ns"}}})")
               .empty());
  Json top = Json::parse(R"({
    "include": ["a.json", "b.json"],
    "fabric": {"switch": {"latency": "300ns"}},
    "workload": {"flows": [{"src": "h0", "dst": "h1", "size": "1KB"}]}})");
  top["topology"] = test_support::chain_topology({"100Gbps", "100Gbps"}, {"1us", "1us"});
  const auto file = dir.write("top.json", top.dump());
  REQUIRE(!file.empty());

  const scen::Scenario s = scen::load_scenario_file(file.string());
  CHECK(s.nic.mtu == 2000);                                      // b.json over a.json
  CHECK(s.switch_defaults.latency == sim::parse_time("300ns"));  // top over both
  CHECK(s.nic.rto == sim::parse_time("10us"));                   // only in a.json: kept
  CHECK(s.nic.ack_every == 3);                                   // only in b.json: kept

  // Swapping the order swaps the winner between the overlays.
  top["include"] = {"b.json", "a.json"};
  const auto swapped = dir.write("swapped.json", top.dump());
  const scen::Scenario t = scen::load_scenario_file(swapped.string());
  CHECK(t.nic.mtu == 1000);
  CHECK(t.switch_defaults.latency == sim::parse_time("300ns"));

  // Without its own latency, the top file takes the last overlay's.
  top["fabric"].erase("switch");
  const auto bare = dir.write("bare.json", top.dump());
  CHECK(scen::load_scenario_file(bare.string()).switch_defaults.latency ==
        sim::parse_time("100ns"));
}

TEST_CASE("features: --set creates keys, parses values, addresses array elements",
          "[scenario][features]") {
  Json root = Json::object();
  scen::apply_set(root, "fabric.switch.latency=300ns");  // not JSON: a bare string
  scen::apply_set(root, "fabric.nic.ack_every=4");       // JSON number
  scen::apply_set(root, "fabric.nic.mtu=\"1000B\"");     // JSON string
  scen::apply_set(root, "stop={\"until\": \"time\", \"time\": \"5us\"}");
  scen::apply_set(root, "flag=true");
  CHECK(root["fabric"]["switch"]["latency"] == Json("300ns"));
  CHECK(root["fabric"]["nic"]["ack_every"] == Json(4));
  CHECK(root["fabric"]["nic"]["mtu"] == Json("1000B"));
  CHECK(root["stop"] == Json::parse(R"({"until": "time", "time": "5us"})"));
  CHECK(root["flag"] == Json(true));
  // A later --set replaces an earlier one and leaves the sibling keys alone.
  scen::apply_set(root, "fabric.nic.ack_every=8");
  CHECK(root["fabric"]["nic"] == Json::parse(R"({"ack_every": 8, "mtu": "1000B"})"));

  Json j;
  j["topology"] =
      test_support::chain_topology({"100Gbps", "100Gbps", "100Gbps"}, {"1us", "1us", "1us"});
  j["workload"]["flows"] = {{{"src", "h0"}, {"dst", "h1"}, {"size", "1KB"}}};
  Json a = j;
  scen::apply_set(a, "topology.links[1].rate=400Gbps");
  CHECK(a["topology"]["links"][1]["rate"] == Json("400Gbps"));
  CHECK(a["topology"]["links"][0]["rate"] == Json("100Gbps"));
  CHECK(a["topology"]["links"][2]["rate"] == Json("100Gbps"));
  // The shorthand links[N] means topology.links[N] and adds no top-level "links".
  Json b = j;
  scen::apply_set(b, "links[1].rate=400Gbps");
  CHECK(b == a);
  CHECK_FALSE(b.contains("links"));

  // Through the loader: the link's rate in the built fabric, and only that link's.
  scen::LoadOptions o;
  o.sets = {"links[1].rate=25Gbps", "fabric.switch.latency=123ns"};
  const scen::Scenario s = scen::load_scenario_json(j, ".", o);
  REQUIRE(s.fabric.topo.links.size() == 3);
  CHECK(s.fabric.topo.links[0].rate_bps == 100'000'000'000);
  CHECK(s.fabric.topo.links[1].rate_bps == 25'000'000'000);
  CHECK(s.fabric.topo.links[2].rate_bps == 100'000'000'000);
  CHECK(s.switch_defaults.latency == sim::parse_time("123ns"));
}

TEST_CASE("features: a per-port queue_limit override applies to that port only",
          "[scenario][features]") {
  Json base = incast(4, "200KB");
  base["fabric"]["switch"]["queue_limit"] = "100KB";
  const scen::Scenario probe = test_support::load(base);
  const int rx_port = port_facing(probe, "sw", "h0");
  const int other_port = port_facing(probe, "sw", "h1");
  REQUIRE(rx_port != other_port);

  auto run_with = [&](int port) {
    Json j = base;
    if (port >= 0) {
      j["overrides"] = {{{"switch", "sw"}, {"port", port}, {"set", {{"queue_limit", "20KB"}}}}};
    }
    return scen::run_scenario(test_support::load(j));
  };
  const scen::RunOutcome plain = run_with(-1);
  const scen::RunOutcome on_rx = run_with(rx_port);
  const scen::RunOutcome on_other = run_with(other_port);

  const scen::LinkResult& plain_rx = test_support::link_between(plain, "sw", "h0");
  const scen::LinkResult& capped_rx = test_support::link_between(on_rx, "sw", "h0");
  INFO("tail drops: plain " << plain_rx.tail_drops << ", capped " << capped_rx.tail_drops);
  CHECK(plain_rx.max_queue_bytes > 20'000);  // the 20KB cap would bind
  CHECK(capped_rx.max_queue_bytes <= 20'000);
  CHECK(capped_rx.tail_drops > plain_rx.tail_drops);
  // Every byte still arrives (go-back-N recovers the extra drops).
  CHECK(u(on_rx.results["flows_completed"]) == 4);
  CHECK(u(on_rx.results["payload_bytes_delivered"]) == 4 * 200'000);

  // The same override on a port that only carries ACKs changes nothing at all.
  CHECK(test_support::link_between(on_other, "sw", "h0").tail_drops == plain_rx.tail_drops);
  CHECK(on_other.results == plain.results);
}

TEST_CASE("features: a per-switch latency override moves the FCT by twice the difference",
          "[scenario][features]") {
  // h0 - s1 - s2 - h1 at 300 ns per switch; s1 alone is set to 800 ns. An unloaded flow's
  // last data packet and its ACK each cross s1 once: FCT + 2 x 500 ns exactly (4 x 500 ns
  // if the override leaked to s2 as well).
  Json j;
  j["topology"] =
      test_support::chain_topology({"100Gbps", "100Gbps", "100Gbps"}, {"1us", "1us", "1us"});
  j["fabric"]["switch"] = {{"latency", "300ns"}};
  j["workload"]["flows"] = {{{"src", "h0"}, {"dst", "h1"}, {"size", "20KB"}}};
  const scen::RunOutcome plain = scen::run_scenario(test_support::load(j));
  j["overrides"] = {{{"switch", "s1"}, {"set", {{"latency", "800ns"}}}}};
  const scen::Scenario s = test_support::load(j);
  CHECK(scen::switch_params_for(s, s.fabric.node_by_name("s1")).latency ==
        sim::parse_time("800ns"));
  CHECK(scen::switch_params_for(s, s.fabric.node_by_name("s2")).latency ==
        sim::parse_time("300ns"));
  const scen::RunOutcome slow = scen::run_scenario(s);
  REQUIRE(plain.flows.size() == 1);
  REQUIRE(plain.flows[0].completed);
  REQUIRE(slow.flows[0].completed);
  CHECK(slow.flows[0].fct - plain.flows[0].fct == sim::parse_time("1us"));
}

TEST_CASE("features: a flow's QPs spread over ECMP uplinks by their UDP source ports",
          "[scenario][features]") {
  // 2 leaves, 4 spines, one host per leaf: 4 equal-cost paths h0 -> h1.
  Json j;
  j["topology"] = leaf_spine(2, 4, 1);
  j["fabric"]["nic"] = {{"mtu", "1000B"}};
  j["workload"]["flows"] = {{{"src", "h0"}, {"dst", "h1"}, {"size", "64KB"}}};
  const scen::Scenario probe = test_support::load(j);
  REQUIRE(topo::count_shortest_paths(probe.fabric, topo::compute_routes(probe.fabric), 0, 1) == 4);

  for (int qps : {1, 16}) {
    j["workload"]["flows"][0]["qps"] = qps;
    const scen::RunOutcome out = scen::run_scenario(test_support::load(j));
    INFO(qps << " QPs, " << used_uplinks(out, "leaf0") << " uplinks used");
    REQUIRE(out.flows.size() == 1);
    CHECK(out.flows[0].qps == qps);
    CHECK(out.flows[0].completed);
    CHECK(u(out.results["payload_bytes_delivered"]) == 64'000);
    // Every data packet left leaf0 on some uplink (ACKs travel the other way).
    CHECK(uplink_packets(out, "leaf0") == u(out.results["data_packets_sent"]));
    if (qps == 1) {
      CHECK(used_uplinks(out, "leaf0") == 1);  // one 5-tuple, one path
    } else {
      CHECK(used_uplinks(out, "leaf0") > 1);
    }
  }
}

TEST_CASE("features: ack_every coalesces ACKs, always acknowledging the last packet",
          "[scenario][features]") {
  // 9,500 bytes at a 1,000-byte MTU: 10 packets. The receiver ACKs after every ack_every
  // in-order packets and on the last: 10, ceil(10/4) = 3 (after 4, 8, 10), and 1.
  Json j;
  j["topology"] = test_support::chain_topology({"100Gbps", "100Gbps"}, {"1us", "1us"});
  j["fabric"]["nic"] = {{"mtu", "1000B"}};
  j["workload"]["flows"] = {{{"src", "h0"}, {"dst", "h1"}, {"size", "9500B"}}};
  const std::map<int, uint64_t> expected = {{1, 10}, {4, 3}, {1000, 1}};
  for (const auto& [every, acks] : expected) {
    j["fabric"]["nic"]["ack_every"] = every;
    const scen::RunOutcome out = scen::run_scenario(test_support::load(j));
    INFO("ack_every " << every);
    CHECK(u(out.results["flows_completed"]) == 1);
    CHECK(u(out.results["data_packets_sent"]) == 10);
    CHECK(u(out.counters["control_packets_sent"]) == acks);
    // The ACKs crossed both links back to the sender.
    CHECK(test_support::link_between(out, "s1", "h0").packets == acks);
  }
}

TEST_CASE("features: a failed leaf-spine link carries nothing, traffic takes the other spine",
          "[scenario][features]") {
  Json j;
  j["topology"] = leaf_spine(2, 2, 2);  // h0, h1 on leaf0; h2, h3 on leaf1
  j["fabric"]["nic"] = {{"mtu", "1000B"}};
  j["workload"]["flows"] = Json::array();
  for (const char* src : {"h0", "h1"}) {
    for (const char* dst : {"h2", "h3"}) {
      j["workload"]["flows"].push_back({{"src", src}, {"dst", dst}, {"size", "32KB"}, {"qps", 8}});
    }
  }
  j["stop"] = {{"time", "5ms"}};  // a limit, so that a routing regression fails, not hangs
  // Control: with every link up, both spines carry leaf0's traffic.
  const scen::RunOutcome healthy = scen::run_scenario(test_support::load(j));
  CHECK(test_support::link_between(healthy, "leaf0", "spine0").packets > 0);
  CHECK(test_support::link_between(healthy, "leaf0", "spine1").packets > 0);

  j["link_failures"] = {{{"a", "leaf0"}, {"b", "spine0"}}};
  const scen::RunOutcome out = scen::run_scenario(test_support::load(j));
  for (const auto& [from, to] : {std::pair{"leaf0", "spine0"}, std::pair{"spine0", "leaf0"}}) {
    const scen::LinkResult& l = test_support::link_between(out, from, to);
    INFO(from << " -> " << to);
    CHECK_FALSE(l.up);
    CHECK(l.packets == 0);
    CHECK(l.wire_bytes == 0);
  }
  // All data from leaf0's hosts went up through spine1, and every flow completed.
  CHECK(test_support::link_between(out, "leaf0", "spine1").packets ==
        u(out.results["data_packets_sent"]));
  CHECK(test_support::link_between(out, "leaf0", "spine1").up);
  CHECK(u(out.results["flows_completed"]) == 4);
  CHECK(u(out.results["payload_bytes_delivered"]) == 4 * 32'000);
}

TEST_CASE("features: the port timeseries samples on the interval and accounts for every byte",
          "[scenario][features]") {
  Json j = incast(4, "100KB");
  const int port = port_facing(test_support::load(j), "sw", "h0");
  const std::string label = "sw:" + std::to_string(port);
  const uint64_t kPacketWireBytes = 1000 + 62 + 20;  // MTU payload, headers, framing
  // 1 us, an interval that does not divide the run, and one longer than the whole run (about
  // 36 us): whatever the interval, the samples add up to the link's total.
  for (const char* interval : {"1us", "7us", "100us"}) {
    j["outputs"]["timeseries"] = {{"ports", {label}}, {"interval", interval}};
    const scen::RunOutcome out = scen::run_scenario(test_support::load(j));
    const int64_t step = sim::parse_time(interval).ps;
    INFO("interval " << interval << ", run ended at " << out.end_time.ps << " ps");
    REQUIRE(u(out.results["flows_completed"]) == 4);
    REQUIRE(out.sampled_ports == std::vector<std::string>{label});
    REQUIRE(out.samples.size() >= 2);

    uint64_t tx = 0, peak = 0;
    for (size_t i = 0; i < out.samples.size(); ++i) {
      const auto& smp = out.samples[i];
      INFO("sample " << i << " at " << smp.time.ps << " ps");
      CHECK(smp.port == 0);
      if (i + 1 < out.samples.size()) {
        CHECK(smp.time.ps == static_cast<int64_t>(i) * step);  // 0, 1 interval, 2, ...
      } else {
        // The last covers the partial interval up to the end of the run.
        CHECK(smp.time == out.end_time);
        CHECK(smp.time.ps > static_cast<int64_t>(i - 1) * step);
        CHECK(smp.time.ps <= static_cast<int64_t>(i) * step);
      }
      tx += smp.tx_bytes;
      peak = std::max(peak, smp.queue_bytes);
      // 100 Gb/s is 12.5 bytes per ns; bytes count when a packet starts, so by time t at most
      // t * 12.5 bytes/ns plus the one packet still on the wire.
      CHECK(tx <= static_cast<uint64_t>(smp.time.ps / 80) + kPacketWireBytes);
    }
    const scen::LinkResult& l = test_support::link_between(out, "sw", "h0");
    CHECK(tx == l.wire_bytes);         // the samples add up to the link's total
    CHECK(peak <= l.max_queue_bytes);  // a sample never exceeds the recorded maximum
    if (std::string(interval) == "1us") {
      CHECK(out.samples.size() > 30);
      CHECK(peak > 0);  // four senders into one port queue up
    }
  }
}

TEST_CASE("features: all_to_all and permutation generators through the loader",
          "[scenario][features]") {
  const int n = 5;  // h0..h4
  Json j = star(n - 1);
  j["workload"] = {{"all_to_all", {{"hosts", "all"}, {"size", "2KB"}}}};
  const scen::Scenario a2a = test_support::load(j);
  CHECK(a2a.flows.size() == static_cast<size_t>(n * (n - 1)));
  std::set<std::pair<int, int>> pairs;
  for (const auto& f : a2a.flows) {
    CHECK(f.src_host != f.dst_host);
    CHECK(f.bytes == 2000);
    pairs.insert({f.src_host, f.dst_host});
  }
  CHECK(pairs.size() == static_cast<size_t>(n * (n - 1)));  // every ordered pair once
  const scen::RunOutcome out = scen::run_scenario(a2a);
  CHECK(u(out.results["flows_completed"]) == static_cast<uint64_t>(n * (n - 1)));

  j["workload"] = {{"permutation", {{"hosts", "all"}, {"size", "2KB"}}}};
  const scen::Scenario perm = test_support::load(j);
  REQUIRE(perm.flows.size() == static_cast<size_t>(n));
  std::set<int> senders, receivers;
  for (const auto& f : perm.flows) {
    CHECK(f.src_host != f.dst_host);
    senders.insert(f.src_host);
    receivers.insert(f.dst_host);
  }
  CHECK(senders.size() == static_cast<size_t>(n));    // each host sends once ...
  CHECK(receivers.size() == static_cast<size_t>(n));  // ... and receives once
  CHECK(u(scen::run_scenario(perm).results["flows_completed"]) == static_cast<uint64_t>(n));
}

TEST_CASE("features: poisson websearch arrivals match the offered load", "[scenario][features]") {
  // The mean of the shipped WebSearch CDF, piecewise linear between its points: the sum over
  // segments of (cdf step) x (segment midpoint).
  const std::string cdf_text =
      test_support::read_file(RDMASIM_SOURCE_DIR "/scenarios/data/websearch.cdf");
  REQUIRE(!cdf_text.empty());
  double mean = 0, prev_size = 0, prev_cdf = 0;
  std::istringstream lines(cdf_text);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream w(line);
    double size = 0, cdf = 0;
    w >> size >> cdf;
    mean += (cdf - prev_cdf) * (size + prev_size) / 2;
    prev_size = size;
    prev_cdf = cdf;
  }
  REQUIRE(prev_cdf == 1.0);
  CHECK(std::abs(mean - 1'711'250.0) < 1.0);  // as the file's header states

  // 32 hosts at 100 Gb/s, load 0.3, 200 us: lambda T = 0.3 * 100e9 * 32 / (8 * mean) * 200e-6.
  const int hosts = 32;
  const double per_run = 0.3 * 100e9 * hosts / (8 * mean) * 200e-6;  // about 14 flows
  auto scenario = [&](uint64_t seed) {
    Json j;
    j["seed"] = seed;
    j["topology"] = leaf_spine(4, 2, hosts / 4);
    j["topology"]["fabric_rate"] = "400Gbps";
    j["workload"] = {{"poisson", {{"cdf", "websearch"}, {"load", 0.3}, {"duration", "200us"}}}};
    return test_support::load(j);
  };
  // The count of a Poisson process over many independent seeds is Poisson with mean
  // seeds * lambda T: within 5 standard deviations of it.
  const int seeds = 50;
  size_t total = 0;
  for (int seed = 1; seed <= seeds; ++seed) {
    const scen::Scenario s = scenario(static_cast<uint64_t>(seed));
    total += s.flows.size();
    for (const auto& f : s.flows) {
      CHECK(f.start >= sim::Time(0));
      CHECK(f.start < sim::parse_time("200us"));
      CHECK(f.src_host != f.dst_host);
      CHECK(f.bytes >= 1);
      CHECK(f.bytes <= 30'000'000);
    }
  }
  const double expected = seeds * per_run;
  INFO("flows over " << seeds << " seeds: " << total << ", expected " << expected);
  CHECK(std::abs(static_cast<double>(total) - expected) <= 5 * std::sqrt(expected));

  // One of them simulated: every flow completes and delivers its bytes.
  const scen::Scenario s = scenario(1);
  REQUIRE(!s.flows.empty());
  int64_t bytes = 0;
  for (const auto& f : s.flows) bytes += f.bytes;
  const scen::RunOutcome out = scen::run_scenario(s);
  CHECK(u(out.results["flows_completed"]) == s.flows.size());
  CHECK(out.results["payload_bytes_delivered"].get<int64_t>() == bytes);
}
