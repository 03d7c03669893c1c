// Conservation of packets: every packet ever created was consumed (by a NIC, a switch taking a
// pause or credit update, a SHARP engine), dropped, or is still in the network at the end. A run
// that breaks it has a model bug, so it is an internal error, not a result.
#pragma once

#include <cstdint>

#include "models/network.hpp"
#include "scenarios/run/link_results.hpp"

namespace scen {

struct PacketTotals {
  uint64_t created = 0;
  uint64_t consumed = 0;
  uint64_t data_sent = 0;    // data packets the NICs sent
  uint64_t acks = 0;         // ACKs and NACKs the NICs sent
  uint64_t rx_overflow = 0;  // NIC receive-buffer drops
  uint64_t in_flight = 0;
};

// Closes the NICs' accounting and counts; throws std::logic_error if the books do not balance.
PacketTotals check_packet_conservation(models::Network& net, const FabricTotals& fabric);

}  // namespace scen
