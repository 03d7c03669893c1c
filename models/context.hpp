// What every model component shares in one simulation: the simulator and the packet pool.
#pragma once

#include "models/packet.hpp"
#include "sim/simulator.hpp"

namespace models {

class TimelineRecorder;

constexpr int kPriorities = 8;  // IEEE 802.1Q traffic classes (also the PFC priorities)

struct Context {
  sim::Simulator& sim;
  PacketPool& pool;
  uint64_t packet_hops = 0;  // packets put on a wire, all links together (benchmark figure)
  TimelineRecorder* timeline = nullptr;  // `run --timeline`: spans of interest, else none
};

// Something that accepts a packet arriving on one of its ports (a switch or a NIC).
class PacketReceiver {
 public:
  virtual void receive(PacketHandle h, uint16_t in_port) = 0;

 protected:
  ~PacketReceiver() = default;
};

}  // namespace models
