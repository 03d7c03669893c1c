#include "models/timeline.hpp"

#include <algorithm>

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

void TimelineRecorder::leave_out(sim::Time start, sim::Time end) {
  if (!in_window(start, end)) return;
  const std::lock_guard lock(mutex_);
  ++left_out_;
}

void TimelineRecorder::span(uint32_t track, uint32_t name, sim::Time start, sim::Time end,
                            int64_t bytes) {
  if (!in_window(start, end)) return;  // outside the window: not asked for
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

}  // namespace models
