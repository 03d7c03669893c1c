// NCCL's channel placement on multi-NIC GPU servers (models/collectives/channel_placement.hpp):
// every channel's ring enters and leaves a server through its rail's NIC, the channels spread
// evenly over the NICs, and the ring's last GPU in a server reaches that NIC over NVLink (PXN).
#include <catch2/catch.hpp>
#include <map>

#include "models/collectives/channel_placement.hpp"
#include "scenario_helpers.hpp"

namespace {

// Two servers of `gpus` GPUs with one NIC each, GPU g next to NIC g.
models::PlacementInput two_servers(int gpus, int channels) {
  models::PlacementInput in;
  for (int s = 0; s < 2; ++s) {
    models::ServerRails rails;
    for (int k = 0; k < gpus; ++k) {
      rails.nic_endpoint.push_back(static_cast<uint32_t>(100 + s * gpus + k));
      rails.nic_gpu.push_back(k);
      rails.nic_gpu_nvlink.push_back(static_cast<uint32_t>(200 + s * gpus + k));
    }
    in.servers.push_back(rails);
    for (int g = 0; g < gpus; ++g) {
      in.rank_server.push_back(s);
      in.rank_local_gpu.push_back(g);
    }
  }
  in.channels = channels;
  return in;
}

// `servers` dgx-h100-like servers (8 GPUs, 8 NICs at 400 Gb/s) on a non-blocking rail
// fabric; a ring all-reduce of `size` on every GPU.
scen::Json rail_allreduce(int servers, int64_t size, const scen::Json& extra) {
  scen::Json j;
  j["name"] = "nccl-channels";
  j["topology"] = {
      {"generator", "rail"},       {"nodes", {{"count", servers}, {"preset", "dgx-h100"}}},
      {"nodes_per_leaf", servers}, {"spines", 1},
      {"fabric_rate", "400Gbps"},  {"host_latency", "500ns"},
      {"fabric_latency", "500ns"}};
  j["fabric"]["switch"] = {{"latency", "600ns"}, {"buffer", "32MB"}};
  j["fabric"]["pfc"] = {{"enabled", true}, {"priorities", {3}}};
  j["workload"]["collective"] = {{"op", "all_reduce"},
                                 {"algorithm", "ring"},
                                 {"size", size},
                                 {"channels", 16},
                                 {"chunk", "512KiB"}};
  for (const auto& [k, v] : extra.items()) j["workload"]["collective"][k] = v;
  return j;
}

}  // namespace

TEST_CASE("NCCL placement: each channel's ring enters at its rail's GPU, rails used evenly",
          "[mechanism][nccl][channels]") {
  const models::PlacementInput in = two_servers(8, 16);
  const std::vector<models::ChannelLayout> rings = models::nccl_ring_layouts(in);
  REQUIRE(rings.size() == 16);
  std::map<int, int> per_rail;
  for (int c = 0; c < 16; ++c) {
    const models::ChannelLayout& l = rings[c];
    const int rail = c % 8;
    CHECK(l.entry_rail == std::vector<int>{rail, rail});
    CHECK(l.exit_rail == std::vector<int>{rail, rail});
    ++per_rail[rail];
    REQUIRE(l.ring.size() == 16);
    // Server 0 from the rail's GPU down (G, G-1, ..., G+1), then server 1 likewise.
    for (int i = 0; i < 8; ++i) {
      CHECK(l.ring[i] == static_cast<uint32_t>((rail - i + 8) % 8));
      CHECK(l.ring[8 + i] == static_cast<uint32_t>(8 + (rail - i + 8) % 8));
    }
  }
  CHECK(per_rail.size() == 8);
  for (const auto& [rail, count] : per_rail) CHECK(count == 2);
  // One server: nothing to place (the ring stays in rank order).
  models::PlacementInput one = in;
  for (int& s : one.rank_server) s = 0;
  CHECK(models::nccl_ring_layouts(one).empty());
  // Half the GPUs of each server: only the rails whose GPU is a rank on both servers.
  models::PlacementInput half = in;
  half.rank_server = {0, 0, 0, 0, 1, 1, 1, 1};
  half.rank_local_gpu = {0, 2, 4, 6, 0, 2, 4, 5};
  CHECK(models::usable_rails(half) == std::vector<int>{0, 2, 4});
  const auto rings_half = models::nccl_ring_layouts(half);
  REQUIRE(rings_half.size() == 16);
  CHECK(rings_half[1].entry_rail == std::vector<int>{2, 2});
  CHECK(rings_half[1].ring == std::vector<uint32_t>{1, 0, 3, 2, 5, 4, 7, 6});
}

TEST_CASE("NCCL placement without PXN: paired channels leave by the last GPU's own NIC",
          "[mechanism][nccl][channels]") {
  models::PlacementInput in = two_servers(8, 16);
  in.pxn = false;
  const std::vector<models::ChannelLayout> rings = models::nccl_ring_layouts(in);
  REQUIRE(rings.size() == 16);
  // Channel 0: in by NIC 0 at GPU 0, down to GPU 1, out by GPU 1's NIC; server 1 runs channel
  // 1's ring (channel 0 reversed): in by NIC 1 at GPU 1, up to GPU 0, out by NIC 0. Every hop
  // between servers stays on one rail.
  CHECK(rings[0].ring ==
        std::vector<uint32_t>{0, 7, 6, 5, 4, 3, 2, 1, 9, 10, 11, 12, 13, 14, 15, 8});
  CHECK(rings[0].entry_rail == std::vector<int>{0, 1});
  CHECK(rings[0].exit_rail == std::vector<int>{1, 0});
  CHECK(rings[1].entry_rail == std::vector<int>{1, 0});
  CHECK(rings[1].exit_rail == std::vector<int>{0, 1});
  std::map<int, int> sends;
  for (const auto& l : rings) {
    for (int s = 0; s < 2; ++s) {
      CHECK(l.exit_rail[s] == l.entry_rail[1 - s]);
      ++sends[s * 8 + l.exit_rail[s]];
    }
  }
  CHECK(sends.size() == 16);
  for (const auto& [nic, count] : sends) CHECK(count == 2);
  CHECK(models::nccl_ring_channels(in) == 16);
}

TEST_CASE("NCCL placement: a 2 x 8 H100 ring all-reduce reaches the eight NICs' rate, evenly",
          "[mechanism][slow][nccl][channels]") {
  const int64_t size = int64_t{256} << 20;
  // The NICs' rate alone: without NCCL's software costs (their fill is another test's).
  const scen::Scenario s = test_support::load(rail_allreduce(2, size, {{"costs", "none"}}));
  const scen::RunOutcome out = scen::run_scenario(s);
  REQUIRE(out.collectives.size() == 1);
  const models::CollectiveResult& r = out.collectives[0];
  // A NIC's payload rate: 400 Gb/s × MTU over the wire bytes each data packet costs its link:
  // the packet with headers and framing, and the ACK the link carries back for the ring's
  // other direction (one per ack_every packets), as RoCEv2 RC does.
  const double ack_wire =
      static_cast<double>(s.nic.header_bytes + s.nic.ack_payload_bytes + s.nic.framing_bytes) /
      static_cast<double>(s.nic.ack_every);
  const double wire =
      static_cast<double>(s.nic.mtu + s.nic.header_bytes + s.nic.framing_bytes) + ack_wire;
  const double nic_payload_gbyte = 400.0 / 8 * static_cast<double>(s.nic.mtu) / wire;
  INFO("busbw " << r.busbw_gbps() << " GB/s, 8 NICs' payload " << 8 * nic_payload_gbyte);
  CHECK(r.busbw_gbps() >= 0.95 * 8 * nic_payload_gbyte);
  // Every NIC of both servers sends the same bytes, within 1 %.
  uint64_t lo = UINT64_MAX, hi = 0;
  for (int server = 0; server < 2; ++server) {
    for (int rail = 0; rail < 8; ++rail) {
      const std::string nic = "n" + std::to_string(server) + "r" + std::to_string(rail);
      const uint64_t bytes =
          test_support::link_between(out, nic, "rail" + std::to_string(rail) + "_leaf0").wire_bytes;
      lo = std::min(lo, bytes);
      hi = std::max(hi, bytes);
    }
  }
  INFO("per-NIC bytes " << lo << " .. " << hi);
  CHECK(lo > 0);
  CHECK(static_cast<double>(hi - lo) <= 0.01 * static_cast<double>(hi));
  // Bytes: per channel 16 ring edges of 2(n-1)/n × S/16, two of them between servers; with
  // PXN the ring's last GPU in each server also crosses NVLink to the NIC's GPU.
  CHECK(r.network_bytes == 2 * 2 * 15 * size / 16);
  CHECK(r.nvlink_bytes == 8 * r.network_bytes);
  CHECK(r.wire_bytes == r.nvlink_bytes + r.network_bytes);
  for (int rank = 0; rank < 16; ++rank) CHECK(r.rank_data_sent[rank] == 2 * 15 * size / 16);

  // Without the placement, every channel crosses between servers through one GPU pair and
  // one NIC: about one NIC's rate.
  const scen::Scenario flat =
      test_support::load(rail_allreduce(2, size, {{"channel_placement", "rank-order"}}));
  const scen::RunOutcome flat_out = scen::run_scenario(flat);
  INFO("rank-order busbw " << flat_out.collectives[0].busbw_gbps());
  CHECK(flat_out.collectives[0].busbw_gbps() < 1.2 * nic_payload_gbyte);
}

TEST_CASE("NCCL placement: PXN hands the data over NVLink, without it the NIC reads it itself",
          "[mechanism][nccl][channels]") {
  const int64_t size = int64_t{4} << 20;
  const scen::RunOutcome with =
      scen::run_scenario(test_support::load(rail_allreduce(2, size, scen::Json::object())));
  const scen::RunOutcome without =
      scen::run_scenario(test_support::load(rail_allreduce(2, size, {{"pxn", false}})));
  const models::CollectiveResult& a = with.collectives[0];
  const models::CollectiveResult& b = without.collectives[0];
  CHECK(a.network_bytes == b.network_bytes);
  CHECK(a.nvlink_bytes == 8 * a.network_bytes);
  CHECK(b.nvlink_bytes == 7 * b.network_bytes);
  // Same result, deterministic.
  const scen::RunOutcome again =
      scen::run_scenario(test_support::load(rail_allreduce(2, size, scen::Json::object())));
  CHECK(again.collectives[0].time == a.time);
}

TEST_CASE("NCCL placement keys are refused on plain hosts", "[mechanism][nccl][channels]") {
  scen::Json j;
  j["name"] = "plain";
  j["topology"] = test_support::star(4);
  j["workload"]["collective"] = {{"op", "all_reduce"}, {"size", "1MiB"}, {"pxn", false}};
  try {
    (void)test_support::load(j);
    FAIL("loaded");
  } catch (const scen::InputError& e) {
    CHECK(std::string(e.what()).find("workload.collective.pxn") != std::string::npos);
  }
}

TEST_CASE("NCCL trees: a chain per server from the channel's NIC GPU, the servers' binary tree",
          "[mechanism][nccl][tree]") {
  const models::PlacementInput in = two_servers(8, 16);
  const std::vector<models::ChannelLayout> trees = models::nccl_tree_layouts(in);
  REQUIRE(trees.size() == 16);
  for (int c = 0; c < 16; ++c) {
    const int rail = c % 8;
    CHECK(trees[c].entry_rail == std::vector<int>{rail, rail});
    CHECK(trees[c].exit_rail == std::vector<int>{rail, rail});
    for (int i = 0; i < 8; ++i) {
      CHECK(trees[c].ring[i] == static_cast<uint32_t>((rail - i + 8) % 8));
      CHECK(trees[c].ring[8 + i] == static_cast<uint32_t>(8 + (rail - i + 8) % 8));
    }
  }
  // One server: a chain, no rail.
  models::PlacementInput one = in;
  one.rank_server.assign(8, 0);
  one.rank_local_gpu = {0, 1, 2, 3, 4, 5, 6, 7};
  const auto chains = models::nccl_tree_layouts(one);
  REQUIRE(chains.size() == 16);
  CHECK(chains[0].entry_rail[0] == -1);
  CHECK(chains[0].ring == std::vector<uint32_t>{0, 7, 6, 5, 4, 3, 2, 1});
}

TEST_CASE("NCCL trees: on 2 x 8 H100 the tree's busbw passes the ring's, chains over NVLink",
          "[mechanism][slow][nccl][tree]") {
  const int64_t size = int64_t{256} << 20;
  const scen::RunOutcome tree = scen::run_scenario(
      test_support::load(rail_allreduce(2, size, {{"algorithm", "double_binary_tree"}})));
  const scen::RunOutcome ring =
      scen::run_scenario(test_support::load(rail_allreduce(2, size, scen::Json::object())));
  const models::CollectiveResult& t = tree.collectives[0];
  const models::CollectiveResult& r = ring.collectives[0];
  INFO("tree busbw " << t.busbw_gbps() << " GB/s, ring " << r.busbw_gbps());
  // busbw's factor 2(n-1)/n assumes ring traffic; the tree sends S across the servers each way
  // (one child server, one root) and is bound by the chains' NVLink instead.
  CHECK(t.busbw_gbps() > 1.05 * r.busbw_gbps());
  // Per channel of S/16: the child server's chain top sends it up, the root's sends it down;
  // each server's chain of 8 moves it 7 hops up and 7 down over NVLink.
  CHECK(t.network_bytes == 2 * size);
  CHECK(t.nvlink_bytes == 2 * 2 * 7 * size);
  // Every NIC carries the same bytes (16 channels, two per rail).
  uint64_t lo = UINT64_MAX, hi = 0;
  for (int server = 0; server < 2; ++server) {
    for (int rail = 0; rail < 8; ++rail) {
      const uint64_t bytes = test_support::link_between(
                                 tree, "n" + std::to_string(server) + "r" + std::to_string(rail),
                                 "rail" + std::to_string(rail) + "_leaf0")
                                 .wire_bytes;
      lo = std::min(lo, bytes);
      hi = std::max(hi, bytes);
    }
  }
  CHECK(static_cast<double>(hi - lo) <= 0.01 * static_cast<double>(hi));
}

TEST_CASE("calibrated NIC parameters never touch NVLink", "[mechanism][nccl][nvlink]") {
  // One dgx-h100: a ring all-reduce over NVLink only. A NIC send engine fitted on a slower NIC
  // (max_send_rate, message_overhead, message rate) and a slow host receive path must not
  // change it: NVLink endpoints are GPU memory, not NICs.
  auto run = [](const scen::Json& nic) {
    scen::Json j = rail_allreduce(1, int64_t{16} << 20, scen::Json::object());
    j["topology"]["nodes_per_leaf"] = 1;
    for (const auto& [k, v] : nic.items()) j["fabric"]["nic"][k] = v;
    return scen::run_scenario(test_support::load(j)).collectives[0];
  };
  const models::CollectiveResult plain = run(scen::Json::object());
  const models::CollectiveResult fitted = run({{"max_send_rate", "23Gbps"},
                                               {"message_overhead", "2us"},
                                               {"max_message_rate", 100000},
                                               {"rx_drain_rate", "10Gbps"}});
  CHECK(plain.nvlink_bytes > 0);
  CHECK(plain.network_bytes == 0);
  INFO("plain " << plain.time.us() << " us, with NIC limits " << fitted.time.us() << " us");
  CHECK(fitted.time == plain.time);
}
