#include "scenarios/run/run_timeline.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>

namespace scen {

namespace {

struct PortKey {
  int node = 0;
  int port = 0;
  bool operator<(const PortKey& o) const { return node != o.node ? node < o.node : port < o.port; }
};

std::string port_label(const RunOutcome& out, PortKey k) {
  return out.node_names[k.node] + ":" + std::to_string(k.port);
}

// The ports that get tracks, in track order.
std::vector<PortKey> chosen_ports(const models::TimelineOptions& o,
                                  const std::map<PortKey, sim::Time>& held, const RunOutcome& out) {
  std::vector<PortKey> chosen;
  if (!o.ports.empty()) {
    for (const std::string& name : o.ports) {
      for (const auto& [k, t] : held) {
        if (port_label(out, k) == name) chosen.push_back(k);
      }
    }
    return chosen;
  }
  std::vector<std::pair<sim::Time, PortKey>> by_time;
  for (const auto& [k, t] : held) by_time.emplace_back(t, k);
  // Most held first; equal times in node, port order (deterministic).
  std::stable_sort(by_time.begin(), by_time.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (size_t i = 0; i < by_time.size() && i < o.max_port_tracks; ++i) {
    chosen.push_back(by_time[i].second);
  }
  return chosen;
}

}  // namespace

void add_run_spans(models::TimelineRecorder& timeline,
                   const std::vector<models::PauseInterval>& pauses, const RunOutcome& out) {
  // Held time per sending port, PFC and credits together, to choose the tracks.
  std::map<PortKey, sim::Time> held;
  std::unordered_map<std::string, int> node_of;
  for (size_t n = 0; n < out.node_names.size(); ++n)
    node_of[out.node_names[n]] = static_cast<int>(n);
  std::vector<PortKey> pause_port(out.links.size());
  for (size_t d = 0; d < out.links.size(); ++d) {
    pause_port[d] = {node_of.at(out.links[d].from), out.links[d].from_port};
  }
  for (const auto& p : pauses) held[pause_port[p.tag]] += p.end - p.start;
  for (const auto& c : out.credit_stalls) held[{c.node, c.port}] += c.end - c.start;

  const std::vector<PortKey> ports = chosen_ports(timeline.options(), held, out);
  std::map<PortKey, int64_t> order;
  for (size_t i = 0; i < ports.size(); ++i) order[ports[i]] = static_cast<int64_t>(i);
  const std::string process = "ports (PFC pauses, credit stalls)";
  const uint32_t paused_name = timeline.name("paused");
  const uint32_t stalled_name = timeline.name("waiting for credit");
  for (const auto& p : pauses) {
    const auto it = order.find(pause_port[p.tag]);
    if (it == order.end()) continue;
    if (!timeline.wants(p.start, p.end)) {
      timeline.leave_out(p.start, p.end);
      continue;
    }
    const uint32_t track =
        timeline.track(process, port_label(out, it->first) + " p" + std::to_string(p.priority),
                       it->second * models::kMaxClasses + p.priority);
    timeline.span(track, paused_name, p.start, p.end);
  }
  for (const auto& c : out.credit_stalls) {
    const auto it = order.find({c.node, c.port});
    if (it == order.end()) continue;
    if (!timeline.wants(c.start, c.end)) {
      timeline.leave_out(c.start, c.end);
      continue;
    }
    const uint32_t track =
        timeline.track(process, port_label(out, it->first) + " VL" + std::to_string(c.vl),
                       it->second * models::kMaxClasses + c.vl);
    timeline.span(track, stalled_name, c.start, c.end);
  }

  // Flows that are not collective messages (those are on their ranks' tracks), by source.
  for (const FlowResult& fl : out.flows) {
    if (fl.tag == "collective") continue;
    const sim::Time end = fl.completed ? fl.finish : out.end_time;
    if (!timeline.wants(fl.start, end)) {
      timeline.leave_out(fl.start, end);
      continue;
    }
    const uint32_t track = timeline.track("flows", fl.src);
    std::string name = "flow " + std::to_string(fl.id) + " -> " + fl.dst;
    if (!fl.completed) name += " (unfinished)";
    timeline.span(track, timeline.name(name), fl.start, end, fl.bytes);
  }
}

}  // namespace scen
