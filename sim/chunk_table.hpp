// The chunk pointers of a chunked store whose table never moves (sim::StableVector,
// models::SlotStore, models::QpPacketCounts): reserved once at its full size, every entry null
// until written. The table is mapped from the system directly, not calloc'd: anonymous pages
// read as zero and cost memory only once written, and a sanitizer's calloc writes every byte of
// what it hands out — the transport's two 128 MiB tables, cleared page by page in every
// simulation, were most of the sanitizer tests' time (docs/testing.md). A `ulimit -v` still
// counts the whole reservation.
#pragma once

#include <cstddef>

namespace sim {

// `bytes` of zero pages, reserved without committing memory; throws std::bad_alloc.
void* map_zero_pages(size_t bytes);
void unmap_zero_pages(void* p, size_t bytes);

template <class P>
class ChunkTable {
 public:
  explicit ChunkTable(size_t entries)
      : table_(static_cast<P*>(map_zero_pages(entries * sizeof(P)))), bytes_(entries * sizeof(P)) {}
  ~ChunkTable() { unmap_zero_pages(table_, bytes_); }
  ChunkTable(const ChunkTable&) = delete;
  ChunkTable& operator=(const ChunkTable&) = delete;

  P& operator[](size_t i) { return table_[i]; }
  const P& operator[](size_t i) const { return table_[i]; }

 private:
  P* table_;
  size_t bytes_;
};

}  // namespace sim
