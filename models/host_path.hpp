// The host side of an RDMA NIC: the PCIe path between the NIC and the memory it sends from and
// receives into (host DRAM, or GPU memory with GPUDirect RDMA). All off (zero) by default, so a
// NIC is then what `NicParams` alone describes.
//
// A message posted at t has its first packet ready at
//   t + tx_latency + doorbell_latency + dma_read_latency + payload(first packet) / pcie_rate
// (the doorbell reaches the NIC and it holds the WQE; one DMA read round trip to the first
// payload byte; the packet's payload streamed over PCIe). Later packets' payloads are read
// back to back over one read channel per NIC, at most one packet ahead of each queue pair's
// wire (the NIC's send buffer), so a NIC whose PCIe rate is below its line rate sends payload
// at the PCIe rate. At the receiver the payload is written over PCIe at `pcie_rate` (the other
// direction of the link: PCIe is full duplex) and lands `dma_write_latency` after it left the
// NIC; the ACK follows the write, as an RC responder acknowledges placed data.
//
// Figures (Neugebauer et al., "Understanding PCIe performance for end host networking",
// SIGCOMM 2018): a DMA read round trip is ~0.5 us on a server without IOMMU; each transaction
// layer packet (TLP) carries up to the max payload size (256 B is usual) with ~24 B of
// framing, sequence number, header and LCRC. PCIe Gen5 x16: 32 GT/s x 16 lanes x 128/130 =
// 504 Gb/s raw per direction, x 256/280 (TLP overhead) = 460 Gb/s of payload; Gen4 x16 half
// that, 230 Gb/s — below a 400 Gb/s NIC's line rate, which is why 400 Gb/s NICs need Gen5.
// The presets below use those figures; the latencies are orders of magnitude to calibrate.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/param_spec_fwd.hpp"
#include "sim/time.hpp"

namespace models {

struct HostPathParams {
  sim::Time doorbell_latency{0};   // post -> the NIC holds the WQE (MMIO doorbell, WQE fetch)
  sim::Time dma_read_latency{0};   // DMA read request -> first payload byte at the NIC
  sim::Time dma_write_latency{0};  // payload leaves the NIC -> placed in memory (before the ACK)
  int64_t pcie_rate_bps = 0;       // payload bits/s per direction; 0 = unlimited

  bool operator==(const HostPathParams&) const = default;
};

// The names host_path_preset knows.
inline const std::vector<std::string>& host_path_preset_names() {
  static const std::vector<std::string> names{"none", "pcie-gen4-x16", "pcie-gen5-x16"};
  return names;
}

// "none" (all zero), "pcie-gen4-x16", "pcie-gen5-x16". False for an unknown name.
inline bool host_path_preset(const std::string& name, HostPathParams& out) {
  HostPathParams p;
  if (name == "pcie-gen5-x16" || name == "pcie-gen4-x16") {
    p.doorbell_latency = sim::Time(300'000);   // posted MMIO write one way + WQE inline
    p.dma_read_latency = sim::Time(500'000);   // one read round trip (SIGCOMM 2018)
    p.dma_write_latency = sim::Time(250'000);  // posted write one way into memory
    p.pcie_rate_bps = name == "pcie-gen5-x16" ? 460'000'000'000 : 230'000'000'000;
  } else if (name != "none") {
    return false;
  }
  out = p;
  return true;
}

// The parameters of HostPathParams a scenario sets (models/host_path.cpp).
const sim::ParamTable<HostPathParams>& host_path_param_table();

}  // namespace models
