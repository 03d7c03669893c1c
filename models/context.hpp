// What every model component shares in one simulation: the simulator and the packet pool.
#pragma once

#include "models/packet.hpp"
#include "sim/simulator.hpp"

namespace models {

class TimelineRecorder;

constexpr int kPriorities = 8;  // IEEE 802.1Q traffic classes (also the PFC priorities)
// Traffic classes a port may have: the 8 Ethernet priorities, or an InfiniBand port's data VLs
// (up to 15, IBA 7.6.3; VL 15 is the management lane and carries no data). A port holds
// kPriorities classes, more only on an InfiniBand fabric with more than 8 data VLs
// (EgressPort::set_class_count), so Ethernet ports keep their size.
constexpr int kMaxClasses = 16;

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
