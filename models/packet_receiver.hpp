// The receiving end of a link: a switch or a NIC.
#pragma once

#include <cstdint>

#include "models/packet.hpp"

namespace models {

// Something that accepts a packet arriving on one of its ports (a switch or a NIC).
class PacketReceiver {
 public:
  virtual void receive(PacketHandle h, uint16_t in_port) = 0;

 protected:
  ~PacketReceiver() = default;
};

}  // namespace models
