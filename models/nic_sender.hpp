// A NIC's sending side (the requester): posted queue pairs wait their doorbell and first DMA
// read (post_latency), then the port pulls their packets only when the wire is free, round-robin
// over the QPs that may send, each held by its rate limiter (pacing), its window of bytes in
// flight, the port's flow-control gate, the send engine's packet and message rate caps and the
// DMA read of the payload over PCIe. It reacts to ACKs, NACKs (go-back-N), the retransmission
// timeout and congestion notifications. It is the NIC port's packet source.
#pragma once

#include <cstdint>
#include <vector>

#include "models/context.hpp"
#include "models/egress_port.hpp"
#include "models/host_path.hpp"
#include "models/nic_settings.hpp"
#include "models/ring.hpp"
#include "models/transport.hpp"

namespace models {

class Nic;
class SharedDmaLink;
struct NicStats;

class NicSender final : public PacketSource, public sim::EventHandler {
 public:
  // Everything but `ctx` and `transport` is the NIC's own, read as it is when used (the builder
  // changes params, settings and the host path before the run).
  NicSender(Context& ctx, Transport& transport, Nic& nic, EgressPort& port, const NicParams& params,
            const NicSettings& settings, const HostPathParams& host_path,
            const std::vector<SharedDmaLink*>& shared_dma, NicStats& stats);

  // The QP's message is posted: it starts sending after the NIC's tx latency and host path.
  void post(QueuePair& qp);
  // The QP may have packets to send again: it joins the round-robin and the port is woken.
  void activate(QueuePair& qp);
  // The QP's rate limit changed: the gap after its last packet follows the new rate.
  void on_rate_change(QueuePair& qp);
  // An ACK or NACK for one of this NIC's QPs.
  void on_ack(const Packet& ack);
  // A congestion notification (DCQCN CNP, InfiniBand BECN) for one of this NIC's QPs.
  void on_cnp(const Packet& cnp);
  // The send engine's packet rate cap follows params and the port's rate.
  void update_engine_rate();

  PacketHandle next_packet(FlowControlGate* gate) override;
  // A QP in the round-robin list (activate() wakes the port when one joins).
  bool may_have_packets() const override { return !active_.empty(); }
  // QPs the round robin has looked at so far (tests: its work per packet).
  uint64_t round_robin_turns() const { return turns_; }
  void on_event(uint32_t kind, uint64_t arg) override;

  enum Kind : uint32_t { kPosted = 0, kRto = 1, kPacingWake = 2 };

 private:
  bool has_sendable(const QueuePair& qp) const;
  // A fresh QP: RDMA, nothing of its message sent or acknowledged yet. One in the list always
  // has something to send (has_sendable), and the message rate cap holds it while it holds.
  static bool fresh(const QueuePair& qp) {
    return !qp.tcp && qp.snd_nxt == 0 && qp.snd_una == 0 && qp.total_packets > 0;
  }
  // Into the round-robin list, counted when not fresh.
  void push_active(QueuePair& qp) {
    active_.push_back(qp.id);
    if (counting_ && !fresh(qp)) ++nonfresh_in_list_;
  }
  // A QP's PSNs moved (an ACK, a NACK, a timeout): if it is in the list and stopped or started
  // being fresh, the count follows.
  void refresh_count(const QueuePair& qp, bool was_fresh) {
    if (!counting_ || !qp.in_active_list || was_fresh == fresh(qp)) return;
    nonfresh_in_list_ += was_fresh ? 1 : -1;
  }
  // A data packet's payload and its bytes on the wire (headers, the congestion control's,
  // framing; TCP's own format).
  struct DataSize {
    uint32_t payload = 0;
    uint32_t wire = 0;
  };
  DataSize data_size(const QueuePair& qp, uint32_t psn) const;
  PacketHandle make_data_packet(QueuePair& qp, uint32_t psn, DataSize size);
  // A wake of the port at `at` unless one is pending at or before it. An earlier wake does not
  // cancel a later one already queued: that one still fires and wakes the port once more (a
  // spurious wake-up, as counted in the events; the port picks what is ready, as at any wake).
  void schedule_pacing_wake(sim::Time at);
  // Whether sends read over a modelled PCIe path (own or shared).
  bool models_dma_reads() const { return host_path_.pcie_rate_bps > 0 || !shared_dma_.empty(); }
  // The read of `payload` bytes no earlier than `floor`: own channel and shared links.
  sim::Time dma_read_done(sim::Time floor, int64_t payload) const;
  void on_timeout(QueuePair& qp);

  Context& ctx_;
  Transport& transport_;
  Nic& nic_;  // for the TCP stack's calls back into the NIC
  EgressPort& port_;
  const NicParams& params_;
  const NicSettings& settings_;
  const HostPathParams& host_path_;
  const std::vector<SharedDmaLink*>& shared_dma_;
  NicStats& stats_;
  Ring<uint32_t> active_;          // QPs that may have packets to send, round-robin order
  uint32_t nonfresh_in_list_ = 0;  // of them, those not fresh (counted while `counting_`)
  bool counting_ = false;          // the message rate cap is on (params_.max_message_rate)
  sim::Time latest_send_at_;       // the latest next_send_at any QP was given
  uint64_t turns_ = 0;
  bool pacing_wake_pending_ = false;
  sim::Time pacing_wake_at_;
  // The send engine (NicParams::max_send_rate_bps, message_overhead) is busy until then.
  sim::Time engine_free_at_;
  // Its packet rate cap: the lower of max_send_rate and send_efficiency x line rate, 0 = none.
  int64_t engine_rate_bps_ = 0;
  sim::Time dma_read_free_at_;  // the PCIe read channel is busy until then
  sim::Time next_message_at_;   // the first packet of the next message, not before (rate cap)
};

}  // namespace models
