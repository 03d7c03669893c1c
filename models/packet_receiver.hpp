// The receiving end of a link: a switch or a NIC.
#pragma once

#include <cstdint>

#include "models/packet.hpp"

namespace models {

// Something that accepts a packet arriving on one of its ports (a switch or a NIC).
class PacketReceiver {
 public:
  virtual void receive(PacketHandle h, uint16_t in_port) = 0;
  // A hint, one or two events before a packet with this arrival hint (packet.hpp) comes in on
  // `in_port` (the run loop's prefetch pipeline, sim/simulator.cpp): `depth` 0, load what
  // receive() reads first; 1, what that leads to. Changes nothing.
  virtual void prefetch_arrival(uint32_t /*arrival_hint*/, uint16_t /*in_port*/,
                                int /*depth*/) const {}

 protected:
  ~PacketReceiver() = default;
};

}  // namespace models
