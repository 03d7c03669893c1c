#include "sim/local_ranks.hpp"

#include <algorithm>
#include <atomic>
#include <barrier>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace sim {

// Every collective deposits, meets the others at the barrier, reads, and meets them again so
// that nobody deposits the next one over what another has yet to read.
struct LocalRanks::Shared {
  explicit Shared(uint32_t n)
      : ranks(n),
        meet(n),
        left(std::make_unique<std::atomic<bool>[]>(n)),
        boxes(n, std::vector<Bytes>(n)),
        mins(n),
        sums(n) {}
  uint32_t ranks;
  std::barrier<> meet;
  // Ranks that left (LocalRanks::leave): set before they drop out of the barrier, so that the
  // ones the drop lets through see it.
  std::unique_ptr<std::atomic<bool>[]> left;
  std::vector<std::vector<Bytes>> boxes;    // [from][to]
  std::vector<std::vector<int64_t>> mins;   // [rank]
  std::vector<std::vector<uint64_t>> sums;  // [rank]
  std::vector<std::unique_ptr<Endpoint>> endpoints;
};

class LocalRanks::Endpoint final : public RankExchange {
 public:
  Endpoint(Shared& s, uint32_t rank) : s_(s), rank_(rank) {}
  uint32_t rank() const override { return rank_; }
  uint32_t ranks() const override { return s_.ranks; }
  std::vector<Bytes> exchange(std::vector<Bytes> out) override {
    if (out.size() != s_.ranks) throw std::invalid_argument("exchange: one buffer per rank");
    for (uint32_t to = 0; to < s_.ranks; ++to) {
      if (to != rank_) s_.boxes[rank_][to] = std::move(out[to]);
    }
    meet();
    std::vector<Bytes> in(s_.ranks);
    for (uint32_t from = 0; from < s_.ranks; ++from) {
      if (from != rank_) in[from] = std::move(s_.boxes[from][rank_]);
    }
    s_.meet.arrive_and_wait();
    return in;
  }
  void min_all(std::span<int64_t> values) override {
    s_.mins[rank_].assign(values.begin(), values.end());
    meet();
    for (uint32_t r = 0; r < s_.ranks; ++r) {
      for (size_t i = 0; i < values.size(); ++i) values[i] = std::min(values[i], s_.mins[r].at(i));
    }
    s_.meet.arrive_and_wait();
  }
  void leave() {
    if (s_.left[rank_].exchange(true, std::memory_order_acq_rel)) return;
    s_.meet.arrive_and_drop();
  }
  void sum_all(std::span<uint64_t> values) override {
    s_.sums[rank_].assign(values.begin(), values.end());
    meet();
    for (size_t i = 0; i < values.size(); ++i) {
      uint64_t sum = 0;
      for (uint32_t r = 0; r < s_.ranks; ++r) sum += s_.sums[r].at(i);
      values[i] = sum;
    }
    s_.meet.arrive_and_wait();
  }

 private:
  // Every rank at the barrier, or a rank that left let the others through: then none of them
  // can trust what they meet for, and each fails.
  void meet() {
    s_.meet.arrive_and_wait();
    for (uint32_t r = 0; r < s_.ranks; ++r) {
      if (s_.left[r].load(std::memory_order_acquire)) {
        throw std::runtime_error("rank " + std::to_string(r) +
                                 " left the run before this exchange (its run ended or failed "
                                 "where this rank's went on: the ranks disagree)");
      }
    }
  }
  Shared& s_;
  uint32_t rank_;
};

LocalRanks::LocalRanks(uint32_t ranks) {
  if (ranks < 1) throw std::invalid_argument("LocalRanks: at least one rank");
  shared_ = std::make_unique<Shared>(ranks);
  for (uint32_t r = 0; r < ranks; ++r)
    shared_->endpoints.push_back(std::make_unique<Endpoint>(*shared_, r));
}

LocalRanks::~LocalRanks() = default;

void LocalRanks::leave(uint32_t r) {
  (void)rank(r);  // (a rank number in range)
  shared_->endpoints[r]->leave();
}

RankExchange& LocalRanks::rank(uint32_t r) {
  if (r >= shared_->ranks) {
    throw std::out_of_range("rank " + std::to_string(r) + " of " + std::to_string(shared_->ranks));
  }
  return *shared_->endpoints[r];
}

}  // namespace sim
