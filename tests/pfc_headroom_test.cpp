// The PFC headroom formula (models/roce/pfc_headroom.hpp) against the model: at the formula no
// lossless (ingress, priority) ever runs out of headroom, one MTU less does run out, and the
// most headroom any ingress used is within one MTU of the formula — over cables of 1 and 100 m
// at 100 and 400 Gb/s.
//
// The load drives the formula's worst case as closely as the model allows. Four senders keep
// their uplinks busy toward one receiver, so pauses come and go hundreds of times; every sender
// also receives a full-rate stream, so a pause to it waits behind a data frame in progress on
// the reverse link; and each sender's messages have assorted sizes (tails of 800 to 5,300
// bytes) so that where its frame boundaries fall against the pause varies from episode to
// episode. With full frames only, the bytes a sender gets out before the pause takes hold come
// in whole frames, and the largest count of whole frames can stay up to one frame below the
// bound (at 400 Gb/s, 100 m: 19 frames = 79,382 B against a bound of 83,524 B).
#include "models/roce/pfc_headroom.hpp"

#include <array>
#include <catch2/catch.hpp>

#include "scenario_helpers.hpp"

namespace {

uint64_t u(const scen::Json& j) {
  return j.get<uint64_t>();
}

constexpr int kSenders = 4;
constexpr int64_t kMtu = 4096;
constexpr int64_t kFrame = kMtu + 62 + 20;  // payload + RoCEv2 headers + preamble and gap

// h1..h4 send 300 messages each to h0 through one switch, a new one every `spacing_ns` (a
// little more than a quarter of the receiver's link: each sender stays backlogged, but with few
// messages in progress, so that its frames mix full frames and tails); h5..h8 each stream to
// one of h1..h4.
scen::Json worst_case_load(const std::string& rate, const std::string& cable, int spacing_ns) {
  scen::Json t;
  t["nodes"] = scen::Json::array({{{"name", "sw"}, {"kind", "switch"}}});
  for (int h = 0; h <= 2 * kSenders; ++h) {
    t["nodes"].push_back({{"name", "h" + std::to_string(h)}, {"kind", "host"}});
    t["links"].push_back(
        {{"a", "h" + std::to_string(h)}, {"b", "sw"}, {"rate", rate}, {"cable", cable}});
  }
  scen::Json j;
  j["topology"] = t;
  j["fabric"]["switch"] = {{"latency", "500ns"}, {"buffer", "8MB"}};
  // ACKs every 64 packets: fewer ACK frames between a sender's data frames.
  j["fabric"]["nic"] = {{"mtu", kMtu}, {"rto", "1ms"}, {"ack_every", 64}};
  j["fabric"]["pfc"] = {
      {"enabled", true}, {"priorities", {3}}, {"xoff", "20KB"}, {"xon_offset", "8KB"}};
  for (int h = 1; h <= kSenders; ++h) {
    for (int k = 0; k < 300; ++k) {
      j["workload"]["flows"].push_back({{"src", "h" + std::to_string(h)},
                                        {"dst", "h0"},
                                        {"size", 9000 + 1111 * ((k + h) % 5)},
                                        {"start", std::to_string(k * spacing_ns) + "ns"}});
    }
    j["workload"]["flows"].push_back({{"src", "h" + std::to_string(h + kSenders)},
                                      {"dst", "h" + std::to_string(h)},
                                      {"size", "4MB"}});
  }
  return j;
}

}  // namespace

TEST_CASE(
    "pfc headroom: none runs out at the formula, one MTU less does, the peak is within "
    "one MTU of it",
    "[mechanism][pfc][headroom]") {
  struct Case {
    const char* rate;
    int64_t rate_bps;
    const char* cable;
    int64_t cable_ps;  // 5 ns per metre
    std::array<int, 2> spacings_ns;
  };
  for (const Case c : {Case{"100Gbps", 100'000'000'000, "1m", 5'000, {3000, 3300}},
                       Case{"100Gbps", 100'000'000'000, "100m", 500'000, {3000, 3300}},
                       Case{"400Gbps", 400'000'000'000, "1m", 5'000, {700, 830}},
                       Case{"400Gbps", 400'000'000'000, "100m", 500'000, {700, 830}}}) {
    INFO(c.rate << " " << c.cable);
    const int64_t formula = models::pfc_headroom_bytes(c.rate_bps, sim::Time(c.cable_ps),
                                                       sim::Time(0), sim::Time(500'000), kFrame, 1);
    // Two message spacings; the one that came closer to the bound is also run below it.
    int64_t peak = 0;
    scen::Json j;
    for (int spacing : c.spacings_ns) {
      scen::Json load = worst_case_load(c.rate, c.cable, spacing);
      const scen::RunOutcome at = scen::run_scenario(test_support::load(load));
      const auto& pfc = at.results["pfc"];
      CHECK(u(pfc["headroom_exhaustions"]) == 0);
      CHECK(u(at.results["drops"]["lossless"]) == 0);
      CHECK(u(at.results["flows_completed"]) == u(at.results["flows"]));
      CHECK(u(pfc["xoff_transitions"]) > 100);
      for (const auto& hp : pfc["headroom_peaks"]) {
        CHECK(hp["headroom_bytes"].get<int64_t>() == formula);  // the builder uses the formula
        CHECK(hp["peak_bytes"].get<int64_t>() <= formula);
        if (hp["peak_bytes"].get<int64_t>() > peak) {
          peak = hp["peak_bytes"].get<int64_t>();
          j = load;
        }
      }
    }
    INFO("formula " << formula << " B, most used " << peak << " B");
    CHECK(peak > formula - kMtu);  // the formula is tight: less than one MTU to spare

    j["fabric"]["pfc"]["headroom"] = formula - kMtu;
    const scen::RunOutcome below = scen::run_scenario(test_support::load(j));
    const auto& events = below.results["pfc"]["headroom_exhaustion_events"];
    CHECK(events.size() > 0);
    for (const auto& e : events) {
      CHECK(e["port"].get<int>() >= 1);  // a sender's ingress
      CHECK(e["port"].get<int>() <= kSenders);
    }
    // Lossless packets dropped for want of headroom are still recovered end to end.
    CHECK(u(below.results["flows_completed"]) == u(below.results["flows"]));
  }
}
