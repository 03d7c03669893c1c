// A value per partition of a split run (sim/simulator.hpp), for state that every partition's
// handlers update — statistics, logs — and that is read once the run is over: each thread
// writes its own partition's copy (a cache line apart), and the reader combines them.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/simulator.hpp"

namespace sim {

template <class T>
class PerPartition {
 public:
  PerPartition() : slots_(1) {}
  // One copy per partition (before the run; the copies are cleared).
  void resize(uint32_t partitions) { slots_ = std::vector<Slot>(partitions); }
  // The running event's partition's copy (the first outside a split run's windows).
  T& local() { return slots_[Simulator::thread_partition()].value; }
  uint32_t size() const { return static_cast<uint32_t>(slots_.size()); }
  T& operator[](uint32_t p) { return slots_[p].value; }
  const T& operator[](uint32_t p) const { return slots_[p].value; }
  // Every partition's copy added up (T's operator+=), once the run is over.
  T sum() const {
    T total{};
    for (const Slot& s : slots_) total += s.value;
    return total;
  }

 private:
  struct alignas(64) Slot {
    T value{};
  };
  std::vector<Slot> slots_;
};

}  // namespace sim
