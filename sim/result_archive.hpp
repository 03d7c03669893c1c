// The results of a run over several processes (sim/rank_exchange.hpp), gathered into the first
// one once the run is over, so that it writes every output as a single process would. Each
// process holds the counts, peaks and logs its own partitions' handlers wrote; the first
// process's copies of the others' handlers were built the same way and left untouched. Every
// process walks its whole fabric in the same order (the same code: each object's
// `archive_results`), and the walk says which partition wrote each object or per-partition slot
// (`holds`): a process packs what its own partitions wrote, and the first process unpacks each
// other process's pack over its own copies, in the same walk. One method per class lists its
// results once, for both directions, so that packing and unpacking cannot drift apart.
#pragma once

#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include "sim/rank_exchange.hpp"

namespace sim {

class ResultArchive {
 public:
  // Packs, into `out`, what the partitions p of rank_of[p] == rank wrote.
  ResultArchive(Bytes& out, std::span<const uint32_t> rank_of, uint32_t rank)
      : out_(&out), rank_of_(rank_of), rank_(rank) {}
  // Unpacks what `rank` packed.
  ResultArchive(ByteReader& in, std::span<const uint32_t> rank_of, uint32_t rank)
      : in_(&in), rank_of_(rank_of), rank_(rank) {}

  bool packing() const { return out_ != nullptr; }
  // What `partition` wrote is in this archive.
  bool holds(uint32_t partition) const {
    return partition < rank_of_.size() && rank_of_[partition] == rank_;
  }
  // Each value: trivially copyable, or a vector of such values.
  template <class... T>
  void operator()(T&... values) {
    (one(values), ...);
  }
  // A value per partition (sim::PerPartition, models::PartitionLog): this archive's slots.
  template <class Slots>
  void partitions(Slots& slots) {
    for (uint32_t p = 0; p < slots.size(); ++p) {
      if (holds(p)) one(slots[p]);
    }
  }

 private:
  template <class T>
  struct IsVector : std::false_type {};
  template <class T, class A>
  struct IsVector<std::vector<T, A>> : std::true_type {};

  template <class T>
  void one(T& value) {
    if constexpr (IsVector<T>::value) {
      uint64_t n = value.size();
      one(n);
      if (!packing()) value.resize(n);
      for (auto& v : value) one(v);
    } else {
      static_assert(std::is_trivially_copyable_v<T>, "a result is plain data");
      if (packing()) {
        put_bytes(*out_, value);
      } else {
        value = in_->get<T>();
      }
    }
  }

  Bytes* out_ = nullptr;
  ByteReader* in_ = nullptr;
  std::span<const uint32_t> rank_of_;
  uint32_t rank_;
};

}  // namespace sim
