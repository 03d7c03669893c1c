// Kernel TCP at every host whose messages run over TCP instead of RDMA (fabric.transport "tcp"
// or a flow's "transport"): one object for the whole network, which each host's NIC hands its
// TCP queue pairs to. A message is a queue pair, as for RDMA; a connection — source,
// destination and source port, as an NCCL channel's socket or a workload flow — carries its
// messages in order and holds the congestion window, the RTT estimate and the CPU cores that
// serve it, so that consecutive messages keep the window they grew.
//
// Sender: segments leave while the pipe (RFC 6675) is below the window and the receive window;
// new data only once send() has copied it into the socket buffer (the connection's core, at
// the copy rate); SACKed losses are sent first. Receiver: each segment waits for its core
// (interrupt, protocol processing, copy to the application), is then acknowledged — every
// second segment, at once when out of order, filling a gap, CE-marked or a message's last —
// with the segment it answers as a SACK block and its send time echoed (the timestamp option).
// A message completes when its receiver's application has it (woken from recv()) and its
// sender has the last acknowledgement.
//
// A split run (sim/simulator.hpp) runs each host's side where its NIC is: the stack's events
// are those of a handler per CPU (TcpCpu, in the partition of that CPU's NICs: a GPU server's
// are one partition's); a message's sender and receiver state are apart (tables that never
// move, grown as the transport adds QPs); a connection's sender fields are written where its
// source is and its receive core where its destination is; statistics are per partition. The
// receiver notes when its application will have the message before it acknowledges the last
// segment; the sender, which that acknowledgement reaches, completes the message at the later
// of the two moments, where its source is (as an RDMA message completes).
//
// Over several processes (MPI ranks; ARCHITECTURE.md, "Runs over processes"), each process
// holds the connections its hosts open (their numbers differ between processes: only the
// sender reads them), a receive core is chosen where the destination is, by connection, and
// the moment a message's application has it is told to every process between windows (a
// sim::RankShare): the last segment's acknowledgement reaches the sender no sooner than a
// window later, so the sender's process knows that moment before it needs it.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "models/context.hpp"
#include "models/packet.hpp"
#include "models/ring.hpp"
#include "models/tcp/sack_scoreboard.hpp"
#include "models/tcp/tcp_params.hpp"
#include "models/tcp/tcp_window.hpp"
#include "models/transport.hpp"
#include "sim/per_partition.hpp"
#include "sim/simulator.hpp"
#include "sim/stable_vector.hpp"

namespace models {

class Nic;
class TcpStack;

struct TcpStats {
  uint64_t segments_sent = 0;
  uint64_t segments_retransmitted = 0;
  uint64_t fast_recoveries = 0;  // losses found by SACK: one window reduction each
  uint64_t timeouts = 0;
  uint64_t ecn_reductions = 0;  // window cuts for ECN echoes (DCTCP)
  uint64_t acks_sent = 0;
  uint64_t acks_received = 0;
  uint64_t segments_received = 0;
  uint64_t out_of_order_segments = 0;
  uint64_t connections = 0;
  sim::Time cpu_time;  // CPU time spent on sending and receiving, all hosts
  int64_t max_cwnd_bytes = 0;

  TcpStats& operator+=(const TcpStats& o);  // another partition's
};

// The events of one CPU's stack (a plain host's, or a GPU server's for all its NICs), in the
// partition where that CPU's NICs are.
class TcpCpu final : public sim::EventHandler {
 public:
  TcpCpu(sim::Simulator& sim, TcpStack& stack) : EventHandler(sim), stack_(stack) {}
  void on_event(uint32_t kind, uint64_t arg) override;

 private:
  TcpStack& stack_;
};

class TcpStack final : public sim::RankShare {
 public:
  // `cpu_of_host`: the CPU (a server's cores) each host endpoint's stack runs on — a GPU
  // server's NICs share their server's; `cpus`: how many there are. Built once the transport
  // knows its NICs (each CPU's events go where its first host's NIC is).
  TcpStack(Context& ctx, Transport& transport, const TcpParams& params, int64_t framing_bytes,
           std::vector<uint32_t> cpu_of_host, uint32_t cpus);

  const TcpParams& params() const { return p_; }
  // Every partition's statistics together (read once the run is over).
  TcpStats stats() const { return stats_.sum(); }
  // Received segments waiting for their host's CPU or their application (still packets in
  // flight).
  uint64_t segments_held() const { return held_.sum(); }
  // The per-QP tables grow with the transport's QPs (Transport::set_qp_reserver: under its
  // lock in a split run).
  void reserve_qps(size_t n) {
    tx_.grow_to(n);
    rx_.grow_to(n);
  }

  // Sender (called by the source host's NIC).
  void on_post(QueuePair& qp);
  bool may_send(const QueuePair& qp);
  sim::Time ready_at(const QueuePair& qp);  // the next segment is in the socket buffer
  // The retransmission timer, when it is not running (a segment was sent).
  void start_timer(QueuePair& qp);
  uint32_t next_psn(const QueuePair& qp);  // a lost segment first, else new data
  void on_sent(QueuePair& qp, uint32_t psn);
  void on_ack(Nic& nic, QueuePair& qp, const Packet& ack);
  void on_timeout(Nic& nic, QueuePair& qp);
  sim::Time rto(const QueuePair& qp) const;
  uint32_t payload_bytes(const QueuePair& qp, uint32_t psn) const {
    return psn + 1 == qp.total_packets ? qp.last_payload : static_cast<uint32_t>(p_.mss);
  }
  uint32_t wire_bytes(uint32_t payload) const {
    return static_cast<uint32_t>(payload + p_.header_bytes + framing_);
  }
  bool ecn_capable() const { return p_.cc == TcpCc::Dctcp; }

  // Receiver (called by the destination host's NIC): the stack keeps the packet until its core
  // has processed it, then releases it.
  void on_segment(Nic& nic, PacketHandle h);

  // A CPU's event (TcpCpu): a segment processed, a message in its application, a delayed
  // ACK's timer, a message complete at its sender.
  void on_event(uint32_t kind, uint64_t arg);

  // A run over several processes: the moments messages' applications have them are told to
  // every process (added to the run's shares by the caller).
  void run_over_processes() { delivered_told_.resize(ctx_.sim.partitions()); }
  void pack_share(sim::Bytes& out) override;
  void take_share(sim::ByteReader& in, uint32_t rank) override;
  bool share_pending() const override;
  // What each process's partitions counted (sim/result_archive.hpp; models/archived_results.cpp).
  void archive_results(sim::ResultArchive& a);

 private:
  enum Kind : uint32_t { kRxProcessed = 0, kDelivered = 1, kDelayedAck = 2, kComplete = 3 };

  // Its sender fields are written where its source is, `rx_core` where its destination is.
  struct Connection {
    TcpWindow window;
    sim::Time srtt, rttvar, min_rtt;
    bool has_rtt = false;
    uint32_t backoff = 0;
    uint32_t pipe = 0;  // segments in flight over all its messages
    uint32_t tx_core = 0;
    sim::Time last_sent;
    // Bytes over the connection's life: new data sent and cumulatively acknowledged. The
    // window is cut at most once per window of data (up to cwr_end); DCTCP's alpha is updated
    // once per window (up to alpha_end) from the bytes acknowledged and marked in it.
    int64_t sent_bytes = 0, acked_bytes = 0;
    int64_t cwr_end = 0;
    int64_t alpha_end = 0, window_acked = 0, window_marked = 0;
    std::vector<uint32_t> open;  // its messages not yet fully acknowledged (QP ids)
  };
  // A message's sender side, reset when its QP is posted.
  struct TxMessage {
    uint32_t conn = 0;
    SackScoreboard board;
    sim::Time copy_start;      // send() has copied nothing before this
    uint32_t rto_recover = 0;  // after a timeout, no fast recovery below this PSN
    bool acked = false;
  };
  // A QP slot's receiver side, kept across the messages that reuse the slot: the NIC that
  // receives, the send time of the last in-order segment (the timestamp a delayed ACK echoes),
  // the delayed-ACK timer's generation (a timer of an earlier one, or of the slot's earlier
  // message, finds it moved on: atomic, for the slot's next message may have its receiver in
  // another partition), when the application has the whole message, and the message's last
  // segment, held until then — the packet pool's count of the QP's live packets keeps the slot
  // from being reused before its delivery has run.
  struct RxMessage {
    Nic* nic = nullptr;
    sim::Time echo;
    std::atomic<uint32_t> delack_generation{0};
    sim::Time delivered_at;
    PacketHandle last_segment = kNoPacket;
  };
  struct Pending {
    sim::Time at;
    PacketHandle packet = kNoPacket;
    Nic* nic = nullptr;
  };

  // A connection's key at each end: (source, destination, source port).
  static uint64_t connection_key(uint32_t src, uint32_t dst, uint16_t sport) {
    return (uint64_t{src} << 40) ^ (uint64_t{dst} << 16) ^ sport;
  }
  uint32_t connection_of(const QueuePair& qp);
  // The connection's receive core at its destination, chosen at its first segment there.
  uint32_t receive_core(const Packet& p);
  // Cores are numbered per CPU: core c of host h's CPU is slot cpu_of_host[h] x cores + c.
  uint32_t core_slot(uint32_t host, uint32_t c) const { return cpu_of_host_[host] * cores_ + c; }
  uint32_t next_core(uint32_t host) { return next_core_[cpu_of_host_[host]]++ % cores_; }
  TcpCpu& cpu_of(uint32_t host) { return *cpu_agents_[cpu_of_host_[host]]; }
  void set_pipe(Connection& c, TxMessage& m, uint32_t before);
  void sample_rtt(Connection& c, sim::Time rtt);
  void record(const Connection& c);
  void process(Nic& nic, PacketHandle h);
  void send_ack(Nic& nic, QueuePair& qp, sim::Time echo, uint32_t sack_end);
  void resume_connection(Nic& nic, uint32_t conn);
  void arm(QueuePair& qp, sim::Time deadline);
  void complete(QueuePair& qp);

  Context& ctx_;
  Transport& transport_;
  TcpParams p_;
  int64_t framing_;
  uint32_t cores_;
  std::vector<uint32_t> cpu_of_host_;
  // A core: busy until `free_at`; the received segments it is processing, in order.
  struct Core {
    sim::Time free_at;
    Ring<Pending> rx;
  };
  // Slot s is core s % cores of CPU s / cores; a CPU's cores exist once it has a connection
  // (memory follows the hosts that use TCP, not hosts x cores). A CPU's cores, like the rest of
  // its state, are touched only where its NICs are.
  Core& core_at(uint32_t slot) {
    std::unique_ptr<Core[]>& cpu = cpus_[slot / cores_];
    if (!cpu) cpu = std::make_unique<Core[]>(cores_);
    return cpu[slot % cores_];
  }
  std::vector<std::unique_ptr<Core[]>> cpus_;        // [CPU]
  std::vector<uint32_t> next_core_;                  // [CPU] the next connection's core
  std::vector<std::unique_ptr<TcpCpu>> cpu_agents_;  // [CPU]
  // Connections, appended under `conns_mutex_` where their source is; each CPU finds its own
  // by (source, destination, source port).
  sim::StableVector<Connection> conns_;
  std::mutex conns_mutex_;
  std::vector<std::unordered_map<uint64_t, uint32_t>> conn_index_;  // [source's CPU]
  // Each connection's receive core by its key, where its destination is.
  std::vector<std::unordered_map<uint64_t, uint32_t>> rx_core_index_;  // [destination's CPU]
  // Over processes: (QP id, the moment its application has the message) noted by each
  // partition since the last share.
  struct Delivered {
    uint64_t qp = 0;  // (64 bits: no padding packed)
    sim::Time at;
  };
  std::vector<std::vector<Delivered>> delivered_told_;  // [partition]
  sim::StableVector<TxMessage> tx_;                     // [QP id]
  sim::StableVector<RxMessage> rx_;                     // [QP id]
  sim::PerPartition<TcpStats> stats_;
  sim::PerPartition<uint64_t> held_;
};

}  // namespace models
