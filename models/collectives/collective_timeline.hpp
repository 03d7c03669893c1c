// A collective's part of the run timeline (`rdmasim run --timeline`): per rank, one span per
// iteration (from its start to the rank's last message sent or received) and one per message
// it sends (posted → completed, named after its destination, with its data bytes). Lives only
// when a timeline is being recorded; the runner calls it at its four moments. In a split run a
// message completes in its sender's partition, on that partition's thread: a rank's last moment
// is an atomic maximum, whatever order the threads note theirs in.
#pragma once

#include <atomic>
#include <memory>
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
  // Every rank took part until the iteration's end (an iteration without messages of ours:
  // SHARP, NVLS-tree, CollNet).
  void all_ranks_took_part() { all_ranks_ = true; }
  // One iteration of `r`'s size has ended at `end` (the latest any partition noted).
  void finish(const CollectiveResult& r, sim::Time end);

 private:
  TimelineRecorder& recorder_;
  int channels_ = 1;
  sim::Time iteration_start_;
  std::vector<sim::Time> posted_at_;  // [message]
  // [rank] the last completion it took part in (picoseconds)
  std::unique_ptr<std::atomic<int64_t>[]> rank_last_;
  bool all_ranks_ = false;
  std::vector<uint32_t> iteration_track_, send_track_;  // [rank]
};

}  // namespace models
