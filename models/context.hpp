// What every model component shares in one simulation: the simulator and the packet pool.
// (Components that take it also use the class counts and the receiver interface, which come
// with it.)
#pragma once

#include "models/packet.hpp"
#include "models/packet_receiver.hpp"
#include "models/traffic_classes.hpp"
#include "sim/simulator.hpp"

namespace models {

class TimelineRecorder;

struct Context {
  sim::Simulator& sim;
  PacketPool& pool;
  uint64_t packet_hops = 0;  // packets put on a wire, all links together (benchmark figure)
  TimelineRecorder* timeline = nullptr;  // `run --timeline`: spans of interest, else none
};

}  // namespace models
