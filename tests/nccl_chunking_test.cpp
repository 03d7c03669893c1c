// NCCL's chunk per call (models/collectives/nccl_chunking.hpp, calcCollChunking in NVIDIA/nccl
// src/enqueue.cc): the values its buffers and chunk steps give, the tree LL128 shrink, and the
// loader's "chunk": "auto" — NCCL's chunk on GPU ranks, one message per step on plain hosts.
#include "models/collectives/nccl_chunking.hpp"

#include <catch2/catch.hpp>
#include <string>

#include "scenario_helpers.hpp"
#include "scenarios/loader/scenario.hpp"
#include "scenarios/run/run_scenario.hpp"

namespace {

using models::CollectiveAlgorithm;
using models::CollectiveOp;
using models::CollectiveProtocol;

int64_t chunk(CollectiveAlgorithm a, CollectiveProtocol p,
              CollectiveOp op = CollectiveOp::AllReduce, int64_t bytes = int64_t{1} << 30,
              int channels = 2, int ranks = 128, int nodes = 16) {
  models::NcclChunkingInput in;
  in.op = op;
  in.algorithm = a;
  in.protocol = p;
  in.bytes = bytes;
  in.channels = channels;
  in.ranks = ranks;
  in.nodes = nodes;
  return models::nccl_chunk_bytes(in);
}

// One dgx-h100: a ring all-reduce of `size` over NVLink, with `chunk` as given (or absent).
scen::Json one_server(int64_t size, const scen::Json& chunk_value) {
  scen::Json j;
  j["name"] = "nccl-chunking";
  j["topology"] = {{"generator", "rail"},
                   {"nodes", {{"count", 1}, {"preset", "dgx-h100"}}},
                   {"nodes_per_leaf", 1},
                   {"spines", 1},
                   {"fabric_rate", "400Gbps"}};
  j["workload"]["collective"] = {
      {"op", "all_reduce"}, {"algorithm", "ring"}, {"size", size}, {"channels", 1}};
  if (!chunk_value.is_null()) j["workload"]["collective"]["chunk"] = chunk_value;
  return j;
}

}  // namespace

TEST_CASE("NCCL chunking: buffer / NCCL_STEPS x chunk steps, per protocol",
          "[unit][nccl][chunking]") {
  // Simple: 4 MiB / 8 = 512 KiB a step; a ring of all-reduce, all-gather, reduce-scatter
  // takes NCCL_STEPS / 2 = 4 steps a chunk, every other algorithm or op one.
  CHECK(chunk(CollectiveAlgorithm::Ring, CollectiveProtocol::Simple) == 2 * 1024 * 1024);
  CHECK(chunk(CollectiveAlgorithm::Ring, CollectiveProtocol::Simple, CollectiveOp::AllGather) ==
        2 * 1024 * 1024);
  CHECK(chunk(CollectiveAlgorithm::Ring, CollectiveProtocol::Simple, CollectiveOp::Broadcast) ==
        512 * 1024);
  CHECK(chunk(CollectiveAlgorithm::DoubleBinaryTree, CollectiveProtocol::Simple) == 512 * 1024);
  // LL: 64 KiB of lines a step, half of it data.
  CHECK(chunk(CollectiveAlgorithm::Ring, CollectiveProtocol::LL) == 32 * 1024);
  CHECK(chunk(CollectiveAlgorithm::DoubleBinaryTree, CollectiveProtocol::LL) == 32 * 1024);
  // LL128: 614,400 B a step, 15 of 16 words data.
  CHECK(chunk(CollectiveAlgorithm::Ring, CollectiveProtocol::LL128) == 576'000);
  // Not NCCL's algorithms: one message per step.
  CHECK(chunk(CollectiveAlgorithm::Hierarchical, CollectiveProtocol::Simple) == 0);
  CHECK(chunk(CollectiveAlgorithm::HalvingDoubling, CollectiveProtocol::Simple) == 0);
  CHECK(chunk(CollectiveAlgorithm::Direct, CollectiveProtocol::Simple, CollectiveOp::AllToAll) ==
        0);
}

TEST_CASE("NCCL chunking: the tree's LL128 chunk shrinks for small sizes",
          "[unit][nccl][chunking]") {
  // 16 nodes x 8 ranks, 2 channels: (1 + log2 16 + 0.1 x 8) x 64 / 8 = 46.4 chunks a channel
  // wanted. 1 GiB has 932 of 576,000 B: unchanged. 4 MiB has 3: halved while above 128 KiB
  // (288,000, 144,000, 72,000), then 29 >= 11.6 chunks: 72,000.
  CHECK(chunk(CollectiveAlgorithm::DoubleBinaryTree, CollectiveProtocol::LL128) == 576'000);
  CHECK(chunk(CollectiveAlgorithm::DoubleBinaryTree, CollectiveProtocol::LL128,
              CollectiveOp::AllReduce, 4 << 20) == 72'000);
  // 64 KiB: down to the 32 KiB floor (second loop: 64 KiB / (2 x 36,000) = 0 < 11.6).
  CHECK(chunk(CollectiveAlgorithm::DoubleBinaryTree, CollectiveProtocol::LL128,
              CollectiveOp::AllReduce, 64 << 10) == 18'000);
  // The ring's LL128 chunk does not shrink.
  CHECK(chunk(CollectiveAlgorithm::Ring, CollectiveProtocol::LL128, CollectiveOp::AllReduce,
              64 << 10) == 576'000);
}

TEST_CASE("NCCL chunking: NVLS and NVLS-tree shrink their chunk for small calls",
          "[unit][nccl][chunking][nvls]") {
  using models::nccl_nvls_chunk_bytes;
  const int64_t MiB = int64_t{1} << 20;
  // One dgx-h100: 16 NVLS channels x 8 heads = 128 concurrent operations. 128 KiB from
  // 64 x 128 x 128 KiB = 1 GiB, 64 KiB from 8 x 128 x 64 KiB = 64 MiB, 32 KiB from
  // 2 x 128 x 32 KiB = 8 MiB, 16 KiB below.
  CHECK(nccl_nvls_chunk_bytes(false, 1024 * MiB, 8, 1) == 128 * 1024);
  CHECK(nccl_nvls_chunk_bytes(false, 1024 * MiB - 1, 8, 1) == 64 * 1024);
  CHECK(nccl_nvls_chunk_bytes(false, 64 * MiB, 8, 1) == 64 * 1024);
  CHECK(nccl_nvls_chunk_bytes(false, 64 * MiB - 1, 8, 1) == 32 * 1024);
  CHECK(nccl_nvls_chunk_bytes(false, 8 * MiB, 8, 1) == 32 * 1024);
  CHECK(nccl_nvls_chunk_bytes(false, 8 * MiB - 1, 8, 1) == 16 * 1024);
  CHECK(nccl_nvls_chunk_bytes(false, 1024, 8, 1) == 16 * 1024);
  // NVLS-tree on 2 servers of 8 rails: 128 KiB from 4 x 128 x 128 KiB = 64 MiB, 64 KiB from
  // 1 x 128 x 64 KiB = 8 MiB, 32 KiB below; from 4 servers at most 64 KiB.
  CHECK(nccl_nvls_chunk_bytes(true, 64 * MiB, 8, 2) == 128 * 1024);
  CHECK(nccl_nvls_chunk_bytes(true, 64 * MiB - 1, 8, 2) == 64 * 1024);
  CHECK(nccl_nvls_chunk_bytes(true, 8 * MiB, 8, 2) == 64 * 1024);
  CHECK(nccl_nvls_chunk_bytes(true, 8 * MiB - 1, 8, 2) == 32 * 1024);
  CHECK(nccl_nvls_chunk_bytes(true, 1024 * MiB, 8, 4) == 64 * 1024);
  CHECK(nccl_nvls_chunk_bytes(true, 4 * MiB, 8, 4) == 32 * 1024);
}

TEST_CASE("NCCL chunking: CollNet Direct and Chain shrink their chunk for small calls",
          "[unit][nccl][chunking][collnet]") {
  using models::nccl_collnet_chunk_bytes;
  const int64_t MiB = int64_t{1} << 20;
  // Direct on 16 channels x 8 heads (128 concurrent chunks), 8 GPUs a server (depth 2):
  // 512 KiB from 128 x 128 x 512 KiB = 8 GiB, halving down to 128 KiB while below 128 chunks
  // a head and channel, to 64 then 32 KiB while below 16.
  CHECK(nccl_collnet_chunk_bytes(true, 8192 * MiB, 16, 8, 8) == 512 * 1024);
  CHECK(nccl_collnet_chunk_bytes(true, 8192 * MiB - 1, 16, 8, 8) == 256 * 1024);
  CHECK(nccl_collnet_chunk_bytes(true, 1024 * MiB, 16, 8, 8) == 128 * 1024);
  CHECK(nccl_collnet_chunk_bytes(true, 128 * MiB, 16, 8, 8) == 64 * 1024);
  CHECK(nccl_collnet_chunk_bytes(true, 64 * MiB, 16, 8, 8) == 32 * 1024);
  CHECK(nccl_collnet_chunk_bytes(true, 1 * MiB, 16, 8, 8) == 32 * 1024);
  // Chain on 16 channels, 8 GPUs a server (depth 8): at most 256 KiB; 128 KiB below
  // 512 x 16 x 256 KiB = 2 GiB, 64 KiB below 64 x 16 x 128 KiB = 128 MiB, 32 KiB below
  // 8 x 16 x 64 KiB = 8 MiB.
  CHECK(nccl_collnet_chunk_bytes(false, 2048 * MiB, 16, 8, 8) == 256 * 1024);
  CHECK(nccl_collnet_chunk_bytes(false, 2048 * MiB - 1, 16, 8, 8) == 128 * 1024);
  CHECK(nccl_collnet_chunk_bytes(false, 128 * MiB, 16, 8, 8) == 128 * 1024);
  CHECK(nccl_collnet_chunk_bytes(false, 128 * MiB - 1, 16, 8, 8) == 64 * 1024);
  CHECK(nccl_collnet_chunk_bytes(false, 8 * MiB, 16, 8, 8) == 64 * 1024);
  CHECK(nccl_collnet_chunk_bytes(false, 8 * MiB - 1, 16, 8, 8) == 32 * 1024);
}

TEST_CASE("NVLS: each call runs on NCCL's chunk, and small chunks cost the per-chunk time",
          "[mechanism][nvls][chunking]") {
  // One dgx-h100, NVLS at 4 MiB (NCCL's chunk: 16 KiB) with and without the NVSwitch's
  // per-chunk cost: the difference is the cost times the chunks (4 MiB / 16 KiB = 256), as the
  // reduction unit is the bottleneck. collectives.csv names the chunk.
  auto run = [](const scen::Json& nodes, const scen::Json& extra) {
    scen::Json j;
    j["name"] = "nvls-chunks";
    j["topology"] = {{"generator", "leaf-spine"},
                     {"nodes", nodes},
                     {"leaves", 1},
                     {"spines", 1},
                     {"hosts_per_leaf", 8}};
    j["workload"]["collective"] = {
        {"op", "all_reduce"}, {"algorithm", "nvls"}, {"size", "4MiB"}, {"costs", "none"}};
    for (const auto& [k, v] : extra.items()) j["workload"]["collective"][k] = v;
    const scen::RunOutcome o = scen::run_scenario(test_support::load(j));
    REQUIRE(o.collectives.size() == 1);
    return o.collectives[0];
  };
  const scen::Json h100 = {{"count", 1}, {"preset", "dgx-h100"}};
  scen::Json free_chunks = h100;
  free_chunks["nvls_chunk_cost"] = "0ns";
  const models::CollectiveResult with = run(h100, scen::Json::object());
  const models::CollectiveResult without = run(free_chunks, scen::Json::object());
  CHECK(with.chunk_bytes == 16 * 1024);
  const double extra_us = static_cast<double>((with.time - without.time).ps) / 1e6;
  INFO("per-chunk cost adds " << extra_us << " us");
  CHECK(extra_us == Approx(256 * 0.059).epsilon(0.02));
  // A chunk given by the collective is kept: 128 KiB, 32 chunks.
  const models::CollectiveResult fixed = run(h100, {{"chunk", "128KiB"}});
  CHECK(fixed.chunk_bytes == 128 * 1024);
  CHECK(fixed.time < with.time);
}

TEST_CASE("NCCL chunking: auto is NCCL's chunk on GPU ranks, and it pipelines the ring",
          "[unit][nccl][chunking]") {
  const int64_t size = 64 << 20;  // 8 MiB a step on 8 ranks and one channel: 4 NCCL chunks
  const scen::Scenario s = test_support::load(one_server(size, nullptr));
  REQUIRE(s.collectives.size() == 1);
  CHECK(s.collectives[0].chunk_bytes == models::kNcclChunk);
  const scen::RunOutcome nccl = scen::run_scenario(s);
  const scen::RunOutcome whole = scen::run_scenario(test_support::load(one_server(size, "0B")));
  REQUIRE(nccl.collectives.size() == 1);
  REQUIRE(whole.collectives.size() == 1);
  CHECK(nccl.collectives[0].chunk_bytes == 2 * 1024 * 1024);
  CHECK(whole.collectives[0].chunk_bytes == 0);
  // Chunks overlap a step's receive with the next hop's send: the pipelined ring is faster.
  INFO("nccl " << nccl.collectives[0].time.us() << " us, one message per step "
               << whole.collectives[0].time.us() << " us");
  CHECK(nccl.collectives[0].time.ps < whole.collectives[0].time.ps * 0.95);
  CHECK(nccl.collectives[0].messages > whole.collectives[0].messages);
}
