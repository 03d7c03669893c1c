#include "models/timeline.hpp"

#include <algorithm>
#include <stdexcept>

#include "sim/simulator.hpp"

namespace models {

uint32_t TimelineRecorder::track(const std::string& process, const std::string& thread,
                                 int64_t sort) {
  const std::lock_guard lock(mutex_);
  return intern(track_ids_, tracks_, std::make_pair(process, thread),
                TimelineTrack{process, thread, sort});
}

uint32_t TimelineRecorder::name(const std::string& n) {
  const std::lock_guard lock(mutex_);
  return intern(name_ids_, names_, n, n);
}

bool TimelineRecorder::keeps_before(const TimelineSpan& a, const TimelineSpan& b) const {
  if (a.end != b.end) return a.end < b.end;
  if (a.start != b.start) return a.start < b.start;
  if (a.track != b.track) return a.track < b.track;
  if (a.name != b.name) return names_[a.name] < names_[b.name];
  return a.bytes < b.bytes;
}

bool TimelineRecorder::wants(sim::Time start, sim::Time end) const {
  if (!in_window(start, end)) return false;
  const std::lock_guard lock(mutex_);
  // Full: only a span ending no later than the last one kept may take its place (the one kept
  // last only moves earlier, so a "no" stays right).
  return spans_.size() < options_.max_spans || (!spans_.empty() && end <= spans_.front().end);
}

bool TimelineRecorder::kept_elsewhere() const {
  return alike_elsewhere_ != nullptr && !alike_elsewhere_->in_window();
}

void TimelineRecorder::leave_out(sim::Time start, sim::Time end) {
  if (!in_window(start, end) || kept_elsewhere()) return;
  const std::lock_guard lock(mutex_);
  ++left_out_;
}

void TimelineRecorder::span(uint32_t track, uint32_t name, sim::Time start, sim::Time end,
                            int64_t bytes) {
  if (!in_window(start, end)) return;  // outside the window: not asked for
  if (kept_elsewhere()) return;
  const std::lock_guard lock(mutex_);
  const TimelineSpan s{start, end, track, name, bytes};
  const auto later = [this](const TimelineSpan& a, const TimelineSpan& b) {
    return keeps_before(a, b);
  };
  if (spans_.size() < options_.max_spans) {
    spans_.push_back(s);
    if (spans_.size() == options_.max_spans) std::make_heap(spans_.begin(), spans_.end(), later);
    return;
  }
  ++left_out_;
  if (spans_.empty() || !keeps_before(s, spans_.front())) return;
  std::pop_heap(spans_.begin(), spans_.end(), later);
  spans_.back() = s;
  std::push_heap(spans_.begin(), spans_.end(), later);
}

void TimelineRecorder::share_over_processes(const sim::Simulator& sim, bool first) {
  alike_elsewhere_ = first ? nullptr : &sim;
}

namespace {

void put_text(sim::Bytes& out, const std::string& text) {
  sim::put_bytes(out, static_cast<uint64_t>(text.size()));
  const auto* p = reinterpret_cast<const std::byte*>(text.data());
  out.insert(out.end(), p, p + text.size());
}

std::string get_text(sim::ByteReader& in) {
  const auto bytes = in.take(in.get<uint64_t>());
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

}  // namespace

void TimelineRecorder::pack_spans(sim::Bytes& out) const {
  const std::lock_guard lock(mutex_);
  sim::put_bytes(out, static_cast<uint64_t>(tracks_.size()));
  for (const TimelineTrack& t : tracks_) {
    put_text(out, t.process);
    put_text(out, t.thread);
    sim::put_bytes(out, t.sort);
  }
  sim::put_bytes(out, static_cast<uint64_t>(names_.size()));
  for (const std::string& n : names_) put_text(out, n);
  sim::put_bytes(out, static_cast<uint64_t>(spans_.size()));
  for (const TimelineSpan& s : spans_) sim::put_bytes(out, s);
  sim::put_bytes(out, left_out_);
}

void TimelineRecorder::merge_spans(sim::ByteReader& in) {
  // Tracks are asked for outside the windows, so every process numbered them alike; a track
  // only another process knows would be numbered here after this one's own.
  std::vector<uint32_t> track_here(in.get<uint64_t>());
  for (uint32_t& t : track_here) {
    std::string process = get_text(in);
    std::string thread = get_text(in);
    t = track(process, thread, in.get<int64_t>());
  }
  std::vector<uint32_t> name_here(in.get<uint64_t>());
  for (uint32_t& n : name_here) n = name(get_text(in));
  const auto count = in.get<uint64_t>();
  for (uint64_t i = 0; i < count; ++i) {
    const auto s = in.get<TimelineSpan>();
    if (s.track >= track_here.size() || s.name >= name_here.size()) {
      throw std::runtime_error("a timeline span from another process names an unknown track");
    }
    span(track_here[s.track], name_here[s.name], s.start, s.end, s.bytes);
  }
  const auto left_out = in.get<uint64_t>();
  const std::lock_guard lock(mutex_);
  left_out_ += left_out;
}

}  // namespace models
