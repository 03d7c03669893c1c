// A PCIe link or a memory that several NICs' DMA crosses beyond their own PCIe link, served in
// the order the NICs commit their transfers (each transfer occupies it for bytes × crossings
// / rate; back to back when requests queue):
//  - a GPU's own PCIe link to its PCIe switch (GPUDirect RDMA: the NICs next to the GPU read
//    its memory and write into it across this link; one GPU driving several NICs is capped by
//    it). Full duplex: reads (memory -> NIC) and writes (NIC -> memory) each have the rate.
//  - with GPUDirect RDMA off, the host memory the data is staged in: the GPU writes it there
//    and the NIC reads it (or the NIC writes and the GPU reads): every byte crosses the memory
//    twice, and reads and writes share its bandwidth (half duplex).
// Nic::add_shared_dma attaches them (scenarios/builder/build_host_paths.cpp).
#pragma once

#include <algorithm>
#include <cstdint>

#include "sim/time.hpp"

namespace models {

class SharedDmaLink {
 public:
  SharedDmaLink(int64_t rate_bps, int crossings, bool duplex)
      : rate_bps_(rate_bps), crossings_(crossings), duplex_(duplex) {}

  enum Direction { kRead = 0, kWrite = 1 };

  // When `bytes` requested in `dir` no earlier than `floor` would be through.
  sim::Time done_at(Direction dir, sim::Time floor, int64_t bytes) const {
    return std::max(floor, free_at_[index(dir)]) +
           sim::serialization_time(bytes * crossings_, rate_bps_);
  }
  // The transfer ending at `done` (from done_at) takes the link.
  void commit(Direction dir, sim::Time done) { free_at_[index(dir)] = done; }

  int64_t rate_bps() const { return rate_bps_; }
  int crossings() const { return crossings_; }

 private:
  int index(Direction dir) const { return duplex_ ? dir : 0; }

  int64_t rate_bps_;
  int crossings_;
  bool duplex_;
  sim::Time free_at_[2];
};

}  // namespace models
