// Algorithm "sharp": one all-reduce iteration handed to the fabric's in-network reduction
// (models/sharp/sharp_allreduce.hpp). Each rank takes part through its first endpoint; the
// group (and its aggregation tree) is the ranks' hosts, built once.
#include <stdexcept>

#include "models/collectives/collective_runner.hpp"
#include "models/sharp/sharp_allreduce.hpp"

namespace models {

void CollectiveRunner::run_sharp(int64_t size) {
  if (sharp_ == nullptr || spec_.op != CollectiveOp::AllReduce) {
    throw std::logic_error(
        "collective algorithm sharp needs an all-reduce on an InfiniBand fabric");
  }
  std::vector<uint32_t> hosts;
  hosts.reserve(spec_.rank_endpoints.size());
  for (const auto& ends : spec_.rank_endpoints) hosts.push_back(ends.front());
  const uint32_t group = sharp_->group(hosts, static_cast<uint8_t>(spec_.priority));
  protocol_ = CollectiveProtocol::Simple;
  current_.protocol = CollectiveProtocol::Simple;
  iteration_start_ = ctx_.sim.now();
  begin_timeline(0);
  sharp_->start(group, size, [this, group] {
    if (timeline_) timeline_->all_ranks_until(ctx_.sim.now());
    const auto& counters = sharp_->counters(group);
    for (size_t r = 0; r < counters.size(); ++r) {
      current_.rank_data_sent[r] += counters[r].data_sent;
      current_.rank_data_received[r] += counters[r].data_received;
      current_.wire_bytes += counters[r].data_sent;
    }
    // A "message" is a chunk a host sends (its result comes back as one too).
    current_.messages += static_cast<uint64_t>(sharp_->chunks(group).chunks()) * counters.size();
    finish_iteration();
  });
}

}  // namespace models
