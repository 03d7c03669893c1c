// What every model component shares in one simulation: the simulator and the packet pool.
// (Components that take it also use the class counts and the receiver interface, which come
// with it.)
#pragma once

#include <vector>

#include "models/packet.hpp"
#include "models/packet_receiver.hpp"
#include "models/traffic_classes.hpp"
#include "sim/per_partition.hpp"
#include "sim/simulator.hpp"

namespace sim {
class ResultArchive;  // sim/result_archive.hpp: a run over processes' results
}  // namespace sim

namespace models {

class TimelineRecorder;

// A log appended by handlers of every partition of a split run (pfc.csv's frames, rates.csv's
// changes, ...): a vector per partition, gathered once the run is over (Network::gather_logs).
template <class T>
using PartitionLog = sim::PerPartition<std::vector<T>>;

struct Context {
  sim::Simulator& sim;
  PacketPool& pool;
  TimelineRecorder* timeline = nullptr;  // `run --timeline`: spans of interest, else none
};

}  // namespace models
