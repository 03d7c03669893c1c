// One row of a collective's nccl-tests-style table (collective_runner.hpp runs the calls).
#pragma once

#include <cstdint>
#include <vector>

#include "models/collectives/collective_spec.hpp"
#include "sim/time.hpp"

namespace models {

// One row of the nccl-tests-style table.
struct CollectiveResult {
  uint32_t collective = 0;  // which collective workload of the scenario
  CollectiveOp op = CollectiveOp::AllReduce;
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::Ring;
  CollectiveProtocol protocol = CollectiveProtocol::Simple;
  int ranks = 0;
  int64_t size_bytes = 0;
  int64_t count = 0;     // elements (size / type bytes)
  sim::Time time;        // mean over the iterations
  sim::Time start, end;  // of all iterations together
  uint64_t messages = 0;
  int64_t wire_bytes = 0;  // transport payload of all messages, all iterations
  // Of wire_bytes: what went NVLink endpoint to NVLink endpoint (ranks of one GPU server) and
  // what went through the NICs (every message of plain-host ranks).
  int64_t nvlink_bytes = 0;
  int64_t network_bytes = 0;
  // The pipelining chunk of each channel (NCCL's for the call with "chunk": "nccl"; 0: one
  // message per step).
  int64_t chunk_bytes = 0;
  // Collective data each rank sent and received, per iteration (conservation checks).
  std::vector<int64_t> rank_data_sent, rank_data_received;
  double algbw_gbps() const;  // size / time, GB/s (10^9 bytes)
  double busbw_gbps() const;  // algbw × nccl-tests' factor
};

}  // namespace models
