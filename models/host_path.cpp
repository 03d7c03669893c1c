// The parameters of a NIC's PCIe path a scenario sets (fabric.nic and topology.nodes.host_path),
// described once (sim/param_spec.hpp).
#include "models/host_path.hpp"

#include "sim/param_spec.hpp"

namespace models {

const sim::ParamTable<HostPathParams>& host_path_param_table() {
  using S = HostPathParams;
  static const sim::ParamTable<S> t = {
      sim::time_param<S>("doorbell_latency", &S::doorbell_latency,
                         "post to the NIC holding the WQE (MMIO doorbell, WQE fetch); 0 = off "
                         "(models/host_path.hpp)"),
      sim::time_param<S>(
          "dma_read_latency", &S::dma_read_latency,
          "DMA read round trip to the first payload byte (~0.5us, Neugebauer et al. SIGCOMM 2018)"),
      sim::time_param<S>("dma_write_latency", &S::dma_write_latency,
                         "received payload leaves the NIC to placed in memory, before the ACK"),
      sim::rate_or_zero_param<S>(
          "pcie_rate", &S::pcie_rate_bps,
          "PCIe payload rate per direction (Gen5 x16: 504Gbps raw x 256/280 TLP = 460Gbps; Gen4 "
          "x16: 230Gbps); sends read and receives write at it; 0 = unlimited"),
  };
  return t;
}

}  // namespace models
