#include "tools/probe/verbs_endpoint.hpp"

#include <stdexcept>

#include "scenarios/loader/input_error.hpp"

#ifdef RDMASIM_HAVE_VERBS
#include <infiniband/verbs.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>
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

constexpr int kDepth = 128;  // outstanding work requests per queue pair (perftest's tx depth)
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

std::runtime_error verbs_error(const std::string& what) {
  return std::runtime_error(what + " failed: " + std::strerror(errno));
}

ibv_mtu mtu_enum(int mtu) {
  switch (mtu) {
    case 256:
      return IBV_MTU_256;
    case 512:
      return IBV_MTU_512;
    case 1024:
      return IBV_MTU_1024;
    case 2048:
      return IBV_MTU_2048;
    case 4096:
      return IBV_MTU_4096;
    default:
      throw std::invalid_argument("--mtu: want 256, 512, 1024, 2048 or 4096");
  }
}

class VerbsEndpoint final : public Endpoint {
 public:
  VerbsEndpoint(const VerbsOptions& o, size_t max_bytes, TcpConnection& ctrl)
      : o_(o), max_bytes_(max_bytes) {
    if (o.qps < 1 || o.qps > kMaxQps) throw std::invalid_argument("--qps: want 1 .. 64");
    int n = 0;
    ibv_device** list = ibv_get_device_list(&n);
    if (list == nullptr || n == 0) {
      if (list != nullptr) ibv_free_device_list(list);
      throw std::runtime_error("no RDMA device found; use --transport tcp");
    }
    ibv_device* dev = nullptr;
    for (int i = 0; i < n; ++i) {
      if (o.device.empty() || o.device == ibv_get_device_name(list[i])) {
        dev = list[i];
        break;
      }
    }
    if (dev == nullptr) {
      ibv_free_device_list(list);
      throw std::runtime_error("RDMA device '" + o.device + "' not found");
    }
    device_name_ = ibv_get_device_name(dev);
    ctx_ = ibv_open_device(dev);
    ibv_free_device_list(list);
    if (ctx_ == nullptr) throw verbs_error("ibv_open_device");
    pd_ = ibv_alloc_pd(ctx_);
    if (pd_ == nullptr) throw verbs_error("ibv_alloc_pd");
    // One send region and one receive region of the largest message.
    buf_.assign(2 * max_bytes_ + 64, 0);
    mr_ = ibv_reg_mr(pd_, buf_.data(), buf_.size(),
                     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
    if (mr_ == nullptr) throw verbs_error("ibv_reg_mr");
    send_cq_ = ibv_create_cq(ctx_, kDepth * o.qps, nullptr, nullptr, 0);
    recv_cq_ = ibv_create_cq(ctx_, kDepth * o.qps, nullptr, nullptr, 0);
    if (send_cq_ == nullptr || recv_cq_ == nullptr) throw verbs_error("ibv_create_cq");
    ibv_port_attr pa{};
    if (ibv_query_port(ctx_, static_cast<uint8_t>(o.port), &pa) != 0) {
      throw verbs_error("ibv_query_port");
    }
    roce_ = pa.link_layer == IBV_LINK_LAYER_ETHERNET;
    if (roce_ && o.gid_index < 0) {
      throw std::invalid_argument("the port is Ethernet (RoCE): give --gid-index (often 3)");
    }
    WireInfo mine{};
    std::mt19937 rng(std::random_device{}());
    for (int k = 0; k < o.qps; ++k) {
      ibv_qp_init_attr ia{};
      ia.send_cq = send_cq_;
      ia.recv_cq = recv_cq_;
      ia.qp_type = IBV_QPT_RC;
      ia.cap.max_send_wr = kDepth;
      ia.cap.max_recv_wr = kDepth;
      ia.cap.max_send_sge = 1;
      ia.cap.max_recv_sge = 1;
      ibv_qp* qp = ibv_create_qp(pd_, &ia);
      if (qp == nullptr) throw verbs_error("ibv_create_qp");
      qps_.push_back(qp);
      mine.qpn[k] = qp->qp_num;
      mine.psn[k] = rng() & 0xFFFFFF;
      to_init(qp);
      for (int i = 0; i < kDepth; ++i) post_recv(qp);  // before the peer may send
    }
    mine.rkey = mr_->rkey;
    mine.lid = pa.lid;
    mine.addr = reinterpret_cast<uint64_t>(buf_.data()) + max_bytes_;  // our receive region
    mine.qps = o.qps;
    mine.mtu = o.mtu;
    if (o.gid_index >= 0) {
      ibv_gid gid{};
      if (ibv_query_gid(ctx_, static_cast<uint8_t>(o.port), o.gid_index, &gid) != 0) {
        throw verbs_error("ibv_query_gid");
      }
      std::memcpy(mine.gid, gid.raw, 16);
    }
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
    for (int k = 0; k < o.qps; ++k) connect(qps_[k], k, mine.psn[k]);
  }

  ~VerbsEndpoint() override {
    for (ibv_qp* q : qps_) ibv_destroy_qp(q);
    if (send_cq_ != nullptr) ibv_destroy_cq(send_cq_);
    if (recv_cq_ != nullptr) ibv_destroy_cq(recv_cq_);
    if (mr_ != nullptr) ibv_dereg_mr(mr_);
    if (pd_ != nullptr) ibv_dealloc_pd(pd_);
    if (ctx_ != nullptr) ibv_close_device(ctx_);
  }

  void send_message(size_t bytes) override {
    post_send(bytes, true);
    poll(send_cq_, 1, false);
  }
  void recv_message(size_t) override { poll(recv_cq_, 1, true); }
  void send_stream(size_t bytes, int64_t count) override {
    int64_t posted = 0, done = 0;
    const int64_t window = static_cast<int64_t>(kDepth) * o_.qps;
    while (done < count) {
      while (posted < count && posted - done < window) {
        post_send(bytes, true);
        ++posted;
      }
      done += poll(send_cq_, 1, false);
    }
  }
  void recv_stream(size_t, int64_t count) override {
    for (int64_t got = 0; got < count;) got += poll(recv_cq_, 1, true);
  }

  traces::PerftestInfo info() const override {
    traces::PerftestInfo i;
    i.device = device_name_;
    i.link_type = roce_ ? "Ethernet" : "IB";
    i.transport = "IB";
    i.connection = "RC";
    i.mtu = o_.mtu;
    i.qps = o_.qps;
    return i;
  }

 private:
  void to_init(ibv_qp* qp) {
    ibv_qp_attr a{};
    a.qp_state = IBV_QPS_INIT;
    a.pkey_index = 0;
    a.port_num = static_cast<uint8_t>(o_.port);
    a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_LOCAL_WRITE;
    if (ibv_modify_qp(qp, &a,
                      IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS) != 0) {
      throw verbs_error("ibv_modify_qp(INIT)");
    }
  }

  void connect(ibv_qp* qp, int k, uint32_t my_psn) {
    ibv_qp_attr a{};
    a.qp_state = IBV_QPS_RTR;
    a.path_mtu = mtu_enum(o_.mtu);
    a.dest_qp_num = peer_.qpn[k];
    a.rq_psn = peer_.psn[k];
    a.max_dest_rd_atomic = 1;
    a.min_rnr_timer = 12;
    a.ah_attr.dlid = static_cast<uint16_t>(peer_.lid);
    a.ah_attr.sl = 0;
    a.ah_attr.port_num = static_cast<uint8_t>(o_.port);
    if (o_.gid_index >= 0) {
      a.ah_attr.is_global = 1;
      std::memcpy(a.ah_attr.grh.dgid.raw, peer_.gid, 16);
      a.ah_attr.grh.sgid_index = static_cast<uint8_t>(o_.gid_index);
      a.ah_attr.grh.hop_limit = 64;
    }
    if (ibv_modify_qp(qp, &a,
                      IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                          IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER) != 0) {
      throw verbs_error("ibv_modify_qp(RTR)");
    }
    ibv_qp_attr s{};
    s.qp_state = IBV_QPS_RTS;
    s.timeout = 14;
    s.retry_cnt = 7;
    s.rnr_retry = 7;  // the receiver reposts as it goes: retry receiver-not-ready forever
    s.sq_psn = my_psn;
    s.max_rd_atomic = 1;
    if (ibv_modify_qp(qp, &s,
                      IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                          IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC) != 0) {
      throw verbs_error("ibv_modify_qp(RTS)");
    }
  }

  void post_recv(ibv_qp* qp) {
    ibv_sge sge{};
    sge.addr = reinterpret_cast<uint64_t>(buf_.data()) + max_bytes_;
    sge.length = static_cast<uint32_t>(max_bytes_);
    sge.lkey = mr_->lkey;
    ibv_recv_wr wr{};
    ibv_recv_wr* bad = nullptr;
    wr.wr_id = reinterpret_cast<uint64_t>(qp);
    wr.sg_list = &sge;
    wr.num_sge = 1;
    if (ibv_post_recv(qp, &wr, &bad) != 0) throw verbs_error("ibv_post_recv");
  }

  void post_send(size_t bytes, bool signaled) {
    ibv_qp* qp = qps_[next_qp_];
    next_qp_ = (next_qp_ + 1) % qps_.size();
    ibv_sge sge{};
    sge.addr = reinterpret_cast<uint64_t>(buf_.data());
    sge.length = static_cast<uint32_t>(bytes);
    sge.lkey = mr_->lkey;
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
  std::string device_name_;
  bool roce_ = false;
  ibv_context* ctx_ = nullptr;
  ibv_pd* pd_ = nullptr;
  ibv_mr* mr_ = nullptr;
  ibv_cq* send_cq_ = nullptr;
  ibv_cq* recv_cq_ = nullptr;
  std::vector<ibv_qp*> qps_;
  size_t next_qp_ = 0;
  std::vector<unsigned char> buf_;
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
  return std::make_unique<VerbsEndpoint>(o, max_bytes, ctrl);
}

#endif

}  // namespace probe
