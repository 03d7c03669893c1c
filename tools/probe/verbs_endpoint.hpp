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

// Refuses (scen::InputError, naming the option) a port below 1, a GID index below -1, a path
// MTU other than 256 .. 4096 in powers of two (0 too when `mtu_zero_ok`: "the scenario's"), a
// number of queue pairs outside 1 .. 64. Needs no device: it runs before one is looked for.
void validate_verbs_options(const VerbsOptions& o, bool mtu_zero_ok);

// The refusal when there is nothing to run verbs on: "" when a device is present, else the
// message (built without libibverbs, or no RDMA device found; both say to use tcp).
std::string verbs_unavailable();

// Opens the device, creates and connects the queue pairs with the peer at the other end of
// `ctrl`. Throws std::runtime_error with the failing verb.
std::unique_ptr<Endpoint> make_verbs_endpoint(const VerbsOptions& o, size_t max_bytes,
                                              TcpConnection& ctrl);

}  // namespace probe
