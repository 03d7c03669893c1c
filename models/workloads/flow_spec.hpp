// A flow to simulate: what a workload generator produces and the transport consumes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/time.hpp"

namespace models {

// How a message crosses the network: the fabric's transport (fabric.transport), RDMA
// (reliable connected queue pairs), or kernel TCP (models/tcp/tcp_stack.hpp).
enum class FlowTransport : uint8_t { Fabric, Rdma, Tcp };

struct FlowSpec {
  int src_host = -1;  // host number (0..H-1), not node index
  int dst_host = -1;
  int64_t bytes = 0;       // message size in payload bytes, > 0
  sim::Time start;         // when the sender posts the message
  int priority = 3;        // traffic class 0..7
  int dscp = 26;           // DSCP its packets carry, 0..63 (maps to `priority`)
  int qps = 1;             // queue pairs the message is striped over (own UDP source port each)
  std::vector<int> route;  // explicit route: switch node indices in order; empty = ECMP
  std::string tag;         // which workload made it ("flows", "incast", "permutation", ...)
  FlowTransport transport = FlowTransport::Fabric;
};

}  // namespace models
