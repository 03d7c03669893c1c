#include "tools/probe/verbs_endpoint.hpp"

#include <stdexcept>

#include "scenarios/loader/input_error.hpp"

#ifdef RDMASIM_HAVE_VERBS
#include <infiniband/verbs.h>

#include <cstring>
#include <random>

#include "tools/probe/verbs_device.hpp"
#endif

namespace probe {

void validate_verbs_options(const VerbsOptions& o, bool mtu_zero_ok) {
  if (o.port < 1 || o.port > 255) {
    throw scen::InputError("--ib-port", std::to_string(o.port), "a device port, 1 .. 255");
  }
  if (o.gid_index < -1 || o.gid_index > 255) {
    throw scen::InputError("--gid-index", std::to_string(o.gid_index),
                           "-1 (no GRH, InfiniBand) or a GID table index 0 .. 255");
  }
  const bool ib_mtu = o.mtu == 256 || o.mtu == 512 || o.mtu == 1024 || o.mtu == 2048 ||
                      o.mtu == 4096 || (mtu_zero_ok && o.mtu == 0);
  if (!ib_mtu) {
    throw scen::InputError("--mtu", std::to_string(o.mtu),
                           std::string("a path MTU: 256, 512, 1024, 2048 or 4096") +
                               (mtu_zero_ok ? " (0: the scenario's)" : ""));
  }
  if (o.qps < 1 || o.qps > 64) {
    throw scen::InputError("--qps", std::to_string(o.qps), "1 .. 64 queue pairs");
  }
}

std::string verbs_unavailable() {
  const int devices = rdma_device_count();
  if (devices < 0) return "built without libibverbs; use --transport tcp";
  if (devices == 0) return "no RDMA device found; use --transport tcp";
  return "";
}

#ifndef RDMASIM_HAVE_VERBS

int rdma_device_count() {
  return -1;
}

std::unique_ptr<Endpoint> make_verbs_endpoint(const VerbsOptions&, size_t, TcpConnection&) {
  throw std::runtime_error("rdmasim-probe was built without libibverbs (install libibverbs-dev)");
}

#else

namespace {

constexpr int kMaxQps = 64;

// What one side tells the other to connect (fixed layout, sent raw after a VerbsInfo header).
struct WireInfo {
  uint32_t qpn[kMaxQps];
  uint32_t psn[kMaxQps];
  uint32_t rkey;
  uint32_t lid;
  uint64_t addr;
  uint8_t gid[16];
  int32_t qps;
  int32_t mtu;
};

class VerbsEndpoint final : public Endpoint {
 public:
  VerbsEndpoint(const VerbsOptions& o, size_t max_bytes, TcpConnection& ctrl)
      : o_(o), max_bytes_(max_bytes), dev_(o.device, o.port, o.gid_index) {
    dev_.check_path_mtu(o.mtu);
    // One send region and one receive region of the largest message.
    dev_.register_buffer(2 * max_bytes_ + 64,
                         IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
    dev_.create_cqs(kTxDepth * o.qps, kTxDepth * o.qps);
    WireInfo mine{};
    std::mt19937 rng(std::random_device{}());
    for (int k = 0; k < o.qps; ++k) {
      ibv_qp* qp =
          dev_.add_rc_qp(kTxDepth, kTxDepth,
                         IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_LOCAL_WRITE);
      mine.qpn[k] = qp->qp_num;
      mine.psn[k] = rng() & 0xFFFFFF;
      for (int i = 0; i < kTxDepth; ++i) post_recv(qp);  // before the peer may send
    }
    mine.rkey = dev_.rkey();
    mine.lid = dev_.lid();
    mine.addr = dev_.buffer_address() + max_bytes_;  // our receive region
    mine.qps = o.qps;
    mine.mtu = o.mtu;
    std::memcpy(mine.gid, dev_.gid().data(), 16);
    ctrl.send_header(MsgKind::VerbsInfo, sizeof mine);
    ctrl.send_all(&mine, sizeof mine);
    const Header h = ctrl.recv_header(MsgKind::VerbsInfo, sizeof(WireInfo));
    if (h.bytes != sizeof(WireInfo)) {
      throw ProtocolError("peer's connection data is " + std::to_string(h.bytes) +
                          " bytes, expected " + std::to_string(sizeof(WireInfo)));
    }
    ctrl.recv_all(&peer_, sizeof peer_);
    if (peer_.qps != o.qps || peer_.mtu != o.mtu) {
      throw ProtocolError("peer uses " + std::to_string(peer_.qps) + " QPs and MTU " +
                          std::to_string(peer_.mtu) + "; this side " + std::to_string(o.qps) +
                          " and " + std::to_string(o.mtu));
    }
    for (int k = 0; k < o.qps; ++k) {
      RcPeer peer;
      peer.qpn = peer_.qpn[k];
      peer.psn = peer_.psn[k];
      peer.lid = peer_.lid;
      std::memcpy(peer.gid.data(), peer_.gid, 16);
      RcPath path;
      path.port = o.port;
      path.gid_index = o.gid_index;
      path.mtu = o.mtu;
      path.psn = mine.psn[k];
      connect_rc(dev_.qps()[static_cast<size_t>(k)], path, peer);
    }
  }

  void send_message(size_t bytes) override {
    post_send(bytes, true);
    poll(dev_.send_cq(), 1, false);
  }
  void recv_message(size_t) override { poll(dev_.recv_cq(), 1, true); }
  void send_stream(size_t bytes, int64_t count) override {
    int64_t posted = 0, done = 0;
    const int64_t window = static_cast<int64_t>(kTxDepth) * o_.qps;
    while (done < count) {
      while (posted < count && posted - done < window) {
        post_send(bytes, true);
        ++posted;
      }
      done += poll(dev_.send_cq(), 1, false);
    }
  }
  void recv_stream(size_t, int64_t count) override {
    for (int64_t got = 0; got < count;) got += poll(dev_.recv_cq(), 1, true);
  }

  traces::PerftestInfo info() const override {
    traces::PerftestInfo i;
    i.device = dev_.name();
    i.link_type = dev_.roce() ? "Ethernet" : "IB";
    i.transport = "IB";
    i.connection = "RC";
    i.mtu = o_.mtu;
    i.qps = o_.qps;
    return i;
  }

 private:
  void post_recv(ibv_qp* qp) {
    ibv_sge sge{};
    sge.addr = dev_.buffer_address() + max_bytes_;
    sge.length = static_cast<uint32_t>(max_bytes_);
    sge.lkey = dev_.lkey();
    ibv_recv_wr wr{};
    ibv_recv_wr* bad = nullptr;
    wr.wr_id = reinterpret_cast<uint64_t>(qp);
    wr.sg_list = &sge;
    wr.num_sge = 1;
    if (ibv_post_recv(qp, &wr, &bad) != 0) throw verbs_error("ibv_post_recv");
  }

  void post_send(size_t bytes, bool signaled) {
    ibv_qp* qp = dev_.qps()[next_qp_];
    next_qp_ = (next_qp_ + 1) % dev_.qps().size();
    ibv_sge sge{};
    sge.addr = dev_.buffer_address();
    sge.length = static_cast<uint32_t>(bytes);
    sge.lkey = dev_.lkey();
    ibv_send_wr wr{};
    ibv_send_wr* bad = nullptr;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.send_flags = signaled ? IBV_SEND_SIGNALED : 0;
    if (o_.write) {
      wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
      wr.imm_data = htonl(static_cast<uint32_t>(bytes));
      wr.wr.rdma.remote_addr = peer_.addr;
      wr.wr.rdma.rkey = peer_.rkey;
    } else {
      wr.opcode = IBV_WR_SEND;
    }
    if (ibv_post_send(qp, &wr, &bad) != 0) throw verbs_error("ibv_post_send");
  }

  // Busy-polls `cq` for at least `min` completions; receive completions are reposted.
  int poll(ibv_cq* cq, int min, bool receive) {
    ibv_wc wc[16];
    int got = 0;
    while (got < min) {
      const int n = ibv_poll_cq(cq, 16, wc);
      if (n < 0) throw verbs_error("ibv_poll_cq");
      for (int i = 0; i < n; ++i) {
        if (wc[i].status != IBV_WC_SUCCESS) {
          throw std::runtime_error(std::string("work completion failed: ") +
                                   ibv_wc_status_str(wc[i].status));
        }
        if (receive) post_recv(reinterpret_cast<ibv_qp*>(wc[i].wr_id));
      }
      got += n;
    }
    return got;
  }

  VerbsOptions o_;
  size_t max_bytes_;
  VerbsDevice dev_;
  size_t next_qp_ = 0;
  WireInfo peer_{};
};

}  // namespace

int rdma_device_count() {
  int n = 0;
  ibv_device** list = ibv_get_device_list(&n);
  if (list != nullptr) ibv_free_device_list(list);
  return list == nullptr ? 0 : n;
}

std::unique_ptr<Endpoint> make_verbs_endpoint(const VerbsOptions& o, size_t max_bytes,
                                              TcpConnection& ctrl) {
  if (o.qps < 1 || o.qps > kMaxQps) throw std::invalid_argument("--qps: want 1 .. 64");
  return std::make_unique<VerbsEndpoint>(o, max_bytes, ctrl);
}

#endif

}  // namespace probe
