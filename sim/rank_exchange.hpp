// A split run over several processes (MPI ranks, or in-process ranks: sim/local_ranks.hpp):
// every process builds the whole fabric — handler numbers are construction order, so they
// name the same handler everywhere — and runs only its own partitions' event lists, in the
// same windows as one process would (sim/simulator.hpp, set_ranks). Between two windows the
// processes swap the events their partitions pushed for each other's handlers, by value, and
// agree on the next window's start, the stops and the counts. This is what they need of the
// transport between them; the simulator knows nothing of MPI (tools/mpi_ranks.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace sim {

using Bytes = std::vector<std::byte>;

class RankExchange {
 public:
  virtual ~RankExchange() = default;
  virtual uint32_t rank() const = 0;
  virtual uint32_t ranks() const = 0;
  // Collective (every rank calls it, in the same order): sends `out[r]` to rank r (`out` has
  // ranks() entries; this rank's own is not sent) and returns what each rank sent this one, by
  // rank (this rank's entry empty).
  virtual std::vector<Bytes> exchange(std::vector<Bytes> out) = 0;
  // Collective: each element becomes its minimum over the ranks.
  virtual void min_all(std::span<int64_t> values) = 0;
  // Collective: each element becomes its sum over the ranks.
  virtual void sum_all(std::span<uint64_t> values) = 0;
};

// Appends a trivially copyable value's bytes.
template <class T>
void put_bytes(Bytes& out, const T& value) {
  static_assert(std::is_trivially_copyable_v<T>);
  const auto* p = reinterpret_cast<const std::byte*>(&value);
  out.insert(out.end(), p, p + sizeof(T));
}

// Reads back what put_bytes wrote, in the same order; a short buffer is an error, not a crash.
class ByteReader {
 public:
  explicit ByteReader(std::span<const std::byte> bytes) : rest_(bytes) {}
  template <class T>
  T get() {
    static_assert(std::is_trivially_copyable_v<T>);
    if (rest_.size() < sizeof(T)) {
      throw std::runtime_error(
          "a message between ranks ends early: " + std::to_string(rest_.size()) + " bytes left, " +
          std::to_string(sizeof(T)) + " expected");
    }
    T value;
    std::memcpy(&value, rest_.data(), sizeof(T));
    rest_ = rest_.subspan(sizeof(T));
    return value;
  }
  // The next `n` bytes, as they are (what put_bytes of a Bytes' size announced).
  std::span<const std::byte> take(size_t n) {
    if (rest_.size() < n) {
      throw std::runtime_error(
          "a message between ranks ends early: " + std::to_string(rest_.size()) + " bytes left, " +
          std::to_string(n) + " expected");
    }
    const std::span<const std::byte> part = rest_.first(n);
    rest_ = rest_.subspan(n);
    return part;
  }
  bool empty() const { return rest_.empty(); }

 private:
  std::span<const std::byte> rest_;
};

}  // namespace sim
