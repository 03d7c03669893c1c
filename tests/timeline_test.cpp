// `rdmasim run --timeline`: the recorded spans against what the run reports elsewhere — a
// port's pause spans add up to the paused time in links.csv, a credit-stall track to the
// credit-stalled time, a training step's compute spans to its compute time, a collective's
// message spans to its message count — and the Chrome trace file: valid JSON, lanes of one
// thread never overlap, bounded by the window and the span cap, identical on rerun.
#include <catch2/catch.hpp>
#include <fstream>
#include <map>

#include "cli_runner.hpp"
#include "scenario_helpers.hpp"
#include "scenarios/outputs/timeline_json.hpp"

namespace {

using test_support::load;

using test_support::star;

scen::RunOutcome run_with_timeline(const scen::Json& j, models::TimelineOptions o = {}) {
  o.enabled = true;
  scen::RunOptions ro;
  ro.timeline = o;
  return scen::run_scenario(load(j), ro);
}

// Sum of span durations per (process, thread) of the recorder.
std::map<std::pair<std::string, std::string>, int64_t> time_per_track(
    const models::TimelineRecorder& t) {
  std::map<std::pair<std::string, std::string>, int64_t> sum;
  for (const auto& sp : t.spans()) {
    const auto& tr = t.tracks()[sp.track];
    sum[{tr.process, tr.thread}] += (sp.end - sp.start).ps;
  }
  return sum;
}

scen::Json ring_all_reduce(int ranks) {
  scen::Json j;
  j["name"] = "timeline-collective";
  j["topology"] = star(ranks, "100Gbps");
  j["fabric"]["switch"] = {{"latency", "500ns"}};
  j["workload"]["collective"] = {{"op", "all_reduce"}, {"algorithm", "ring"}, {"min", "64KiB"},
                                 {"max", "256KiB"},    {"factor", 4},         {"chunk", "16KiB"}};
  return j;
}

scen::Json pfc_incast() {
  scen::Json j;
  j["name"] = "timeline-incast";
  j["topology"] = star(5, "100Gbps");
  j["fabric"]["pfc"] = {{"enabled", true}, {"priorities", {3}}};
  for (int h = 1; h < 5; ++h) {
    j["workload"]["flows"].push_back({{"src", "h" + std::to_string(h)},
                                      {"dst", "h0"},
                                      {"size", "1MB"},
                                      {"start", "0us"},
                                      {"priority", 3}});
  }
  return j;
}

}  // namespace

TEST_CASE("timeline: a collective's message and iteration spans, per rank",
          "[mechanism][timeline]") {
  const scen::RunOutcome out = run_with_timeline(ring_all_reduce(4));
  REQUIRE(out.timeline);
  const models::TimelineRecorder& t = *out.timeline;
  REQUIRE(out.collectives.size() == 2);
  size_t messages = 0, iterations = 0;
  for (const auto& sp : t.spans()) {
    const std::string& thread = t.tracks()[sp.track].thread;
    if (thread.find("sends") != std::string::npos) {
      ++messages;
    } else {
      ++iterations;
      CHECK(t.names()[sp.name].rfind("all_reduce ", 0) == 0);
    }
    CHECK(sp.end >= sp.start);
  }
  CHECK(messages == out.collectives[0].messages + out.collectives[1].messages);
  CHECK(iterations == 4 * 2);  // one per rank and size
  CHECK(t.left_out() == 0);
  // Each rank's iteration span ends at or before the collective's end, and the last rank's at it.
  sim::Time last_end;
  for (const auto& sp : t.spans()) {
    if (t.tracks()[sp.track].thread.find("sends") == std::string::npos && sp.bytes == 256 * 1024) {
      CHECK(sp.start == out.collectives[1].start);
      CHECK(sp.end <= out.collectives[1].end);
      last_end = std::max(last_end, sp.end);
    }
  }
  CHECK(last_end == out.collectives[1].end);
}

TEST_CASE("timeline: pause spans add up to the paused time of links.csv",
          "[mechanism][timeline][pfc]") {
  const scen::RunOutcome out = run_with_timeline(pfc_incast());
  REQUIRE(out.timeline);
  const auto per_track = time_per_track(*out.timeline);
  int64_t total_spans = 0;
  for (const auto& [key, ps] : per_track) {
    if (key.first.rfind("ports", 0) == 0) total_spans += ps;
  }
  int64_t total_paused = 0;
  int held_ports = 0;
  for (const auto& l : out.links) {
    total_paused += l.paused.ps;
    if (l.paused.ps == 0) continue;
    ++held_ports;
    CHECK(per_track.at({"ports (PFC pauses, credit stalls)",
                        l.from + ":" + std::to_string(l.from_port) + " p3"}) == l.paused.ps);
  }
  REQUIRE(held_ports > 0);
  CHECK(total_spans == total_paused);
  // The four flows are on their senders' tracks.
  int flows = 0;
  for (const auto& [key, ps] : per_track) flows += key.first == "flows" ? 1 : 0;
  CHECK(flows == 4);
}

TEST_CASE("timeline: chosen ports only, window and span cap", "[mechanism][timeline][pfc]") {
  models::TimelineOptions o;
  o.ports = {"h1:0"};
  const scen::RunOutcome one = run_with_timeline(pfc_incast(), o);
  for (const auto& tr : one.timeline->tracks()) {
    if (tr.process.rfind("ports", 0) == 0) CHECK(tr.thread == "h1:0 p3");
  }

  const scen::RunOutcome all = run_with_timeline(pfc_incast());
  o = {};
  o.from = sim::Time(50'000'000);  // 50 us
  o.to = sim::Time(60'000'000);
  const scen::RunOutcome window = run_with_timeline(pfc_incast(), o);
  REQUIRE(!window.timeline->spans().empty());
  size_t overlapping = 0;
  for (const auto& sp : all.timeline->spans()) {
    overlapping += sp.end >= o.from && sp.start < o.to ? 1 : 0;
  }
  CHECK(window.timeline->spans().size() == overlapping);
  CHECK(overlapping < all.timeline->spans().size());
  for (const auto& sp : window.timeline->spans()) {
    CHECK(sp.end >= o.from);
    CHECK(sp.start < o.to);
  }

  o = {};
  o.max_spans = 3;
  const scen::RunOutcome capped = run_with_timeline(pfc_incast(), o);
  CHECK(capped.timeline->spans().size() == 3);
  CHECK(capped.timeline->left_out() == all.timeline->spans().size() - 3);
}

TEST_CASE("timeline: credit-stall spans add up to the credit-stalled time",
          "[mechanism][timeline][infiniband]") {
  scen::Json j = pfc_incast();
  j["fabric"] = "infiniband";
  j["infiniband"] = {{"vl_buffer", "16KiB"}};
  const scen::RunOutcome out = run_with_timeline(j);
  const auto per_track = time_per_track(*out.timeline);
  int stalled_ports = 0;
  for (const auto& l : out.links) {
    if (l.credit_stalled.ps == 0) continue;
    ++stalled_ports;
    CHECK(per_track.at({"ports (PFC pauses, credit stalls)",
                        l.from + ":" + std::to_string(l.from_port) + " VL0"}) ==
          l.credit_stalled.ps);
  }
  CHECK(stalled_ports > 0);
}

TEST_CASE("timeline: a training step's compute spans and bucket all-reduces",
          "[mechanism][timeline][training]") {
  scen::Json j;
  j["name"] = "timeline-training";
  j["topology"] = star(4, "100Gbps");
  j["workload"]["training"] = {
      {"layers", 4},
      {"layer", {{"forward", "100us"}, {"backward", "200us"}, {"gradients", "1MiB"}}},
      {"bucket", "1MiB"},
      {"optimizer", "50us"},
      {"steps", 2},
      {"comm", {{"algorithm", "ring"}}}};
  const scen::RunOutcome out = run_with_timeline(j);
  REQUIRE(out.training_steps.size() == 2);
  const auto& t = *out.timeline;
  int64_t compute = 0;
  int buckets = 0, backward = 0;
  for (const auto& sp : t.spans()) {
    const auto& tr = t.tracks()[sp.track];
    if (tr.thread == "compute") {
      compute += (sp.end - sp.start).ps;
      backward += t.names()[sp.name].rfind("backward", 0) == 0 ? 1 : 0;
    }
    if (tr.thread == "all-reduce stream") ++buckets;
  }
  CHECK(compute == out.training_steps[0].compute.ps + out.training_steps[1].compute.ps);
  CHECK(backward == 8);
  CHECK(buckets == out.training_steps[0].buckets + out.training_steps[1].buckets);
}

TEST_CASE("timeline: the Chrome trace is valid JSON, lanes never overlap, reruns are identical",
          "[mechanism][timeline]") {
  const scen::RunOutcome a = run_with_timeline(ring_all_reduce(4));
  const std::string text = scen::chrome_trace_json(*a.timeline);
  const scen::Json trace = scen::Json::parse(text);
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> lanes;
  size_t complete = 0;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] != "X") continue;
    ++complete;
    lanes[{e["pid"].get<int>(), e["tid"].get<int>()}].emplace_back(
        e["ts"].get<double>(), e["ts"].get<double>() + e["dur"].get<double>());
  }
  CHECK(complete == a.timeline->spans().size());
  size_t multi_lane_tracks = 0;
  for (auto& [key, spans] : lanes) {
    std::sort(spans.begin(), spans.end());
    for (size_t i = 1; i < spans.size(); ++i) CHECK(spans[i].first >= spans[i - 1].second - 1e-6);
  }
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "thread_name" &&
        e["args"]["name"].get<std::string>().find(" #2") != std::string::npos) {
      ++multi_lane_tracks;
    }
  }
  CHECK(multi_lane_tracks > 0);  // chunks in flight overlap on a rank's sends
  const scen::RunOutcome b = run_with_timeline(ring_all_reduce(4));
  CHECK(scen::chrome_trace_json(*b.timeline) == text);
}

TEST_CASE("timeline: the CLI writes the file and refuses bad options",
          "[mechanism][timeline][cli]") {
  test_support::TempDir dir;
  std::ofstream(dir / "s.json") << pfc_incast().dump();
  const auto ok = test_support::rdmasim(
      {"run", "s.json", "-q", "--timeline", "t.json", "--timeline-ports", "h1:0,h2:0"}, dir);
  REQUIRE(ok.exit_code == 0);
  const scen::Json trace = scen::Json::parse(test_support::read_file(dir / "t.json"));
  CHECK(trace["traceEvents"].size() > 4);

  const auto bad_window = test_support::rdmasim(
      {"run", "s.json", "-q", "--timeline", "t2.json", "--timeline-window", "2ms:1ms"}, dir);
  CHECK(bad_window.exit_code == 2);
  CHECK(test_support::contains(bad_window.err, "--timeline-window"));
  const auto bad_port = test_support::rdmasim(
      {"run", "s.json", "-q", "--timeline", "t2.json", "--timeline-ports", "h9:0"}, dir);
  CHECK(bad_port.exit_code == 2);
  CHECK(test_support::contains(bad_port.err, "h9:0"));
  const auto no_file =
      test_support::rdmasim({"run", "s.json", "-q", "--timeline-ports", "h1:0"}, dir);
  CHECK(no_file.exit_code == 2);
  CHECK(!std::filesystem::exists(dir / "t2.json"));
}

TEST_CASE("timeline: a SHARP all-reduce spans every rank over the whole iteration",
          "[mechanism][timeline][sharp]") {
  scen::Json j;
  j["name"] = "timeline-sharp";
  j["topology"] = star(4, "100Gbps");
  j["fabric"] = "infiniband";
  j["workload"]["collective"] = {{"op", "all_reduce"}, {"algorithm", "sharp"}, {"size", "1MiB"}};
  const scen::RunOutcome out = run_with_timeline(j);
  REQUIRE(out.collectives.size() == 1);
  int ranks = 0;
  for (const auto& sp : out.timeline->spans()) {
    if (out.timeline->tracks()[sp.track].process.rfind("collective 0", 0) != 0) continue;
    ++ranks;
    CHECK(sp.start == out.collectives[0].start);
    CHECK(sp.end == out.collectives[0].end);
    CHECK(out.timeline->names()[sp.name] == "all_reduce 1MiB sharp/simple");
  }
  CHECK(ranks == 4);
}

TEST_CASE("timeline: beyond the cap, the spans that end first, whatever order they came in",
          "[unit][timeline]") {
  // Twelve spans ending at 1..12 us, handed in forwards and backwards (as a split run's threads
  // may): the recorder keeps the five that end first, counts seven, and writes the same file.
  struct Recorded {
    std::string file;
    size_t kept = 0;
    uint64_t left_out = 0;
    int64_t latest_end = 0;
  };
  const auto record = [](bool backwards) {
    models::TimelineOptions o;
    o.enabled = true;
    o.max_spans = 5;
    models::TimelineRecorder t(o);
    const uint32_t track = t.track("p", "t");
    for (int i = 0; i < 12; ++i) {
      const int k = backwards ? 11 - i : i;
      const sim::Time end((k + 1) * 1'000'000LL);
      if (!t.wants(sim::Time(0), end)) {
        t.leave_out(sim::Time(0), end);
        continue;
      }
      t.span(track, t.name("span " + std::to_string(k)), sim::Time(0), end, k);
    }
    Recorded r{scen::chrome_trace_json(t), t.spans().size(), t.left_out(), 0};
    for (const auto& s : t.spans()) r.latest_end = std::max(r.latest_end, s.end.ps);
    return r;
  };
  const Recorded forwards = record(false), backwards = record(true);
  CHECK(forwards.kept == 5);
  CHECK(backwards.kept == 5);
  CHECK(forwards.left_out == 7);
  CHECK(backwards.left_out == 7);
  CHECK(backwards.latest_end == 5'000'000);
  CHECK(forwards.file == backwards.file);
}

TEST_CASE("timeline: spans recorded by two processes, merged, are the one process's",
          "[unit][timeline][ranks]") {
  // Twelve spans ending at 1..12 us under a cap of 5: one recorder takes them all; two take
  // them alternately (their names interned in other orders), each keeping and counting its own
  // beyond the cap, and the second's pack merges into the first.
  models::TimelineOptions o;
  o.enabled = true;
  o.max_spans = 5;
  const auto hand_in = [](models::TimelineRecorder& t, int k) {
    const sim::Time end((k + 1) * 1'000'000LL);
    if (!t.wants(sim::Time(0), end)) {
      t.leave_out(sim::Time(0), end);
      return;
    }
    t.span(t.track("p", "t" + std::to_string(k % 3)), t.name("span " + std::to_string(k)),
           sim::Time(0), end, k);
  };
  models::TimelineRecorder one(o);
  for (int k = 0; k < 12; ++k) (void)one.track("p", "t" + std::to_string(k % 3));
  for (int k = 0; k < 12; ++k) hand_in(one, k);
  models::TimelineRecorder first(o), second(o);
  for (models::TimelineRecorder* t : {&first, &second}) {
    for (int k = 0; k < 12; ++k) (void)t->track("p", "t" + std::to_string(k % 3));
  }
  (void)second.name("a name only the second process knows");
  for (int k = 11; k >= 0; --k) hand_in(k % 2 == 0 ? first : second, k);
  CHECK(second.spans().size() == 5);  // its 6, one beyond the cap
  CHECK(second.left_out() == 1);
  sim::Bytes pack;
  second.pack_spans(pack);
  sim::ByteReader in(pack);
  first.merge_spans(in);
  CHECK(in.empty());
  CHECK(first.spans().size() == 5);
  CHECK(first.left_out() == 7);
  CHECK(scen::chrome_trace_json(first) == scen::chrome_trace_json(one));
  // A pack cut short is an error, not a crash.
  pack.resize(pack.size() - 3);
  sim::ByteReader cut(pack);
  CHECK_THROWS(first.merge_spans(cut));
}
