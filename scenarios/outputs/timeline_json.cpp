#include "scenarios/outputs/timeline_json.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <map>
#include <vector>

namespace scen {

namespace {

void append_escaped(std::string& out, const std::string& s) {
  out += '"';
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
      out += buf;
    } else {
      out += ch;
    }
  }
  out += '"';
}

// Picoseconds as microseconds, exactly (six decimals).
void append_us(std::string& out, int64_t ps) {
  char buf[40];
  const char* sign = ps < 0 ? "-" : "";
  const uint64_t a = ps < 0 ? static_cast<uint64_t>(-ps) : static_cast<uint64_t>(ps);
  std::snprintf(buf, sizeof buf, "%s%" PRIu64 ".%06" PRIu64, sign, a / 1000000, a % 1000000);
  out += buf;
}

struct Lane {
  uint32_t track = 0;
  uint32_t lane = 0;
};

}  // namespace

std::string chrome_trace_json(const models::TimelineRecorder& timeline) {
  const auto& spans = timeline.spans();
  const auto& tracks = timeline.tracks();

  // Spans in (track, start, end, name, bytes) order — a total order, so the file does not depend
  // on the order they were recorded in (a split run's threads); lanes by interval partitioning
  // within each track.
  const auto& names = timeline.names();
  std::vector<uint32_t> order(spans.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&spans, &names](uint32_t a, uint32_t b) {
    const auto& x = spans[a];
    const auto& y = spans[b];
    if (x.track != y.track) return x.track < y.track;
    if (x.start != y.start) return x.start < y.start;
    if (x.end != y.end) return x.end < y.end;
    if (x.name != y.name) return names[x.name] < names[y.name];
    return x.bytes < y.bytes;
  });
  std::vector<uint32_t> lane_of(spans.size(), 0);
  std::vector<uint32_t> lanes_of_track(tracks.size(), 0);
  {
    std::vector<sim::Time> lane_end;
    uint32_t current = UINT32_MAX;
    for (const uint32_t i : order) {
      const auto& sp = spans[i];
      if (sp.track != current) {
        current = sp.track;
        lane_end.clear();
      }
      uint32_t lane = 0;
      while (lane < lane_end.size() && lane_end[lane] > sp.start) ++lane;
      if (lane == lane_end.size()) lane_end.push_back(sp.end);
      lane_end[lane] = sp.end;
      lane_of[i] = lane;
      lanes_of_track[sp.track] = std::max(lanes_of_track[sp.track], lane + 1);
    }
  }

  // Processes in order of first appearance; threads by (process, sort key, track, lane).
  std::map<std::string, int> pid_of;
  std::vector<const std::string*> process_names;
  for (const auto& t : tracks) {
    if (pid_of.emplace(t.process, static_cast<int>(process_names.size()) + 1).second) {
      process_names.push_back(&t.process);
    }
  }
  std::vector<int> pid(tracks.size());
  for (size_t t = 0; t < tracks.size(); ++t) pid[t] = pid_of[tracks[t].process];
  std::vector<uint32_t> track_order(tracks.size());
  for (uint32_t i = 0; i < track_order.size(); ++i) track_order[i] = i;
  std::stable_sort(track_order.begin(), track_order.end(), [&](uint32_t a, uint32_t b) {
    if (pid[a] != pid[b]) return pid[a] < pid[b];
    return tracks[a].sort < tracks[b].sort;
  });
  std::vector<uint32_t> first_tid(tracks.size(), 0);
  uint32_t next_tid = 1;
  for (const uint32_t t : track_order) {
    first_tid[t] = next_tid;
    next_tid += std::max<uint32_t>(lanes_of_track[t], 1);
  }

  std::string out;
  out.reserve(256 + spans.size() * 120);
  out += "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"spans\":";
  out += std::to_string(spans.size());
  out += ",\"left_out\":";
  out += std::to_string(timeline.left_out());
  out += "},\"traceEvents\":[\n";
  bool first = true;
  auto begin_event = [&]() {
    if (!first) out += ",\n";
    first = false;
  };
  for (size_t p = 0; p < process_names.size(); ++p) {
    const std::string p_id = std::to_string(p + 1);
    begin_event();
    out += "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" + p_id + ",\"args\":{\"name\":";
    append_escaped(out, *process_names[p]);
    out += "}},\n{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":" + p_id +
           ",\"args\":{\"sort_index\":" + p_id + "}}";
  }
  for (const uint32_t t : track_order) {
    if (lanes_of_track[t] == 0) continue;  // a track without spans (all outside the window)
    const std::string p_id = std::to_string(pid[t]);
    for (uint32_t lane = 0; lane < lanes_of_track[t]; ++lane) {
      const std::string tid = std::to_string(first_tid[t] + lane);
      begin_event();
      out += "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":" + p_id + ",\"tid\":" + tid +
             ",\"args\":{\"name\":";
      append_escaped(
          out, lane == 0 ? tracks[t].thread : tracks[t].thread + " #" + std::to_string(lane + 1));
      out += "}},\n{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":" + p_id +
             ",\"tid\":" + tid + ",\"args\":{\"sort_index\":" + tid + "}}";
    }
  }
  for (const uint32_t i : order) {
    const auto& sp = spans[i];
    begin_event();
    out += "{\"ph\":\"X\",\"name\":";
    append_escaped(out, timeline.names()[sp.name]);
    out += ",\"pid\":" + std::to_string(pid[sp.track]);
    out += ",\"tid\":" + std::to_string(first_tid[sp.track] + lane_of[i]);
    out += ",\"ts\":";
    append_us(out, sp.start.ps);
    out += ",\"dur\":";
    append_us(out, (sp.end - sp.start).ps);
    if (sp.bytes >= 0) out += ",\"args\":{\"bytes\":" + std::to_string(sp.bytes) + "}";
    out += "}";
  }
  out += "\n]}\n";
  return out;
}

}  // namespace scen
