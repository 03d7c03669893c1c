// Adaptive routing on InfiniBand: on a k = 8 fat-tree under a random permutation, per-packet
// choice among the equal-cost ports finishes the last flow at least 10 % sooner than static
// routing (per-flow hash, or the subnet manager's LFTs); with AR off every packet arrives in
// order; with AR on some arrive out of order and the receivers still deliver every byte exactly
// once; the same seed gives the same run.
#include <catch2/catch.hpp>
#include <cstdio>
#include <string>

#include "scenario_helpers.hpp"

namespace {

// The shipped comparison's fabric (ib-vs-roce-permutation.json): k = 8 fat-tree, NDR, 100 ns
// cables, 64 KiB VL buffers, a seeded permutation of all 128 hosts.
scen::Json permutation(const std::string& size, bool adaptive, const std::string& routing) {
  scen::Json j;
  j["seed"] = 1;
  j["topology"] = {{"generator", "fat-tree"}, {"k", 8}, {"rate", "400Gbps"}, {"latency", "100ns"}};
  j["fabric"] = "infiniband";
  j["infiniband"] = {{"preset", "ndr"},
                     {"vl_buffer", "64KiB"},
                     {"adaptive_routing", adaptive},
                     {"nic", {{"mtu", "4KiB"}, {"rto", "1ms"}}}};
  j["routing"] = routing;
  j["workload"]["permutation"] = {{"hosts", "all"}, {"size", size}};
  j["stop"] = {{"until", "workload-done"}, {"time", "100ms"}};
  return j;
}

struct Run {
  double last_finish_us = 0;
  uint64_t out_of_order = 0, reroutes = 0, duplicates = 0, retransmitted = 0, nacks = 0;
  int64_t delivered = 0;
  size_t completed = 0;
  std::string results;  // summary.json's "results", all of it
};

Run run(const scen::Json& j) {
  const scen::RunOutcome out = scen::run_scenario(test_support::load(j));
  Run r;
  for (const auto& f : out.flows) {
    if (!f.completed) continue;
    ++r.completed;
    r.last_finish_us = std::max(r.last_finish_us, f.finish.us());
  }
  const scen::Json& res = out.results;
  r.out_of_order = res["routing"]["out_of_order_packets"].get<uint64_t>();
  r.reroutes = res["routing"]["adaptive_reroutes"].get<uint64_t>();
  r.duplicates = res["duplicate_packets"].get<uint64_t>();
  r.retransmitted = res["retransmitted_packets"].get<uint64_t>();
  r.nacks = res["nacks"].get<uint64_t>();
  r.delivered = res["payload_bytes_delivered"].get<int64_t>();
  r.results = res.dump();
  return r;
}

}  // namespace

TEST_CASE("adaptive routing: a k=8 fat-tree permutation ends >= 10 % sooner than static routing",
          "[mechanism][infiniband][adaptive]") {
  const std::string size = "512KB";
  const int64_t all_bytes = int64_t{128} * 512'000;
  const Run hashed = run(permutation(size, false, "shortest-path"));
  const Run lft = run(permutation(size, false, "ftree"));
  const Run ar = run(permutation(size, true, "shortest-path"));
  std::printf(
      "k=8 fat-tree IB permutation of %s: last flow ends at %.3f us with per-flow ECMP, %.3f us "
      "with ftree LFTs, %.3f us with adaptive routing (%llu packets out of order, %llu "
      "rerouted)\n",
      size.c_str(), hashed.last_finish_us, lft.last_finish_us, ar.last_finish_us,
      static_cast<unsigned long long>(ar.out_of_order),
      static_cast<unsigned long long>(ar.reroutes));
  for (const Run* r : {&hashed, &lft, &ar}) {
    REQUIRE(r->completed == 128);
    CHECK(r->delivered == all_bytes);  // every byte, exactly once (conservation is checked too)
    CHECK(r->duplicates == 0);
    CHECK(r->retransmitted == 0);
    CHECK(r->nacks == 0);
  }
  // Static routing: each QP's packets follow one path and arrive in order.
  CHECK(hashed.out_of_order == 0);
  CHECK(lft.out_of_order == 0);
  CHECK(hashed.reroutes == 0);
  // Adaptive: packets of one QP take different paths, some overtake others.
  CHECK(ar.reroutes > 0);
  CHECK(ar.out_of_order > 0);
  CHECK(ar.last_finish_us <= 0.9 * hashed.last_finish_us);
  CHECK(ar.last_finish_us <= 0.9 * lft.last_finish_us);
}

TEST_CASE("adaptive routing: same scenario and seed give the same run",
          "[mechanism][infiniband][adaptive]") {
  const scen::Json j = permutation("128KB", true, "minhop");
  const Run a = run(j), b = run(j);
  CHECK(a.out_of_order > 0);
  CHECK(a.results == b.results);
}

TEST_CASE(
    "adaptive routing on RoCE (fabric.switch.adaptive_routing): sooner, out of order, no NACK",
    "[mechanism][roce][adaptive]") {
  // The same permutation on a lossless RoCE fabric (PFC on priority 3, no ECN): the Ethernet
  // switch's AR reads its egress queues only; NICs accept out-of-order packets.
  auto roce = [](bool adaptive) {
    scen::Json j;
    j["seed"] = 1;
    j["topology"] = {
        {"generator", "fat-tree"}, {"k", 8}, {"rate", "400Gbps"}, {"latency", "100ns"}};
    j["fabric"] = {
        {"switch", {{"latency", "500ns"}, {"buffer", "32MB"}, {"adaptive_routing", adaptive}}},
        {"nic", {{"mtu", "4KiB"}, {"rto", "1ms"}}},
        {"pfc",
         {{"enabled", true}, {"priorities", {3}}, {"xoff", "100KB"}, {"xon_offset", "8KB"}}}};
    j["workload"]["permutation"] = {{"hosts", "all"}, {"size", "1MB"}};
    j["stop"] = {{"until", "workload-done"}, {"time", "100ms"}};
    return j;
  };
  const Run hashed = run(roce(false)), ar = run(roce(true));
  std::printf(
      "k=8 fat-tree RoCE permutation of 1MB: last flow ends at %.3f us with per-flow "
      "ECMP, %.3f us with adaptive routing\n",
      hashed.last_finish_us, ar.last_finish_us);
  for (const Run* r : {&hashed, &ar}) {
    REQUIRE(r->completed == 128);
    CHECK(r->delivered == int64_t{128} * 1'000'000);
    CHECK(r->nacks == 0);
    CHECK(r->retransmitted == 0);
  }
  CHECK(hashed.out_of_order == 0);
  CHECK(ar.out_of_order > 0);
  CHECK(ar.last_finish_us <= 0.9 * hashed.last_finish_us);
}

TEST_CASE("routing: unknown algorithms and non-boolean adaptive_routing are refused with the path",
          "[mechanism][adaptive][lft][input]") {
  auto refused = [](const scen::Json& j, const std::string& path) {
    try {
      (void)test_support::load(j);
      FAIL("accepted: " << j.dump());
    } catch (const scen::InputError& e) {
      CHECK(e.path == path);
    }
  };
  scen::Json j = permutation("4KB", false, "ftree");
  CHECK_NOTHROW(test_support::load(j));
  j["routing"] = "dor";
  refused(j, "routing");
  j = permutation("4KB", false, "minhop");
  j["infiniband"]["adaptive_routing"] = "yes";
  refused(j, "infiniband.adaptive_routing");
  j = permutation("4KB", false, "minhop");
  j["infiniband"]["switch"] = {{"adaptive_routing", true}};  // IB's key is infiniband.*
  refused(j, "infiniband.switch.adaptive_routing");
}
