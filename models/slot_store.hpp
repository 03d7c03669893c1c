// Slots of one kind (packets, telemetry records) addressed by 32-bit handle, taken and given
// back by every partition of a run at once. Storage is chunked, so handles stay valid and
// references stable while it grows; the chunk table is reserved once at its full size
// (sim::ChunkTable), so a partition adding a chunk never moves what another reads.
// Each partition takes from and gives back to its own free list (sim::Simulator's
// thread_partition): a slot taken in one partition and given back in another moves to that
// one's list. A handle crosses partitions only with an event through the mailboxes, after the
// window that took it, so its chunk pointer is published by the window's barrier.
#pragma once

#include <atomic>
#include <cstdint>
#include <new>
#include <vector>

#include "sim/chunk_table.hpp"
#include "sim/simulator.hpp"

namespace models {

template <class T, uint32_t kChunk>
class SlotStore {
 public:
  // `first`: the first handle handed out (1 keeps handle 0 for "none").
  explicit SlotStore(uint32_t first = 0) : chunks_(kMaxChunks), first_(first) { lanes_.resize(1); }
  ~SlotStore() {
    const uint32_t n = chunk_count_.load(std::memory_order_relaxed);
    for (uint32_t c = 0; c < n; ++c) delete[] chunks_[c];
  }
  SlotStore(const SlotStore&) = delete;
  SlotStore& operator=(const SlotStore&) = delete;

  // One free list per partition of a split run (before it runs).
  void set_partitions(uint32_t n) {
    lanes_.resize(n);
    split_ = n > 1;
  }

  // A slot holding a value-initialised T.
  uint32_t take() {
    Lane& l = lane();
    ++l.taken;
    if (!l.free.empty()) {
      const uint32_t h = l.free.back();
      l.free.pop_back();
      (*this)[h] = T{};
      return h;
    }
    if (l.next == l.end) add_chunk(l);
    return l.next++;
  }
  void give_back(uint32_t h) {
    Lane& l = lane();
    ++l.given;
    l.free.push_back(h);
  }
  T& operator[](uint32_t h) { return chunks_[h / kChunk][h % kChunk]; }
  const T& operator[](uint32_t h) const { return chunks_[h / kChunk][h % kChunk]; }

  uint64_t in_use() const {
    uint64_t taken = 0, given = 0;
    for (const Lane& l : lanes_) {
      taken += l.taken;
      given += l.given;
    }
    return taken - given;
  }
  uint64_t taken_total() const {
    uint64_t n = 0;
    for (const Lane& l : lanes_) n += l.taken;
    return n;
  }
  uint64_t capacity() const {
    return uint64_t{chunk_count_.load(std::memory_order_relaxed)} * kChunk;
  }

 private:
  static constexpr uint32_t kMaxChunks = static_cast<uint32_t>((uint64_t{1} << 32) / kChunk);
  // A cache line each: partitions on different threads do not share one.
  struct alignas(64) Lane {
    std::vector<uint32_t> free;
    uint32_t next = 0;  // the next fresh slot of the lane's chunk, up to `end`
    uint32_t end = 0;
    uint64_t taken = 0;
    uint64_t given = 0;
  };
  Lane& lane() { return split_ ? lanes_[sim::Simulator::thread_partition()] : lanes_.front(); }
  void add_chunk(Lane& l) {
    const uint32_t c = chunk_count_.fetch_add(1, std::memory_order_relaxed);
    if (c >= kMaxChunks) throw std::bad_alloc();
    chunks_[c] = new T[kChunk]();
    l.next = c * kChunk;
    l.end = l.next + kChunk;
    if (c == 0) l.next = first_;
  }
  sim::ChunkTable<T*> chunks_;
  uint32_t first_;
  std::atomic<uint32_t> chunk_count_{0};
  std::vector<Lane> lanes_;
  bool split_ = false;  // more than one lane
};

}  // namespace models
