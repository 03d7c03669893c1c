// Calls of a schedule algorithm run rank by rank, as NCCL's kernels on each GPU's stream: a
// rank starts its next call when its own part of the last has ended (not when every rank's
// has), a message of a call reaching a rank still in an earlier one waits for that rank, and a
// training step's buckets follow the same rule.
#include <algorithm>
#include <catch2/catch.hpp>
#include <map>

#include "scenario_helpers.hpp"
#include "scenarios/run/run_scenario.hpp"

namespace {

using test_support::load;

scen::RunOutcome run(const scen::Json& j, bool timeline = false) {
  scen::RunOptions ro;
  ro.timeline.enabled = timeline;
  return scen::run_scenario(load(j), ro);
}

// A broadcast down a chain of 8 hosts (ring order) of 1 MiB in 64 KiB chunks.
scen::Json chain_broadcast(int iterations) {
  scen::Json j;
  j["name"] = "rank-paced-broadcast";
  j["topology"] = test_support::star(8, "100Gbps");
  j["fabric"]["switch"] = {{"latency", "500ns"}};
  j["workload"]["collective"] = {{"op", "broadcast"},        {"algorithm", "ring"},
                                 {"size", "1MiB"},           {"chunk", "64KiB"},
                                 {"iterations", iterations}, {"launch_latency", "0us"}};
  return j;
}

// Per rank, its call spans and its send spans, each sorted by start.
struct RankSpans {
  std::vector<std::pair<sim::Time, sim::Time>> calls, sends;
};
std::map<std::string, RankSpans> spans_by_rank(const models::TimelineRecorder& t) {
  std::map<std::string, RankSpans> by;
  for (const auto& sp : t.spans()) {
    const models::TimelineTrack& tr = t.tracks()[sp.track];
    if (tr.process.rfind("collective", 0) != 0) continue;
    const size_t sends = tr.thread.find(" sends");
    if (sends == std::string::npos) {
      by[tr.thread].calls.emplace_back(sp.start, sp.end);
    } else {
      by[tr.thread.substr(0, sends)].sends.emplace_back(sp.start, sp.end);
    }
  }
  for (auto& [rank, s] : by) {
    std::sort(s.calls.begin(), s.calls.end());
    std::sort(s.sends.begin(), s.sends.end());
  }
  return by;
}

}  // namespace

TEST_CASE(
    "rank-paced calls: the root of a chain broadcast starts its next call before the "
    "chain's end",
    "[mechanism][collective]") {
  const scen::RunOutcome one = run(chain_broadcast(1));
  const scen::RunOutcome four = run(chain_broadcast(4), /*timeline=*/true);
  REQUIRE(one.collectives.size() == 1);
  REQUIRE(four.collectives.size() == 1);
  // Calls started for every rank at the last rank's end would take the same time each; the
  // root starts its next as soon as its own sends are acknowledged, so calls overlap down the
  // chain and the mean call is shorter.
  const double single = one.collectives[0].time.seconds();
  const double mean = four.collectives[0].time.seconds();
  INFO("one call " << single * 1e6 << " us, mean of four " << mean * 1e6 << " us");
  CHECK(mean < 0.9 * single);
  // Each rank's calls follow each other on its own clock (launch latency 0): the next starts
  // where its last ended, and the root's second call starts before the last rank's first ends.
  const auto by = spans_by_rank(*four.timeline);
  REQUIRE(by.size() == 8);
  sim::Time first_calls_end;
  for (const auto& [rank, s] : by) {
    REQUIRE(s.calls.size() == 4);
    for (size_t i = 1; i < s.calls.size(); ++i) CHECK(s.calls[i].first == s.calls[i - 1].second);
    first_calls_end = std::max(first_calls_end, s.calls[0].second);
  }
  CHECK(by.at("rank 0 (h0)").calls[1].first < first_calls_end);
  // Every byte reaches every rank in each call.
  for (size_t r = 1; r < 8; ++r) CHECK(four.collectives[0].rank_data_received[r] == 1 << 20);
}

TEST_CASE(
    "rank-paced calls: a message of the next call waits until its rank has ended the "
    "last",
    "[mechanism][collective]") {
  // A broadcast down 16 GPUs of two servers in rank order: seven NVLink hops at 450 GB/s, one
  // network hop at 400 Gb/s (rank 7 to rank 8), seven NVLink hops. Rank 7 lags behind the
  // ranks before it: the second call's data reaches it while it still sends the first's over
  // the network. Its second call's sends must not go before its first call has ended.
  scen::Json j = test_support::dgx_rail_cluster("rank-paced-hold", 2);
  j["workload"]["collective"] = {{"op", "broadcast"},
                                 {"algorithm", "ring"},
                                 {"ranks", "all"},
                                 {"channels", 1},
                                 {"channel_placement", "rank-order"},
                                 {"size", "4MiB"},
                                 {"chunk", "256KiB"},
                                 {"iterations", 2},
                                 {"launch_latency", "0us"}};
  const scen::RunOutcome out = run(j, /*timeline=*/true);
  const auto by = spans_by_rank(*out.timeline);
  for (const auto& [rank, s] : by) {
    INFO(rank);
    REQUIRE(s.calls.size() == 2);
    if (s.sends.empty()) continue;  // the chain's last rank
    REQUIRE(s.sends.size() % 2 == 0);
    const auto& second = s.sends[s.sends.size() / 2];  // its second call's first send
    CHECK(second.first >= s.calls[0].second);
  }
  // Rank 7 did get the second call's first chunk before its first call ended (else the test
  // shows nothing): rank 6's second call's first send completed before then.
  const RankSpans& six = by.at("rank 6 (n0g6)");
  const RankSpans& seven = by.at("rank 7 (n0g7)");
  CHECK(six.sends[six.sends.size() / 2].second < seven.calls[0].second);
}

TEST_CASE("rank-paced calls: the same results on 1, 2 and 3 threads", "[scenario][split]") {
  scen::Json j = chain_broadcast(3);
  j["workload"]["collective"]["op"] = "all_reduce";
  j["workload"]["collective"]["algorithm"] = "double_binary_tree";
  std::vector<std::string> rows;
  for (const int threads : {1, 2, 3}) {
    scen::RunOptions ro;
    ro.threads = threads;
    ro.partitions = 3;
    const scen::RunOutcome out = scen::run_scenario(load(j), ro);
    REQUIRE(out.collectives.size() == 1);
    const models::CollectiveResult& r = out.collectives[0];
    rows.push_back(std::to_string(r.start.ps) + " " + std::to_string(r.end.ps) + " " +
                   std::to_string(r.messages) + " " + std::to_string(r.wire_bytes));
  }
  CHECK(rows[0] == rows[1]);
  CHECK(rows[0] == rows[2]);
}
