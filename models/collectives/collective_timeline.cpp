#include "models/collectives/collective_timeline.hpp"

#include "models/collectives/collective_runner.hpp"
#include "sim/atomic_max.hpp"
#include "sim/units.hpp"

namespace models {

CollectiveTimeline::CollectiveTimeline(TimelineRecorder& recorder, const std::string& process,
                                       const CollectiveSpec& spec)
    : recorder_(recorder), channels_(spec.channels) {
  const int ranks = spec.ranks();
  for (int r = 0; r < ranks; ++r) {
    std::string who = "rank " + std::to_string(r);
    if (static_cast<size_t>(r) < spec.rank_names.size()) who += " (" + spec.rank_names[r] + ")";
    iteration_track_.push_back(recorder_.track(process, who, 2 * r));
    send_track_.push_back(recorder_.track(process, who + " sends", 2 * r + 1));
  }
}

void CollectiveTimeline::begin(size_t messages, sim::Time now) {
  iteration_start_ = now;
  posted_at_.assign(messages, sim::Time(0));
  if (!rank_last_) rank_last_ = std::make_unique<std::atomic<int64_t>[]>(iteration_track_.size());
  for (size_t r = 0; r < iteration_track_.size(); ++r) rank_last_[r].store(now.ps);
  all_ranks_ = false;
}

void CollectiveTimeline::completed(uint32_t message, const CollectiveMessage& m, sim::Time now) {
  sim::raise_to(rank_last_[m.src_rank], now.ps);
  sim::raise_to(rank_last_[m.dst_rank], now.ps);
  const sim::Time posted = posted_at_[message];
  if (!recorder_.wants(posted, now)) {
    recorder_.leave_out(posted, now);
    return;
  }
  std::string name = "-> rank " + std::to_string(m.dst_rank);
  if (channels_ > 1) name += " ch " + std::to_string(m.channel);
  recorder_.span(send_track_[m.src_rank], recorder_.name(name), posted, now, m.data_bytes);
}

void CollectiveTimeline::finish(const CollectiveResult& r, sim::Time end) {
  const std::string name = std::string(to_string(r.op)) + " " + sim::format_bytes(r.size_bytes) +
                           " " + to_string(r.algorithm) + "/" + to_string(r.protocol);
  for (size_t rank = 0; rank < iteration_track_.size(); ++rank) {
    const sim::Time last = all_ranks_ ? end : sim::Time(rank_last_[rank].load());
    if (!recorder_.wants(iteration_start_, last)) {
      recorder_.leave_out(iteration_start_, last);
      continue;
    }
    recorder_.span(iteration_track_[rank], recorder_.name(name), iteration_start_, last,
                   r.size_bytes);
  }
}

}  // namespace models
