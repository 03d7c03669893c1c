// A chunk table is reserved at its full size and costs memory only where it is written
// (sim/chunk_table.hpp): every transport, packet pool and collective runner holds such tables,
// up to 128 MiB each, and a simulation that paid for them in full (a sanitizer's calloc writes
// every byte) spent most of its time clearing pages.
#include "sim/chunk_table.hpp"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <fstream>
#include <memory>
#include <vector>

#include "models/packet.hpp"
#include "sim/stable_vector.hpp"

namespace {

// The process's resident memory now (Linux's /proc/self/statm, in pages).
int64_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  int64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * static_cast<int64_t>(sysconf(_SC_PAGESIZE));
}

constexpr int64_t kMiB = int64_t{1} << 20;

}  // namespace

TEST_CASE("a chunk table reads zero everywhere and costs memory only where it is written",
          "[unit][sim]") {
  constexpr size_t kEntries = size_t{1} << 24;  // 128 MiB of pointers
  const int64_t before = resident_bytes();
  std::vector<std::unique_ptr<sim::ChunkTable<int*>>> tables;
  for (int i = 0; i < 8; ++i) tables.push_back(std::make_unique<sim::ChunkTable<int*>>(kEntries));
  // 1 GiB reserved; what is resident grew by far less than one table.
  CHECK(resident_bytes() - before < 32 * kMiB);

  int value = 7;
  for (auto& t : tables) {
    CHECK((*t)[0] == nullptr);
    CHECK((*t)[kEntries / 2] == nullptr);
    CHECK((*t)[kEntries - 1] == nullptr);
    (*t)[kEntries - 1] = &value;
    CHECK(*(*t)[kEntries - 1] == 7);
  }
  CHECK(resident_bytes() - before < 32 * kMiB);
}

TEST_CASE("the tables that never move reserve their chunk tables without paying for them",
          "[unit][sim]") {
  // A transport's flows and QPs (2^32 elements in chunks of 256: two 128 MiB tables), a
  // packet pool's slots, records and per-QP counts: each simulation builds them.
  const int64_t before = resident_bytes();
  {
    std::vector<std::unique_ptr<sim::StableVector<uint64_t, 256>>> vectors;
    std::vector<std::unique_ptr<models::PacketPool>> pools;
    for (int i = 0; i < 4; ++i) {
      vectors.push_back(std::make_unique<sim::StableVector<uint64_t, 256>>());
      vectors.back()->push_back(uint64_t{42});
      pools.push_back(std::make_unique<models::PacketPool>());
      const models::PacketHandle h = pools.back()->alloc();
      pools.back()->release(h);
    }
    CHECK((*vectors.back())[0] == 42);
    CHECK(resident_bytes() - before < 64 * kMiB);
  }
}
