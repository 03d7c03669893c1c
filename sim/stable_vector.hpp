// A growable array whose elements never move: storage in chunks of kChunk elements, the chunk
// table reserved once at its full size, for at most kMaxElements (sim::ChunkTable: zero pages
// paid for as they are written; a `ulimit -v` counts them: an owner that has many such arrays
// bounds them lower). One thread at a
// time appends (the owner serialises appends); any thread may read an element it learned of
// after its append — in a split run, through an event that crossed partitions at a window's
// barrier, or under the owner's lock — while another thread appends: no append moves what it
// reads (a std::vector's reallocation would).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

#include "sim/chunk_table.hpp"

namespace sim {

template <class T, uint32_t kChunk = 1024, size_t kMaxElements = size_t{1} << 32>
class StableVector {
 public:
  StableVector() : chunks_(kMaxChunks) {}
  ~StableVector() {
    const size_t n = (size_.load(std::memory_order_relaxed) + kChunk - 1) / kChunk;
    for (size_t c = 0; c < n; ++c) delete[] chunks_[c];
  }
  StableVector(const StableVector&) = delete;
  StableVector& operator=(const StableVector&) = delete;

  // Elements appended so far (each complete before it counts).
  size_t size() const { return size_.load(std::memory_order_acquire); }
  T& operator[](size_t i) { return chunks_[i / kChunk][i % kChunk]; }
  const T& operator[](size_t i) const { return chunks_[i / kChunk][i % kChunk]; }

  // At least `n` elements, the new ones value-initialised (one appender at a time).
  void grow_to(size_t n) {
    size_t size = size_.load(std::memory_order_relaxed);
    if (size >= n) return;
    for (size_t c = (size + kChunk - 1) / kChunk; c * kChunk < n; ++c) {
      if (c >= kMaxChunks) full();
      chunks_[c] = new T[kChunk]();
    }
    size_.store(n, std::memory_order_release);
  }
  // Removes every element (no appender or reader meanwhile).
  void clear() {
    const size_t n = (size_.load(std::memory_order_relaxed) + kChunk - 1) / kChunk;
    for (size_t c = 0; c < n; ++c) {
      delete[] chunks_[c];
      chunks_[c] = nullptr;
    }
    size_.store(0, std::memory_order_release);
  }
  // Appends `v` (one appender at a time) and returns its index.
  size_t push_back(T v) {
    const size_t n = size_.load(std::memory_order_relaxed);
    if (n % kChunk == 0) {
      if (n / kChunk >= kMaxChunks) full();
      chunks_[n / kChunk] = new T[kChunk]();
    }
    chunks_[n / kChunk][n % kChunk] = std::move(v);
    size_.store(n + 1, std::memory_order_release);
    return n;
  }

 private:
  static_assert(kMaxElements % kChunk == 0, "whole chunks");
  static constexpr size_t kMaxChunks = kMaxElements / kChunk;
  [[noreturn]] static void full() {
    throw std::length_error("a table of more than " + std::to_string(kMaxElements) +
                            " elements (sim::StableVector)");
  }
  ChunkTable<T*> chunks_;
  std::atomic<size_t> size_{0};
};

}  // namespace sim
