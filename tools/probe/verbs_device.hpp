// The one verbs layer of rdmasim-probe (libibverbs, rdma-core): what the microbenchmarks
// (verbs_endpoint.cpp) and the scenario replay (replay_verbs.cpp) both do with a device —
// open it by name, allocate the protection domain, check the port (a RoCE port needs a GID
// index; the path MTU must fit the port's active MTU), register one buffer, create the two
// completion queues, create reliable-connected queue pairs and take them through
// INIT -> RTR -> RTS. Everything is released in reverse order. Each failing verb throws
// std::runtime_error naming it and errno's text.
// Only compiled with libibverbs (RDMASIM_HAVE_VERBS); without an RDMA device nothing here runs,
// and the tests exercise the refusals that come before (docs/calibration.md).
#pragma once

#ifdef RDMASIM_HAVE_VERBS
#include <infiniband/verbs.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace probe {

// Outstanding work requests per queue pair: perftest's default tx depth (ib_write_bw -t 128),
// for the microbenchmarks and the replay alike.
constexpr int kTxDepth = 128;

// "<what> failed: <strerror(errno)>".
std::runtime_error verbs_error(const std::string& what);

// The path MTU's verbs value; std::invalid_argument for anything but 256, 512, 1024, 2048 and
// 4096 (validate_verbs_options refuses those first, with the option's name).
ibv_mtu path_mtu_enum(int mtu);

// Where a queue pair connects to, as the peer told it.
struct RcPeer {
  uint32_t qpn = 0;               // its queue pair number
  uint32_t psn = 0;               // its initial packet sequence number
  uint32_t lid = 0;               // its port's LID (InfiniBand)
  std::array<uint8_t, 16> gid{};  // its GID (RoCE, or InfiniBand with a GRH)
};

// How: this side's port and GID index (-1: no GRH), the path MTU, the service level and the
// traffic class (DSCP << 2) of the packets, this side's initial PSN.
struct RcPath {
  int port = 1;
  int gid_index = -1;
  int mtu = 4096;
  uint8_t service_level = 0;
  uint8_t traffic_class = 0;
  uint32_t psn = 0;
};

class VerbsDevice {
 public:
  // Opens device `name` ("" = the first), allocates a protection domain and queries `port`;
  // refuses an Ethernet (RoCE) port without a GID index, and reads the GID when one is given.
  VerbsDevice(const std::string& name, int port, int gid_index);
  ~VerbsDevice();
  VerbsDevice(const VerbsDevice&) = delete;
  VerbsDevice& operator=(const VerbsDevice&) = delete;

  // Refuses a path MTU above the port's active MTU, naming both.
  void check_path_mtu(int mtu) const;
  // Registers a zeroed buffer of `bytes` with `access` (IBV_ACCESS_*).
  void register_buffer(size_t bytes, int access);
  // One completion queue for sends and one for receives, refused beyond the device's maximum.
  void create_cqs(int send_entries, int recv_entries);
  // A reliable-connected queue pair on the two completion queues, taken to INIT on the port
  // with `access`; kept in qps() in creation order.
  ibv_qp* add_rc_qp(uint32_t max_send_wr, uint32_t max_recv_wr, int access);

  const std::string& name() const { return name_; }
  bool roce() const { return port_attr_.link_layer == IBV_LINK_LAYER_ETHERNET; }
  uint32_t lid() const { return port_attr_.lid; }
  const std::array<uint8_t, 16>& gid() const { return gid_; }
  unsigned char* buffer() { return buf_.data(); }
  uint64_t buffer_address() const { return reinterpret_cast<uint64_t>(buf_.data()); }
  uint32_t lkey() const { return mr_->lkey; }
  uint32_t rkey() const { return mr_->rkey; }
  ibv_cq* send_cq() const { return send_cq_; }
  ibv_cq* recv_cq() const { return recv_cq_; }
  const std::vector<ibv_qp*>& qps() const { return qps_; }

 private:
  std::string name_;
  int port_ = 1;
  ibv_context* ctx_ = nullptr;
  ibv_pd* pd_ = nullptr;
  ibv_mr* mr_ = nullptr;
  ibv_cq* send_cq_ = nullptr;
  ibv_cq* recv_cq_ = nullptr;
  std::vector<ibv_qp*> qps_;
  std::vector<unsigned char> buf_;
  ibv_port_attr port_attr_{};
  std::array<uint8_t, 16> gid_{};
};

// Takes an INIT queue pair to RTR towards `peer`, then to RTS: the timeouts and retries of
// perftest (local ACK timeout 14, 7 retries) and receiver-not-ready retried forever (7), since
// both users repost receives as they go.
void connect_rc(ibv_qp* qp, const RcPath& path, const RcPeer& peer);

}  // namespace probe

#endif
