// The verbs transport of rdmasim-probe (libibverbs, rdma-core): reliable-connected queue
// pairs moving the measured messages with RDMA WRITE (with immediate, so the receiver learns of
// each message from its completion queue) or SEND. Device, port, GID index (RoCE), path MTU and
// number of queue pairs are chosen by the user; connection data (QP numbers, LIDs, GIDs, PSNs,
// memory keys) travel over the probe's TCP control connection, version-checked.
#pragma once

#include <memory>
#include <string>

#include "tools/probe/microbench.hpp"

namespace probe {

struct VerbsOptions {
  std::string device;  // "" = the first device
  int port = 1;
  int gid_index = -1;  // -1 = no GRH (InfiniBand); RoCE needs one (often 3 for RoCEv2)
  int mtu = 4096;      // path MTU: 256 .. 4096
  int qps = 1;
  bool write = true;  // RDMA WRITE (with immediate), else SEND
};

// RDMA devices present: -1 when the probe was built without libibverbs.
int rdma_device_count();

// Opens the device, creates and connects the queue pairs with the peer at the other end of
// `ctrl`. Throws std::runtime_error with the failing verb.
std::unique_ptr<Endpoint> make_verbs_endpoint(const VerbsOptions& o, size_t max_bytes,
                                              TcpConnection& ctrl);

}  // namespace probe
