// Scenario replay over verbs (libibverbs, rdma-core). Each flow gets its own RC queue pairs, as
// the simulator models it (verbs_replay_plan.hpp: the same striping over `qps`); queue pair
// numbers, PSNs, LIDs, GIDs, the receive region's address and rkey travel over MPI
// (verbs_connection.hpp: versioned, sizes checked). At its start time a flow's shares are
// posted as RDMA WRITEs of at most one chunk each, the last one WRITE_WITH_IMM carrying the
// flow id (or as SENDs with --verb send), every one signalled. The flow is complete when the
// last work request of its last queue pair completes at the sender: an RC requester completes
// a write when the responder's ACK for its last packet arrives, the event at which the
// simulator's FCT ends and at which the tcp replay's acknowledgement arrives. The responder
// sees each flow's immediate (or its sends) in its receive completion queue; that is how the
// replay checks that every flow arrived, whole and at the right host.
// One thread per rank busy-polls both completion queues and posts flows at their start times.
#include <stdexcept>

#include "tools/probe/replay_transport.hpp"

#ifdef RDMASIM_HAVE_VERBS
#include <infiniband/verbs.h>
#include <mpi.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>
#include <optional>
#include <random>
#include <thread>
#include <tuple>

#include "scenarios/loader/input_error.hpp"
#include "tools/probe/verbs_device.hpp"
#include "tools/probe/verbs_replay_plan.hpp"
#endif

namespace probe {

#ifndef RDMASIM_HAVE_VERBS

std::vector<Completion> replay_verbs(const scen::Scenario&, int, int, const ReplayOptions&,
                                     FirstError&) {
  throw std::runtime_error("rdmasim-probe was built without libibverbs (install libibverbs-dev)");
}

#else

namespace {

using Clock = std::chrono::steady_clock;
constexpr int64_t kDepth = kTxDepth;  // outstanding work requests per queue pair
constexpr auto kReceiveGrace = std::chrono::seconds(1);

// Per queue pair progress.
struct QpRun {
  int64_t posted = 0;      // requester: work requests posted; responder: receives posted
  int64_t completed = 0;   // completions seen
  int64_t bytes_seen = 0;  // responder with sends: payload received
  bool failed = false;
  bool finished = false;
  const QpAddress* remote = nullptr;
  const ConnectionData* peer = nullptr;
  uint32_t psn = 0;
};

class VerbsReplay {
 public:
  VerbsReplay(const scen::Scenario& s, int rank, int size, const ReplayOptions& o, FirstError& err)
      : s_(s), rank_(rank), size_(size), o_(o), err_(err) {}

  std::vector<Completion> run() {
    plan();
    open();
    exchange();
    connect_all();
    return drive();
  }

 private:
  // The path MTU, the chunk size and this rank's queue pairs; refused on every rank alike
  // (they depend on the scenario only) when a rank would need more than kMaxQpsPerRank.
  void plan() {
    path_mtu_ = o_.verbs.mtu > 0 ? o_.verbs.mtu : static_cast<int>(s_.nic.mtu);
    if (path_mtu_ != 256 && path_mtu_ != 512 && path_mtu_ != 1024 && path_mtu_ != 2048 &&
        path_mtu_ != 4096) {
      throw scen::InputError("fabric.nic.mtu", std::to_string(s_.nic.mtu),
                             "an InfiniBand path MTU (256, 512, 1024, 2048 or 4096) for a verbs "
                             "replay, or --mtu");
    }
    chunk_ = replay_chunk_bytes(s_.flows, s_.nic.mtu);
    std::vector<size_t> per_rank(static_cast<size_t>(size_), 0);
    for (const auto& f : s_.flows) {
      const size_t n = stripe_shares(f.bytes, f.qps, s_.nic.mtu).size();
      per_rank[static_cast<size_t>(f.src_host)] += n;
      per_rank[static_cast<size_t>(f.dst_host)] += n;
    }
    for (int r = 0; r < size_; ++r) {
      if (per_rank[static_cast<size_t>(r)] > kMaxQpsPerRank) {
        throw scen::InputError(
            o_.scenario,
            std::to_string(per_rank[static_cast<size_t>(r)]) + " queue pairs at host " +
                std::to_string(r),
            "at most " + std::to_string(kMaxQpsPerRank) + " per host in a verbs replay");
      }
    }
    qps_ = plan_replay_qps(s_.flows, rank_, s_.nic.mtu, chunk_);
    run_.assign(qps_.size(), QpRun{});
  }

  bool writes() const { return o_.verbs.write; }
  int64_t receives_expected(const PlannedQp& q) const { return writes() ? 1 : q.chunks; }

  void open() {
    if (qps_.empty()) return;  // a host without flows only takes part in the exchange
    dev_.emplace(o_.verbs.device, o_.verbs.port, o_.verbs.gid_index);
    dev_->check_path_mtu(path_mtu_);
    // One send region and one receive region of a chunk each: every write of this rank reads
    // the same bytes and every write to it lands in the same place (the content is not the
    // point, as in perftest).
    bool sends = false, receives = false;
    int64_t send_cqe = 1, recv_cqe = 1;
    for (const PlannedQp& q : qps_) {
      if (q.role == QpRole::Requester) {
        sends = true;
        send_cqe += std::min(q.chunks, kDepth);
      } else {
        receives = true;
        recv_cqe += std::min(receives_expected(q), kDepth);
      }
    }
    recv_offset_ = sends ? chunk_ : 0;
    has_recv_region_ = receives;
    dev_->register_buffer(static_cast<size_t>((sends ? chunk_ : 0) + (receives ? chunk_ : 0)),
                          IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
    dev_->create_cqs(static_cast<int>(send_cqe), static_cast<int>(recv_cqe));
    std::mt19937 rng(std::random_device{}());
    for (size_t i = 0; i < qps_.size(); ++i) {
      const PlannedQp& q = qps_[i];
      const bool req = q.role == QpRole::Requester;
      dev_->add_rc_qp(static_cast<uint32_t>(req ? std::min(q.chunks, kDepth) : 1),
                      static_cast<uint32_t>(req ? 1 : std::min(receives_expected(q), kDepth)),
                      IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE);
      run_[i].psn = rng() & 0xFFFFFF;
      // Receives go up before the peer may send (before the exchange that lets it connect).
      if (!req) {
        const int64_t first = std::min(receives_expected(q), kDepth);
        for (int64_t k = 0; k < first; ++k) post_recv(i);
      }
    }
  }

  // Every rank sends each peer it shares queue pairs with one ConnectionData blob (MPI
  // all-to-all), and checks what it gets: the peer's rank and format version, the length, and
  // that its entries and this rank's queue pairs pair up one to one.
  void exchange() {
    const size_t n = static_cast<size_t>(size_);
    std::vector<std::vector<unsigned char> > blobs(n);
    std::vector<size_t> with_peer(n, 0);
    for (const PlannedQp& q : qps_) ++with_peer[static_cast<size_t>(q.peer)];
    for (size_t p = 0; p < n; ++p) {
      if (with_peer[p] == 0) continue;
      ConnectionData c;
      c.rank = static_cast<uint32_t>(rank_);
      c.lid = dev_->lid();
      c.gid = dev_->gid();
      c.rkey = dev_->rkey();
      c.addr = dev_->buffer_address() + static_cast<uint64_t>(recv_offset_);
      c.region_bytes = has_recv_region_ ? static_cast<uint64_t>(chunk_) : 0;
      for (size_t i = 0; i < qps_.size(); ++i) {
        if (static_cast<size_t>(qps_[i].peer) != p) continue;
        c.qps.push_back(
            {qps_[i].flow, qps_[i].index, qps_[i].role, dev_->qps()[i]->qp_num, run_[i].psn});
      }
      blobs[p] = encode_connection(c);
    }
    std::vector<int> send_counts(n), recv_counts(n), send_displs(n), recv_displs(n);
    std::vector<unsigned char> out;
    for (size_t p = 0; p < n; ++p) {
      send_counts[p] = static_cast<int>(blobs[p].size());
      send_displs[p] = static_cast<int>(out.size());
      out.insert(out.end(), blobs[p].begin(), blobs[p].end());
    }
    MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
    int total = 0;
    for (size_t p = 0; p < n; ++p) {
      recv_displs[p] = total;
      total += recv_counts[p];
    }
    std::vector<unsigned char> in(static_cast<size_t>(std::max(total, 1)));
    MPI_Alltoallv(out.data(), send_counts.data(), send_displs.data(), MPI_BYTE, in.data(),
                  recv_counts.data(), recv_displs.data(), MPI_BYTE, MPI_COMM_WORLD);
    peers_.assign(n, ConnectionData{});
    for (size_t p = 0; p < n; ++p) {
      if (with_peer[p] == 0 && recv_counts[p] == 0) continue;
      if (recv_counts[p] == 0) {
        throw ProtocolError("rank " + std::to_string(p) + " sent no connection data; this rank " +
                            "shares " + std::to_string(with_peer[p]) + " queue pairs with it");
      }
      peers_[p] = decode_connection(&in[static_cast<size_t>(recv_displs[p])],
                                    static_cast<size_t>(recv_counts[p]), static_cast<uint32_t>(p),
                                    kMaxQpsPerRank);
    }
    // Pair the entries with this rank's queue pairs: (flow, stripe index, the other role).
    for (size_t p = 0; p < n; ++p) {
      std::map<std::tuple<uint32_t, uint32_t, uint32_t>, const QpAddress*> by_key;
      for (const QpAddress& a : peers_[p].qps) {
        by_key[{a.flow, a.index, static_cast<uint32_t>(a.role)}] = &a;
      }
      size_t matched = 0;
      for (size_t i = 0; i < qps_.size(); ++i) {
        const PlannedQp& q = qps_[i];
        if (static_cast<size_t>(q.peer) != p) continue;
        const uint32_t other = q.role == QpRole::Requester ? 1 : 0;
        const auto it = by_key.find({q.flow, q.index, other});
        if (it == by_key.end()) {
          throw ProtocolError("rank " + std::to_string(p) + " sent no queue pair for flow " +
                              std::to_string(q.flow) + " stripe " + std::to_string(q.index));
        }
        run_[i].remote = it->second;
        run_[i].peer = &peers_[p];
        ++matched;
      }
      if (matched != peers_[p].qps.size()) {
        throw ProtocolError("rank " + std::to_string(p) + " lists " +
                            std::to_string(peers_[p].qps.size()) + " queue pairs, this rank " +
                            std::to_string(matched) + " with it (another scenario?)");
      }
      for (size_t i = 0; i < qps_.size(); ++i) {
        if (static_cast<size_t>(qps_[i].peer) == p && qps_[i].role == QpRole::Requester &&
            peers_[p].region_bytes < static_cast<uint64_t>(chunk_)) {
          throw ProtocolError("rank " + std::to_string(p) + "'s receive region is " +
                              std::to_string(peers_[p].region_bytes) + " bytes, writes need " +
                              std::to_string(chunk_));
        }
      }
    }
  }

  void connect_all() {
    for (size_t i = 0; i < qps_.size(); ++i) {
      const PlannedQp& q = qps_[i];
      const QpRun& u = run_[i];
      RcPeer peer;
      peer.qpn = u.remote->qpn;
      peer.psn = u.remote->psn;
      peer.lid = u.peer->lid;
      peer.gid = u.peer->gid;
      RcPath path;
      path.port = o_.verbs.port;
      path.gid_index = o_.verbs.gid_index;
      path.mtu = path_mtu_;
      path.service_level = static_cast<uint8_t>(q.priority & 0xF);  // the flow's traffic class
      path.traffic_class = static_cast<uint8_t>(q.dscp << 2);       // DSCP, no ECN bits
      path.psn = u.psn;
      connect_rc(dev_->qps()[i], path, peer);
    }
  }

  void post_recv(size_t i) {
    ibv_sge sge{};
    sge.addr = dev_->buffer_address() + static_cast<uint64_t>(recv_offset_);
    sge.length = static_cast<uint32_t>(chunk_);
    sge.lkey = dev_->lkey();
    ibv_recv_wr wr{};
    ibv_recv_wr* bad = nullptr;
    wr.wr_id = i;
    wr.sg_list = writes() ? nullptr : &sge;  // a write's immediate consumes a receive, no bytes
    wr.num_sge = writes() ? 0 : 1;
    if (ibv_post_recv(dev_->qps()[i], &wr, &bad) != 0) throw verbs_error("ibv_post_recv");
    ++run_[i].posted;
  }

  // Posts chunk number run_[i].posted of requester i.
  void post_chunk(size_t i) {
    const PlannedQp& q = qps_[i];
    QpRun& u = run_[i];
    const bool last = u.posted == q.chunks - 1;
    ibv_sge sge{};
    sge.addr = dev_->buffer_address();
    sge.length = static_cast<uint32_t>(last ? q.bytes - u.posted * chunk_ : chunk_);
    sge.lkey = dev_->lkey();
    ibv_send_wr wr{};
    ibv_send_wr* bad = nullptr;
    wr.wr_id = i;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.send_flags = IBV_SEND_SIGNALED;
    if (writes()) {
      wr.opcode = last ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE;
      wr.imm_data = htonl(q.flow);
      wr.wr.rdma.remote_addr = u.peer->addr;
      wr.wr.rdma.rkey = u.peer->rkey;
    } else {
      wr.opcode = IBV_WR_SEND;
    }
    if (ibv_post_send(dev_->qps()[i], &wr, &bad) != 0) throw verbs_error("ibv_post_send");
    ++u.posted;
  }

  void fail(size_t i, const std::string& what) {
    const PlannedQp& q = qps_[i];
    err_.set("flow " + std::to_string(q.flow) + " (stripe " + std::to_string(q.index) + ", " +
             (q.role == QpRole::Requester ? "to" : "from") + " rank " + std::to_string(q.peer) +
             "): " + what);
    run_[i].failed = true;
  }

  // The rank's event loop: start flows on time, count completions, repost, and stop once every
  // rank's sends are over (a non-blocking barrier) and this rank's receives are in.
  std::vector<Completion> drive() {
    // This rank's flows in start order, each with its requester queue pairs.
    std::map<uint32_t, std::vector<size_t> > sent;
    size_t responders = 0;
    for (size_t i = 0; i < qps_.size(); ++i) {
      if (qps_[i].role == QpRole::Requester) {
        sent[qps_[i].flow].push_back(i);
      } else {
        ++responders;
      }
    }
    std::vector<uint32_t> order;
    for (const auto& kv : sent) order.push_back(kv.first);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      return s_.flows[a].start.ps < s_.flows[b].start.ps;
    });
    std::map<uint32_t, size_t> slot;  // flow -> index in `done`
    std::vector<Completion> done;
    for (const auto& kv : sent) {
      slot[kv.first] = done.size();
      done.push_back({static_cast<int64_t>(kv.first), 0, 0});
    }
    std::map<uint32_t, size_t> qps_left;
    for (const auto& kv : sent) qps_left[kv.first] = kv.second.size();

    MPI_Barrier(MPI_COMM_WORLD);
    const Clock::time_point t0 = Clock::now();  // the scenario's time 0 on every rank
    auto since_t0_ps = [&](Clock::time_point t) {
      return std::chrono::duration_cast<std::chrono::nanoseconds>(t - t0).count() * 1000;
    };
    size_t next = 0, active = 0, responders_left = responders;
    MPI_Request barrier = MPI_REQUEST_NULL;
    bool barrier_started = false, barrier_done = false;
    Clock::time_point grace_end{};
    ibv_wc wc[16];
    for (;;) {
      Clock::time_point now = Clock::now();
      while (next < order.size() && s_.flows[order[next]].start.ps <= since_t0_ps(now)) {
        for (size_t i : sent[order[next]]) {
          while (run_[i].posted < std::min(qps_[i].chunks, kDepth)) post_chunk(i);
        }
        ++active;
        ++next;
      }
      if (!qps_.empty()) {
        const int ns = ibv_poll_cq(dev_->send_cq(), 16, wc);
        if (ns < 0) throw verbs_error("ibv_poll_cq");
        if (ns > 0) now = Clock::now();  // the completions' time
        for (int k = 0; k < ns; ++k) {
          const size_t i = static_cast<size_t>(wc[k].wr_id);
          QpRun& u = run_[i];
          ++u.completed;
          if (wc[k].status != IBV_WC_SUCCESS && !u.failed) {
            fail(i, std::string("work completion failed: ") + ibv_wc_status_str(wc[k].status));
          }
          if (!u.failed && u.posted < qps_[i].chunks) post_chunk(i);
          if (!u.finished && u.completed == u.posted && (u.failed || u.posted == qps_[i].chunks)) {
            u.finished = true;
            Completion& c = done[slot[qps_[i].flow]];
            if (u.failed) c.completed = -1;  // stays incomplete
            if (--qps_left[qps_[i].flow] == 0) {
              --active;
              if (c.completed == 0) {
                c.completed = 1;
                c.finish_ps = since_t0_ps(now);
              } else {
                c.completed = 0;
              }
            }
          }
        }
        const int nr = ibv_poll_cq(dev_->recv_cq(), 16, wc);
        if (nr < 0) throw verbs_error("ibv_poll_cq");
        for (int k = 0; k < nr; ++k) {
          const size_t i = static_cast<size_t>(wc[k].wr_id);
          QpRun& u = run_[i];
          const PlannedQp& q = qps_[i];
          ++u.completed;
          if (u.finished) continue;
          if (wc[k].status != IBV_WC_SUCCESS) {
            fail(i, std::string("receive failed: ") + ibv_wc_status_str(wc[k].status));
          } else if (writes() && (wc[k].opcode != IBV_WC_RECV_RDMA_WITH_IMM ||
                                  ntohl(wc[k].imm_data) != q.flow)) {
            fail(i, "expected its write with immediate " + std::to_string(q.flow) +
                        ", got opcode " + std::to_string(wc[k].opcode) + " immediate " +
                        std::to_string(ntohl(wc[k].imm_data)));
          } else if (!writes()) {
            u.bytes_seen += wc[k].byte_len;
            if (u.posted < q.chunks) post_recv(i);
            if (u.completed == q.chunks && u.bytes_seen != q.bytes) {
              fail(i, "received " + std::to_string(u.bytes_seen) + " bytes, expected " +
                          std::to_string(q.bytes));
            }
          }
          if (u.failed || u.completed == receives_expected(q)) {
            u.finished = true;
            --responders_left;
          }
        }
      }
      if (!barrier_started && next == order.size() && active == 0) {
        MPI_Ibarrier(MPI_COMM_WORLD, &barrier);
        barrier_started = true;
      }
      if (barrier_started && !barrier_done) {
        int flag = 0;
        MPI_Test(&barrier, &flag, MPI_STATUS_IGNORE);
        if (flag != 0) {
          barrier_done = true;
          grace_end = Clock::now() + kReceiveGrace;
        }
      }
      if (barrier_done && (responders_left == 0 || Clock::now() > grace_end)) break;
      // Nothing in flight and the next start far away: sleep most of the gap.
      if (active == 0 && next < order.size()) {
        const int64_t gap_ps = s_.flows[order[next]].start.ps - since_t0_ps(Clock::now());
        if (gap_ps > 2'000'000'000) {
          std::this_thread::sleep_for(std::chrono::nanoseconds((gap_ps - 1'000'000'000) / 1000));
        }
      }
    }
    // Every sender has finished (or failed): a flow this rank still waits for is lost.
    for (size_t i = 0; i < qps_.size(); ++i) {
      if (qps_[i].role == QpRole::Responder && !run_[i].finished) {
        fail(i, "never arrived (its sender finished)");
      }
    }
    return done;
  }

  const scen::Scenario& s_;
  int rank_;
  int size_;
  const ReplayOptions& o_;
  FirstError& err_;
  int path_mtu_ = 4096;
  int64_t chunk_ = 1;
  int64_t recv_offset_ = 0;
  bool has_recv_region_ = false;
  std::vector<PlannedQp> qps_;
  std::vector<QpRun> run_;
  std::optional<VerbsDevice> dev_;  // opened when this rank has queue pairs
  std::vector<ConnectionData> peers_;
};

}  // namespace

std::vector<Completion> replay_verbs(const scen::Scenario& s, int rank, int size,
                                     const ReplayOptions& o, FirstError& err) {
  return VerbsReplay(s, rank, size, o, err).run();
}

#endif

}  // namespace probe
