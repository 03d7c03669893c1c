// A timeline of what happened during a run, for `rdmasim run --timeline FILE` (Chrome trace
// events, opened in Perfetto or chrome://tracing). Components that know an interval — a
// collective message from post to completion, a training compute phase, a port held by PFC or
// waiting for credit, a flow — hand it here; the recorder keeps what falls in the time window,
// up to a maximum count, so a long run gives a file of bounded size. Names and tracks are
// interned once: a span is 32 bytes. Spans of one track may overlap (eight chunks in flight on
// a connection, two flows from one host); the writer spreads them over lanes (sub-tracks) so
// that each lane holds disjoint spans, as trace viewers expect of one thread.
//
// A split run's partitions record from their threads at once (a message completes where its
// sender is), so the recorder takes a lock and keeps what does not depend on the order it was
// called in: beyond the maximum it keeps the spans that end first — (end, start, track, name,
// bytes), a total order — and counts the others, whichever came first.
//
// Over several processes (MPI ranks), each process records what the events of its own
// partitions hand in (a message completes where its sender is, a rank's call ends where the rank
// is); what every process does alike — boundary events, a collective's rows ended between the
// windows — is kept by the first process alone. Once the run is over, the others' spans are
// merged into the first's (pack_spans, merge_spans): because what is kept depends on no order,
// the merged timeline is the one a single process records.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "sim/rank_exchange.hpp"
#include "sim/time.hpp"

namespace sim {
class Simulator;
}

namespace models {

struct TimelineTrack {
  std::string process;  // a group of tracks: "rank 3 (h3)", "ports", "training 0"
  std::string thread;   // the track within it: "rank 3 sends", "s1:2 p3", "compute"
  int64_t sort = 0;     // order of the tracks within the process
};

struct TimelineSpan {
  sim::Time start, end;
  uint32_t track = 0;  // index into tracks()
  uint32_t name = 0;   // index into names()
  int64_t bytes = -1;  // shown as an argument when >= 0
};

struct TimelineOptions {
  bool enabled = false;
  sim::Time from{0};  // keep spans that overlap [from, to)
  sim::Time to{INT64_MAX};
  size_t max_spans = 200'000;      // beyond this, the spans that end last are counted, not kept
  std::vector<std::string> ports;  // "node:port" tracks wanted; empty = the busiest
  size_t max_port_tracks = 16;     // with `ports` empty: the most-held ports
};

class TimelineRecorder {
 public:
  explicit TimelineRecorder(TimelineOptions o) : options_(std::move(o)) {}

  // A track's number; tracks are numbered in the order first asked for (the writer's tie-break
  // among equal sort keys), so callers ask for theirs outside a split run's windows.
  uint32_t track(const std::string& process, const std::string& thread, int64_t sort = 0);
  // A name's number (any order: the writer uses the text).
  uint32_t name(const std::string& n);

  // Whether a span over [start, end) might be kept (callers skip building names otherwise).
  bool wants(sim::Time start, sim::Time end) const;
  // A span the caller did not build because wants() said no: counted when in the window.
  void leave_out(sim::Time start, sim::Time end);
  // Records the span, or counts it as left out (window, or capacity: then the span that ends
  // last of those kept and this one is the one counted).
  void span(uint32_t track, uint32_t name, sim::Time start, sim::Time end, int64_t bytes = -1);

  // A run over several processes: spans and left-out counts handed in outside `sim`'s windows
  // are kept only when `first` (the first process; every process records those alike).
  void share_over_processes(const sim::Simulator& sim, bool first);
  // What this process recorded (tracks and names by their text), for the first process to
  // merge once the run is over; merge_spans reads one such pack.
  void pack_spans(sim::Bytes& out) const;
  void merge_spans(sim::ByteReader& in);

  // Read once recording is over (the run has ended): the spans in no particular order.
  const TimelineOptions& options() const { return options_; }
  const std::vector<TimelineSpan>& spans() const { return spans_; }
  const std::vector<TimelineTrack>& tracks() const { return tracks_; }
  const std::vector<std::string>& names() const { return names_; }
  uint64_t left_out() const { return left_out_; }

 private:
  bool in_window(sim::Time start, sim::Time end) const {
    return end >= options_.from && start < options_.to;
  }
  // Another process keeps what is handed in now (share_over_processes).
  bool kept_elsewhere() const;
  // The order of keeping: a span that ends earlier, then starts earlier, ... is kept first.
  bool keeps_before(const TimelineSpan& a, const TimelineSpan& b) const;
  template <typename Key, typename Value>
  static uint32_t intern(std::map<Key, uint32_t>& ids, std::vector<Value>& values, const Key& key,
                         Value value) {
    const auto [it, inserted] = ids.try_emplace(key, static_cast<uint32_t>(values.size()));
    if (inserted) values.push_back(std::move(value));
    return it->second;
  }

  TimelineOptions options_;
  mutable std::mutex mutex_;
  // While recording, once full: a heap whose front is the span kept last (keeps_before).
  std::vector<TimelineSpan> spans_;
  std::vector<TimelineTrack> tracks_;
  std::vector<std::string> names_;
  std::map<std::pair<std::string, std::string>, uint32_t> track_ids_;
  std::map<std::string, uint32_t> name_ids_;
  uint64_t left_out_ = 0;
  const sim::Simulator* alike_elsewhere_ = nullptr;  // set in every process but the first
};

}  // namespace models
