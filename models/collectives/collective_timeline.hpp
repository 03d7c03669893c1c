// A collective's part of the run timeline (`rdmasim run --timeline`): per rank, one span per
// call (from the rank's start of it to its end) and one per message it sends (posted →
// completed, named after its destination, with its data bytes). Lives only when a timeline is
// being recorded. Spans are recorded where the rank is (a split run's partition, on its
// thread): the recorder orders them.
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
  // A message of `m` posted at `posted` is complete now.
  void sent(const CollectiveMessage& m, sim::Time posted, sim::Time now);
  // `rank`'s part of a call of row `r` from `start` to `end`.
  void rank_call(uint32_t rank, const CollectiveResult& r, sim::Time start, sim::Time end);
  // An in-network iteration: every rank took part from `start` to `end`.
  void iteration(const CollectiveResult& r, sim::Time start, sim::Time end);

 private:
  TimelineRecorder& recorder_;
  int channels_ = 1;
  std::vector<uint32_t> iteration_track_, send_track_;  // [rank]
};

}  // namespace models
