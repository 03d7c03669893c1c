// What an in-network all-reduce that also sends transport messages (NVLS-tree, CollNet) has
// in flight while it runs, counted by every partition of a split run: its messages (appended
// under a lock where they are posted, read where they arrive or complete: a table whose
// elements never move), those not yet complete, and its SHARP groups done. The call is over
// once every message is complete and every group done; whichever partition's event sees both
// first ends it, once (finish).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>

#include "sim/stable_vector.hpp"

namespace models {

template <class Message>
class InFlight {
 public:
  // A new call (between windows, or in a run of one list).
  void reset() {
    messages_.clear();
    open_.store(0, std::memory_order_relaxed);
    groups_done_.store(0, std::memory_order_relaxed);
    finished_.store(false, std::memory_order_relaxed);
  }
  // A message posted: its number (the transport flow's owner tag is the number + 1).
  uint32_t add(const Message& m) {
    const std::lock_guard<std::mutex> hold(lock_);
    open_.fetch_add(1, std::memory_order_seq_cst);
    return static_cast<uint32_t>(messages_.push_back(m));
  }
  const Message& operator[](uint32_t i) const { return messages_[i]; }
  // A message complete, or a group done: true for the one caller that finds the call over
  // (`groups`: how many groups it runs).
  bool complete_message(size_t groups) {
    open_.fetch_sub(1, std::memory_order_seq_cst);
    return over(groups);
  }
  bool group_done(size_t groups) {
    groups_done_.fetch_add(1, std::memory_order_seq_cst);
    return over(groups);
  }

 private:
  bool over(size_t groups) {
    if (open_.load(std::memory_order_seq_cst) != 0 ||
        groups_done_.load(std::memory_order_seq_cst) < groups) {
      return false;
    }
    return !finished_.exchange(true, std::memory_order_acq_rel);
  }
  sim::StableVector<Message> messages_;
  std::mutex lock_;
  std::atomic<size_t> open_{0};
  std::atomic<size_t> groups_done_{0};
  std::atomic<bool> finished_{false};
};

}  // namespace models
