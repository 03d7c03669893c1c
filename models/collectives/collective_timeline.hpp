// A collective's part of the run timeline (`rdmasim run --timeline`): per rank, one span per
// iteration (from its start to the rank's last message sent or received) and one per message
// it sends (posted → completed, named after its destination, with its data bytes). Lives only
// when a timeline is being recorded; the runner calls it at its four moments.
#pragma once

#include <string>
#include <vector>

#include "models/collectives/schedule.hpp"
#include "models/timeline.hpp"

namespace models {

struct CollectiveResult;

class CollectiveTimeline {
 public:
  CollectiveTimeline(TimelineRecorder& recorder, const std::string& process,
                     const CollectiveSpec& spec);
  void begin(size_t messages, sim::Time now);
  void posted(uint32_t message, sim::Time now) { posted_at_[message] = now; }
  void completed(uint32_t message, const CollectiveMessage& m, sim::Time now);
  // Every rank took part until `now` (an iteration without messages of ours: SHARP).
  void all_ranks_until(sim::Time now) { rank_last_.assign(rank_last_.size(), now); }
  // One iteration of `r`'s size has ended.
  void finish(const CollectiveResult& r);

 private:
  TimelineRecorder& recorder_;
  int channels_ = 1;
  sim::Time iteration_start_;
  std::vector<sim::Time> posted_at_;                    // [message]
  std::vector<sim::Time> rank_last_;                    // [rank] last completion it took part in
  std::vector<uint32_t> iteration_track_, send_track_;  // [rank]
};

}  // namespace models
