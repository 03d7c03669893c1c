#include "sim/chunk_table.hpp"

#include <sys/mman.h>

#include <new>

namespace sim {

void* map_zero_pages(size_t bytes) {
#ifdef MAP_NORESERVE
  constexpr int kFlags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
#else
  constexpr int kFlags = MAP_PRIVATE | MAP_ANONYMOUS;
#endif
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, kFlags, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  return p;
}

void unmap_zero_pages(void* p, size_t bytes) {
  munmap(p, bytes);
}

}  // namespace sim
