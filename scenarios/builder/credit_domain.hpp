// Credit-based link-level flow control (InfiniBand's, IBA 7.9.4) over a part of the network:
// every link of an InfiniBand fabric, and every GPU server's NVLink domain on any fabric.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "models/ib/ib_params.hpp"
#include "models/network.hpp"
#include "models/switch_buffer.hpp"
#include "topologies/topology.hpp"

namespace scen {

// The MMU of a credit-controlled switch: exactly its receive buffers (ports x classes x
// buffer per class), no reserves, no caps; credits keep every (input port, class) within its
// own part, so the shared pool can never refuse a packet.
models::SwitchBufferParams credit_switch_buffer(size_t ports, int classes,
                                                int64_t buffer_per_class);

// Wires credits on the nodes with in_domain[node] and the links they send on (a domain is
// closed: no link leaves it): a credit return per node of `p.data_vls` buffers of
// `p.vl_buffer_bytes` per input port, a gate per sending port starting with the downstream
// buffer's whole credit (stalls logged into `log` when not null), the NICs' SL -> class table.
void wire_credit_domain(const topo::Fabric& f, models::Network& net,
                        const std::vector<bool>& in_domain, const models::IbParams& p,
                        const std::array<uint8_t, 16>& sl_to_vl,
                        models::PartitionLog<models::CreditStall>* log);

}  // namespace scen
