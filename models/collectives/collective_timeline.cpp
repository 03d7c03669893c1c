#include "models/collectives/collective_timeline.hpp"

#include "models/collectives/collective_runner.hpp"
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

void CollectiveTimeline::sent(const CollectiveMessage& m, sim::Time posted, sim::Time now) {
  if (!recorder_.wants(posted, now)) {
    recorder_.leave_out(posted, now);
    return;
  }
  std::string name = "-> rank " + std::to_string(m.dst_rank);
  if (channels_ > 1) name += " ch " + std::to_string(m.channel);
  recorder_.span(send_track_[m.src_rank], recorder_.name(name), posted, now, m.data_bytes);
}

void CollectiveTimeline::rank_call(uint32_t rank, const CollectiveResult& r, sim::Time start,
                                   sim::Time end) {
  if (!recorder_.wants(start, end)) {
    recorder_.leave_out(start, end);
    return;
  }
  const std::string name = std::string(to_string(r.op)) + " " + sim::format_bytes(r.size_bytes) +
                           " " + to_string(r.algorithm) + "/" + to_string(r.protocol);
  recorder_.span(iteration_track_[rank], recorder_.name(name), start, end, r.size_bytes);
}

void CollectiveTimeline::iteration(const CollectiveResult& r, sim::Time start, sim::Time end) {
  for (uint32_t rank = 0; rank < iteration_track_.size(); ++rank) rank_call(rank, r, start, end);
}

}  // namespace models
