#include "tools/probe/verbs_device.hpp"

#ifdef RDMASIM_HAVE_VERBS
#include <cerrno>
#include <cstring>

namespace probe {

std::runtime_error verbs_error(const std::string& what) {
  return std::runtime_error(what + " failed: " + std::strerror(errno));
}

ibv_mtu path_mtu_enum(int mtu) {
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
      throw std::invalid_argument("path MTU " + std::to_string(mtu) +
                                  ": want 256, 512, 1024, 2048 or 4096");
  }
}

VerbsDevice::VerbsDevice(const std::string& name, int port, int gid_index) : port_(port) {
  int n = 0;
  ibv_device** list = ibv_get_device_list(&n);
  if (list == nullptr || n == 0) {
    if (list != nullptr) ibv_free_device_list(list);
    throw std::runtime_error("no RDMA device found; use --transport tcp");
  }
  ibv_device* dev = nullptr;
  for (int i = 0; i < n && dev == nullptr; ++i) {
    if (name.empty() || name == ibv_get_device_name(list[i])) dev = list[i];
  }
  if (dev != nullptr) {
    name_ = ibv_get_device_name(dev);
    ctx_ = ibv_open_device(dev);
  }
  ibv_free_device_list(list);
  if (dev == nullptr) throw std::runtime_error("RDMA device '" + name + "' not found");
  if (ctx_ == nullptr) throw verbs_error("ibv_open_device");
  pd_ = ibv_alloc_pd(ctx_);
  if (pd_ == nullptr) throw verbs_error("ibv_alloc_pd");
  if (ibv_query_port(ctx_, static_cast<uint8_t>(port), &port_attr_) != 0) {
    throw verbs_error("ibv_query_port");
  }
  if (roce() && gid_index < 0) {
    throw std::runtime_error("the port is Ethernet (RoCE): give --gid-index (often 3)");
  }
  if (gid_index >= 0) {
    ibv_gid gid{};
    if (ibv_query_gid(ctx_, static_cast<uint8_t>(port), gid_index, &gid) != 0) {
      throw verbs_error("ibv_query_gid");
    }
    std::memcpy(gid_.data(), gid.raw, 16);
  }
}

VerbsDevice::~VerbsDevice() {
  for (ibv_qp* q : qps_) ibv_destroy_qp(q);
  if (send_cq_ != nullptr) ibv_destroy_cq(send_cq_);
  if (recv_cq_ != nullptr) ibv_destroy_cq(recv_cq_);
  if (mr_ != nullptr) ibv_dereg_mr(mr_);
  if (pd_ != nullptr) ibv_dealloc_pd(pd_);
  if (ctx_ != nullptr) ibv_close_device(ctx_);
}

void VerbsDevice::check_path_mtu(int mtu) const {
  if (path_mtu_enum(mtu) > port_attr_.active_mtu) {
    throw std::runtime_error("path MTU " + std::to_string(mtu) +
                             " exceeds the port's active MTU (" +
                             std::to_string(128 << port_attr_.active_mtu) + "); give --mtu");
  }
}

void VerbsDevice::register_buffer(size_t bytes, int access) {
  buf_.assign(bytes, 0);
  mr_ = ibv_reg_mr(pd_, buf_.data(), buf_.size(), access);
  if (mr_ == nullptr) throw verbs_error("ibv_reg_mr");
}

void VerbsDevice::create_cqs(int send_entries, int recv_entries) {
  ibv_device_attr da{};
  if (ibv_query_device(ctx_, &da) != 0) throw verbs_error("ibv_query_device");
  const int most = send_entries > recv_entries ? send_entries : recv_entries;
  if (most > da.max_cqe) {
    throw std::runtime_error("the queue pairs need " + std::to_string(most) +
                             " completion queue entries, the device allows " +
                             std::to_string(da.max_cqe));
  }
  send_cq_ = ibv_create_cq(ctx_, send_entries, nullptr, nullptr, 0);
  recv_cq_ = ibv_create_cq(ctx_, recv_entries, nullptr, nullptr, 0);
  if (send_cq_ == nullptr || recv_cq_ == nullptr) throw verbs_error("ibv_create_cq");
}

ibv_qp* VerbsDevice::add_rc_qp(uint32_t max_send_wr, uint32_t max_recv_wr, int access) {
  ibv_qp_init_attr ia{};
  ia.send_cq = send_cq_;
  ia.recv_cq = recv_cq_;
  ia.qp_type = IBV_QPT_RC;
  ia.cap.max_send_wr = max_send_wr;
  ia.cap.max_recv_wr = max_recv_wr;
  ia.cap.max_send_sge = 1;
  ia.cap.max_recv_sge = 1;
  ibv_qp* qp = ibv_create_qp(pd_, &ia);
  if (qp == nullptr) throw verbs_error("ibv_create_qp");
  qps_.push_back(qp);
  ibv_qp_attr a{};
  a.qp_state = IBV_QPS_INIT;
  a.pkey_index = 0;
  a.port_num = static_cast<uint8_t>(port_);
  a.qp_access_flags = static_cast<unsigned>(access);
  if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS) !=
      0) {
    throw verbs_error("ibv_modify_qp(INIT)");
  }
  return qp;
}

void connect_rc(ibv_qp* qp, const RcPath& path, const RcPeer& peer) {
  ibv_qp_attr a{};
  a.qp_state = IBV_QPS_RTR;
  a.path_mtu = path_mtu_enum(path.mtu);
  a.dest_qp_num = peer.qpn;
  a.rq_psn = peer.psn;
  a.max_dest_rd_atomic = 1;
  a.min_rnr_timer = 12;
  a.ah_attr.dlid = static_cast<uint16_t>(peer.lid);
  a.ah_attr.sl = path.service_level;
  a.ah_attr.port_num = static_cast<uint8_t>(path.port);
  if (path.gid_index >= 0) {
    a.ah_attr.is_global = 1;
    std::memcpy(a.ah_attr.grh.dgid.raw, peer.gid.data(), 16);
    a.ah_attr.grh.sgid_index = static_cast<uint8_t>(path.gid_index);
    a.ah_attr.grh.hop_limit = 64;
    a.ah_attr.grh.traffic_class = path.traffic_class;
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
  s.rnr_retry = 7;
  s.sq_psn = path.psn;
  s.max_rd_atomic = 1;
  if (ibv_modify_qp(qp, &s,
                    IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                        IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC) != 0) {
    throw verbs_error("ibv_modify_qp(RTS)");
  }
}

}  // namespace probe

#endif
