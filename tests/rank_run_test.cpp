// A run split over processes (sim/rank_exchange.hpp, Simulator::set_ranks): each process runs
// its own partitions and ships the events crossing into another's by value between windows.
// Here the processes are in-process ranks (sim/local_ranks.hpp), threads of the test; the same
// fabric over MPI ranks is tests/mpi/rank_ring_main.cpp, run by the last test. Scenarios over
// processes: tests/rank_scenarios_test.cpp.
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cli_runner.hpp"
#include "rank_ring.hpp"
#include "sim/local_ranks.hpp"
#include "temp_dir.hpp"

namespace {

struct RankResult {
  std::string trace;
  std::string error;
};

// The ring of `nodes` over `partitions` partitions, its partitions on ranks `rank_of`, each
// rank on a thread of its own with `threads` threads for its partitions; `tune` changes each
// rank's ring before it runs.
std::vector<RankResult> run_over_ranks(uint32_t nodes, const std::vector<uint32_t>& rank_of,
                                       uint32_t ranks, uint32_t threads,
                                       const std::function<void(rank_ring::Ring&)>& tune = {}) {
  sim::LocalRanks group(ranks);
  std::vector<RankResult> results(ranks);
  std::vector<std::thread> processes;
  for (uint32_t r = 0; r < ranks; ++r) {
    processes.emplace_back([&, r] {
      try {
        rank_ring::Ring ring(nodes, static_cast<uint32_t>(rank_of.size()), &group.rank(r), rank_of);
        ring.sim.set_threads(threads);
        if (tune) tune(ring);
        const sim::StopReason reason = ring.sim.run();
        results[r].trace = ring.trace(reason);
      } catch (const std::exception& e) {
        results[r].error = e.what();
      }
      group.leave(r);  // a rank whose run went on past this one's fails rather than waits
    });
  }
  for (auto& p : processes) p.join();
  return results;
}

std::string run_alone(uint32_t nodes, uint32_t partitions, uint32_t threads,
                      const std::function<void(rank_ring::Ring&)>& tune = {}) {
  rank_ring::Ring ring(nodes, partitions);
  ring.sim.set_threads(threads);
  if (tune) tune(ring);
  return ring.trace(ring.sim.run());
}

// The processes' traces put together are the single run's: every node's events, in order, and
// the same end in every process.
void check_same(const std::string& alone, const std::vector<RankResult>& ranks) {
  rank_ring::ParsedTrace one, all;
  rank_ring::parse_trace(alone, one);
  REQUIRE(one.nodes.size() > 4);
  for (const RankResult& r : ranks) {
    REQUIRE(r.error.empty());
    rank_ring::ParsedTrace mine;
    rank_ring::parse_trace(r.trace, mine);
    CHECK(mine.end == one.end);
    for (auto& [node, lines] : mine.nodes) {
      CHECK(all.nodes.count(node) == 0);  // each node is one process's
      all.nodes[node] = lines;
    }
  }
  CHECK(all.nodes == one.nodes);
}

}  // namespace

TEST_CASE("ranks: a run split over processes gives every node the events of one list",
          "[unit][split][ranks]") {
  const std::string alone = run_alone(12, 1, 1);
  INFO(alone.substr(alone.rfind("end ")));
  // Tokens went round the ring many times, crossing between partitions at every third node.
  CHECK(alone.size() > 20'000);
  CHECK(run_alone(12, 4, 2) == alone);
  // Partitions alternate between the ranks: every crossing is between processes.
  check_same(alone, run_over_ranks(12, {0, 1, 0, 1}, 2, 1));
  check_same(alone, run_over_ranks(12, {0, 1, 0, 1}, 2, 2));
  // Uneven: one rank with three partitions on two threads, another with one.
  check_same(alone, run_over_ranks(12, {1, 1, 0, 1}, 2, 1));
  check_same(alone, run_over_ranks(12, {0, 1, 1, 2}, 3, 1));
}

TEST_CASE("ranks: a stop asked for in one process ends every process at the same event",
          "[unit][split][ranks]") {
  auto stop_at_node_7 = [](rank_ring::Ring& r) { r.node[7]->stop_after = 25; };
  const std::string alone = run_alone(12, 1, 1, stop_at_node_7);
  CHECK(alone.find("reason workload-done") != std::string::npos);
  check_same(alone, run_over_ranks(12, {0, 1, 0, 1}, 2, 1, stop_at_node_7));
  // A time limit: every process ends at it, the events before it run.
  rank_ring::Ring limited(12, 1);
  const std::string until = limited.trace(limited.sim.run(sim::Time(1'234'567)));
  CHECK(until.find("reason time-limit") != std::string::npos);
  sim::LocalRanks group(2);
  std::vector<std::string> traces(2);
  std::vector<std::thread> processes;
  for (uint32_t r = 0; r < 2; ++r) {
    processes.emplace_back([&, r] {
      rank_ring::Ring ring(12, 4, &group.rank(r), {0, 1, 0, 1});
      traces[r] = ring.trace(ring.sim.run(sim::Time(1'234'567)));
      group.leave(r);
    });
  }
  for (auto& p : processes) p.join();
  check_same(until, {{traces[0], ""}, {traces[1], ""}});
}

TEST_CASE("ranks: an event that cannot cross processes fails every process, with the reason",
          "[unit][split][ranks]") {
  // Node 3's successor, node 4, is in partition 1 (rank 1); a nudge (kind 2, which Node does
  // not ship) sent to it from partition 0 cannot cross.
  struct Nudger final : sim::EventHandler {
    Nudger(sim::Simulator& s, sim::EventHandler& to) : EventHandler(s), sim(s), to(to) {}
    void on_event(uint32_t, uint64_t) override { sim.after(sim::Time(20'000), &to, 2, 9); }
    sim::Simulator& sim;
    sim::EventHandler& to;
  };
  std::vector<std::unique_ptr<Nudger>> keep(2);  // [rank]
  const auto results = run_over_ranks(12, {0, 1, 0, 1}, 2, 1, [&](rank_ring::Ring& r) {
    r.sim.set_building_partition(0);
    auto n = std::make_unique<Nudger>(r.sim, *r.node[4]);
    r.sim.at(sim::Time(50'000), n.get(), 0);
    keep[r.sim.is_local(0) ? 0 : 1] = std::move(n);
  });
  REQUIRE(results.size() == 2);
  CHECK(results[0].error.find("does not say how to ship it") != std::string::npos);
  INFO(results[1].error << results[1].trace);
  CHECK(results[1].error.find("another process of it (rank) failed") != std::string::npos);
}

TEST_CASE("ranks: partitions and ranks that do not fit are refused", "[unit][split][ranks]") {
  sim::LocalRanks group(2);
  sim::Simulator s(1);
  CHECK_THROWS_WITH(s.set_ranks(group.rank(0), {0, 1}),
                    Catch::Contains("a rank for each of the 1 partitions"));
  s.split(3, sim::Time(1'000));
  CHECK_THROWS_WITH(s.set_ranks(group.rank(0), {0, 0, 0}),
                    Catch::Contains("rank 1 holds no partition"));
  CHECK_THROWS_WITH(s.set_ranks(group.rank(0), {0, 2, 1}), Catch::Contains("on rank 2 of 2"));
  s.set_ranks(group.rank(0), {0, 1, 1});
  CHECK(s.is_local(0));
  CHECK_FALSE(s.is_local(1));
  // Three partitions in all would allow two threads; this process runs one: refused when set,
  // before any process waits for the others.
  CHECK_THROWS_WITH(s.set_threads(2),
                    Catch::Contains("threads 2 for the 1 partitions this process runs"));
  CHECK(s.threads() == 1);
  CHECK(s.rank_of(2) == 1);
  sim::Simulator t(1);
  t.split(3, sim::Time(1'000));
  t.set_threads(2);
  CHECK_THROWS_WITH(t.set_ranks(group.rank(0), {0, 1, 1}),
                    Catch::Contains("threads 2 for the 1 partitions this process runs"));
  CHECK(t.ranks() == nullptr);
}

TEST_CASE("ranks: in-process ranks meet at each collective and fail when one has left",
          "[unit][split][ranks]") {
  // Three ranks sum, then exchange, then leave: each gets every rank's values.
  {
    sim::LocalRanks group(3);
    std::vector<uint64_t> sums(3);
    std::vector<std::string> received(3);
    std::vector<std::thread> ranks;
    for (uint32_t r = 0; r < 3; ++r) {
      ranks.emplace_back([&, r] {
        std::vector<uint64_t> v = {r + 1u};
        group.rank(r).sum_all(v);
        sums[r] = v[0];
        std::vector<sim::Bytes> out(3);
        for (uint32_t to = 0; to < 3; ++to) sim::put_bytes(out[to], static_cast<uint8_t>(r));
        for (const sim::Bytes& b : group.rank(r).exchange(std::move(out))) {
          received[r] += std::to_string(b.empty() ? -1 : static_cast<int>(b[0]));
        }
        group.leave(r);
      });
    }
    for (auto& t : ranks) t.join();
    CHECK(sums == std::vector<uint64_t>{6, 6, 6});
    CHECK(received == std::vector<std::string>{"-112", "0-12", "01-1"});
  }
  // Rank 0's run ends where the others' goes on: the two waiting at the next exchange fail,
  // naming it, instead of waiting for ever.
  sim::LocalRanks group(3);
  std::vector<std::string> errors(3);
  std::vector<std::thread> ranks;
  for (uint32_t r = 0; r < 3; ++r) {
    ranks.emplace_back([&, r] {
      try {
        if (r != 0) group.rank(r).exchange(std::vector<sim::Bytes>(3));
      } catch (const std::exception& e) {
        errors[r] = e.what();
      }
      group.leave(r);
    });
  }
  for (auto& t : ranks) t.join();
  CHECK(errors[0].empty());
  CHECK_THAT(errors[1], Catch::Contains("rank 0 left the run before this exchange"));
  CHECK_THAT(errors[2], Catch::Contains("rank 0 left the run before this exchange"));
}

TEST_CASE("ranks: the ring over 2 MPI ranks under mpirun gives every node the events of one list",
          "[cli][split][ranks][mpi]") {
  if (!test_support::mpi_runs()) return;
  const test_support::TempDir dir("rdmasim_ranks");
  const std::string mpirun =
      test_support::mpirun(2) + std::string(RDMASIM_BIN_DIR "/rdmasim_rank_ring ");
  auto by_rank = [](const std::string& out) {
    std::vector<RankResult> ranks;
    for (const std::string& line : test_support::lines_of(out)) {
      if (line.rfind("rank ", 0) == 0) {
        ranks.emplace_back();
      } else if (!ranks.empty()) {
        (line.rfind("error ", 0) == 0 ? ranks.back().error : ranks.back().trace) += line + "\n";
      }
    }
    return ranks;
  };
  for (const auto& [threads, stop] : {std::pair{1, 0}, std::pair{2, 25}}) {
    INFO("threads " << threads << ", stop after " << stop);
    const auto run = test_support::shell(
        mpirun + "4 " + std::to_string(threads) + " " + std::to_string(stop), dir);
    INFO(run.out.substr(0, 2000) << run.err);
    REQUIRE(run.exit_code == 0);
    const auto ranks = by_rank(run.out);
    REQUIRE(ranks.size() == 2);
    check_same(run_alone(12, 1, 1, [&](rank_ring::Ring& r) { r.node[7]->stop_after = stop; }),
               ranks);
  }
}
