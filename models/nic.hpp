// A host's RDMA NIC endpoint: segments posted messages into MTU packets and paces them at
// line rate through its port (pulling from active queue pairs round-robin only when the wire
// is free); as a receiver it accepts in-order packets, acknowledges them (coalescing every
// `ack_every`), NACKs the first gap, and re-ACKs duplicates. Go-back-N on NACK and on the
// retransmission timeout. Under adaptive routing it accepts packets out of order instead
// (accept_out_of_order).
//
// With a finite host drain rate (NicParams::rx_drain_rate_bps) arriving data waits in its
// receive buffer (models/nic_rx_buffer.hpp) until the host has taken it, and the NIC may pause
// lossless priorities upstream when that buffer fills.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "models/context.hpp"
#include "models/egress_port.hpp"
#include "models/nic_rx_buffer.hpp"
#include "models/ring.hpp"
#include "models/roce/pfc_params.hpp"
#include "models/transport.hpp"

namespace models {

class PfcGate;
class Dcqcn;
class AckRateControl;
class IbCongestionControl;
class IbCreditGate;
class IngressListener;
class SharpAllReduce;
class SharedDmaLink;
class TcpStack;

struct NicStats {
  uint64_t data_packets_sent = 0;
  uint64_t acks_sent = 0;
  uint64_t nacks_sent = 0;
  uint64_t data_packets_received = 0;
  uint64_t acks_received = 0;  // ACKs and NACKs
  uint64_t pause_frames_received = 0;
  uint64_t ce_marked_received = 0;         // data packets that arrived with ECN CE
  uint64_t cnps_sent = 0;                  // DCQCN notification point
  uint64_t cnps_received = 0;              // DCQCN reaction point (CNPs only, not flagged ACKs)
  uint64_t congestion_flags_received = 0;  // ACKs/NACKs carrying the congestion flag
  // Receive buffer (rx_drain_rate > 0) and the pause frames it made the NIC send.
  uint64_t rx_overflow_drops = 0;    // data packets that found the receive buffer full
  int64_t rx_buffer_peak_bytes = 0;  // most wire bytes the receive buffer held
  // Its PFC frames (Nic::stats() copies them from the NIC's PfcSender).
  uint64_t pause_frames_sent = 0;  // pause and refresh frames
  uint64_t resume_frames_sent = 0;
  uint64_t xoff_transitions = 0;
  sim::Time pause_asserted_time;       // sum over priorities of the time the NIC held XOFF
  uint64_t flow_control_received = 0;  // InfiniBand flow-control packets
  uint64_t out_of_order_received = 0;  // data packets that arrived ahead of a missing PSN
};

class Nic final : public PacketReceiver,
                  public PacketSource,
                  public sim::EventHandler,
                  private NicRxBuffer::Consumer {
 public:
  Nic(Context& ctx, Transport& transport, uint32_t host, int64_t rate_bps);

  EgressPort& port() { return port_; }
  void set_pfc_gate(PfcGate* gate) { pfc_gate_ = gate; }
  // DCQCN for the QPs of the traffic classes in `classes` (bit c: priority c).
  void set_dcqcn(Dcqcn* dcqcn, uint8_t classes = 0xff) {
    dcqcn_ = dcqcn;
    dcqcn_classes_ = classes;
  }
  // ACK-driven congestion control (models/cc/ack_rate_control.hpp). `echo_ce`: ACKs carry the
  // CE mark of the data they answer (DCTCP). `telemetry`: data packets carry an INT record
  // that switches fill and ACKs echo (HPCC). `extra_header_bytes`: the algorithm's header on
  // every data packet and ACK (HPCC's INT header, TIMELY's timestamp).
  // `classes`: the traffic classes whose QPs it controls (the others keep the NIC's own
  // window and packet format).
  void set_ack_cc(AckRateControl* cc, bool echo_ce, bool telemetry, int64_t extra_header_bytes,
                  uint8_t classes = 0xff) {
    ack_cc_ = cc;
    cc_classes_ = classes;
    echo_ce_ = echo_ce;
    telemetry_ = telemetry;
    cc_header_bytes_ = extra_header_bytes;
  }
  // Kernel TCP (models/tcp/tcp_stack.hpp): this NIC hands its TCP queue pairs' sending
  // decisions, ACKs and received segments to `tcp`.
  void set_tcp(TcpStack* tcp) { tcp_ = tcp; }
  // The QP may send again (the TCP stack opened its window).
  void resume(QueuePair& qp) { activate(qp); }
  // InfiniBand congestion control (annex A10): FECN-marked data is answered by a BECN (a CNP),
  // BECNs reach the QP's CCTI (models/ib/ib_cc.hpp).
  void set_ib_cc(IbCongestionControl* cc) { ib_cc_ = cc; }
  // InfiniBand: packets carry SL = their class and travel on VL = sl_to_vl[SL]; the port's
  // credit gate obeys flow-control packets; `rx` hears the receive buffer's bytes per VL
  // (models/ib/credit_return.hpp). `data_vls`: the port's classes.
  void enable_ib(const std::array<uint8_t, 16>& sl_to_vl, IbCreditGate* gate, IngressListener* rx,
                 int data_vls = kPriorities) {
    if (data_vls > kPriorities) port_.set_class_count(data_vls);
    ib_ = true;
    sl_to_vl_ = sl_to_vl;
    credit_gate_ = gate;
    rx_credit_ = rx;
    rx_.set_credit_listener(rx);
  }
  // Accept data packets out of order (adaptive routing in the fabric): they are placed on
  // arrival and acknowledged cumulatively, instead of go-back-N's discard and NACK.
  void accept_out_of_order(bool on) { accept_out_of_order_ = on; }
  // SHARP: result packets of in-network reductions go to `sharp`.
  void set_sharp(SharpAllReduce* sharp) { sharp_ = sharp; }
  // NIC-sent PFC on the receive buffer: the priorities in `lossless` pause upstream with
  // `quanta`; frames are logged as node `node`, port 0.
  void enable_rx_pfc(uint8_t lossless, uint32_t quanta, int node, std::vector<PfcEvent>* log);
  // Bytes of `priority` in the receive buffer now.
  int64_t rx_buffer_bytes(uint8_t priority) const { return rx_.class_bytes(priority); }
  // Adds the time XOFF has been held up to now (end of run).
  void finish_accounting();
  const EgressPort& port() const { return port_; }
  uint32_t host() const { return host_; }
  // A copy, with the receive buffer's counters and those of NIC-sent PFC (its PfcSender's).
  NicStats stats() const;

  // The QP's message is posted: it starts sending after the NIC's tx latency and host path.
  void post(QueuePair& qp);
  // This NIC's PCIe path (models/host_path.hpp), in place of NicParams::host. The builder
  // sets it before the run; the receive-side latency is the link's (the builder's too).
  void set_host_path(const HostPathParams& host);
  // A GPU's PCIe link or the staging host memory this NIC's DMA also crosses (shared with
  // other NICs; shared_dma_link.hpp). Sends read across it, receives write across it.
  void add_shared_dma(SharedDmaLink* link) { shared_dma_.push_back(link); }
  // Parameters of this endpoint in place of the transport's (set before the run): a GPU's
  // NVLink endpoint keeps the transport's packet format and latencies but none of a NIC's
  // send-engine, message-rate, inline or host receive-path limits (the builder's
  // nvlink_endpoint_params).
  void set_params(const NicParams& p) {
    params_ = p;
    update_engine_rate();
  }
  const NicParams& params() const { return params_; }
  // The congestion control's window of bytes in flight per QP (0 = none), scaled by the QP's
  // rate / line rate when `follows_rate`.
  void set_window(int64_t bytes, bool follows_rate) {
    cc_window_set_ = true;
    cc_window_bytes_ = bytes;
    cc_window_follows_rate_ = follows_rate;
  }
  const HostPathParams& host_path() const { return host_path_; }
  // The QP's rate limit changed: the gap after its last packet follows the new rate (a QP
  // held at a low rate is released early when the rate rises again).
  void on_rate_change(QueuePair& qp);

  void receive(PacketHandle h, uint16_t in_port) override;
  PacketHandle next_packet(FlowControlGate* gate) override;
  // A QP in the round-robin list (activate() wakes the port when one joins).
  bool may_have_packets() const override { return !active_.empty(); }
  void on_event(uint32_t kind, uint64_t arg) override;

  enum Kind : uint32_t { kPosted = 0, kRto = 1, kPacingWake = 2, kDmaWritten = 5 };

 private:
  void activate(QueuePair& qp);
  bool has_sendable(const QueuePair& qp) const;
  PacketHandle make_data_packet(QueuePair& qp, uint32_t psn);
  // A wake of the port at `at` unless one is pending at or before it. An earlier wake does not
  // cancel a later one already queued: that one still fires and wakes the port once more (a
  // spurious wake-up, as counted in the events; the port picks what is ready, as at any wake).
  void schedule_pacing_wake(sim::Time at);
  uint32_t data_payload_bytes(const QueuePair& qp, uint32_t psn) const;
  uint32_t data_wire_bytes(const QueuePair& qp, uint32_t psn) const;
  // An ACK or NACK answering `data`: it echoes the data's send time and takes over its
  // telemetry record.
  void send_control(Packet& data, PacketType type, uint32_t psn);
  void send_cnp(const Packet& data);
  bool on_data(PacketHandle h);  // true: the TCP stack keeps the packet
  bool on_drained(PacketHandle h) override { return on_data(h); }  // from the receive buffer
  void on_ack(PacketHandle h);
  void receive_data_or_control(PacketHandle h);  // after the DMA write's latency, for data
  void dma_written();
  // The port class of packets of class (InfiniBand: SL) `cls`.
  uint8_t lane_of(int cls) const {
    return ib_ ? sl_to_vl_[static_cast<size_t>(cls)] : static_cast<uint8_t>(cls);
  }

  Context& ctx_;
  Transport& transport_;
  NicParams params_;  // the transport's, or set_params's (an NVLink endpoint's)
  uint32_t host_;
  EgressPort port_;
  PfcGate* pfc_gate_ = nullptr;
  // The congestion control that governs `qp` (by its class), if any.
  bool cc_for(const QueuePair& qp) const {
    return ack_cc_ != nullptr && ((cc_classes_ >> qp.priority) & 1u) != 0;
  }
  Dcqcn* dcqcn_for(const QueuePair& qp) const {
    return ((dcqcn_classes_ >> qp.priority) & 1u) != 0 ? dcqcn_ : nullptr;
  }
  Dcqcn* dcqcn_ = nullptr;
  uint8_t dcqcn_classes_ = 0xff;
  AckRateControl* ack_cc_ = nullptr;
  uint8_t cc_classes_ = 0xff;
  bool cc_window_set_ = false;  // set_window: the window of the congestion control's QPs
  int64_t cc_window_bytes_ = 0;
  bool cc_window_follows_rate_ = false;
  bool echo_ce_ = false;
  bool telemetry_ = false;
  int64_t cc_header_bytes_ = 0;
  IbCongestionControl* ib_cc_ = nullptr;
  TcpStack* tcp_ = nullptr;
  bool ib_ = false;
  bool accept_out_of_order_ = false;
  std::array<uint8_t, 16> sl_to_vl_{};
  IbCreditGate* credit_gate_ = nullptr;
  IngressListener* rx_credit_ = nullptr;
  SharpAllReduce* sharp_ = nullptr;
  Ring<uint32_t> active_;  // QPs that may have packets to send, round-robin order
  bool pacing_wake_pending_ = false;
  sim::Time pacing_wake_at_;
  // The send engine (NicParams::max_send_rate_bps, message_overhead) is busy until then.
  sim::Time engine_free_at_;
  // Its packet rate cap: the lower of max_send_rate and send_efficiency × line rate, 0 = none.
  int64_t engine_rate_bps_ = 0;
  void update_engine_rate();
  // PCIe (host_path.hpp): this NIC's path; the read channel is busy until dma_read_free_at_;
  // the receive buffer drains at the lower of rx_drain_rate and pcie_rate.
  HostPathParams host_path_;
  sim::Time dma_read_free_at_;
  std::vector<SharedDmaLink*> shared_dma_;
  // Whether sends read and receives write over a modelled PCIe path (own or shared).
  bool models_dma_reads() const { return host_path_.pcie_rate_bps > 0 || !shared_dma_.empty(); }
  bool drains_receives() const { return rx_.drains(); }
  // The read of `payload` bytes no earlier than `floor`: own channel and shared links.
  sim::Time dma_read_done(sim::Time floor, int64_t payload) const;
  struct PendingWrite {
    sim::Time at;
    PacketHandle packet = 0;
  };
  Ring<PendingWrite> dma_writes_;  // data packets in their DMA write latency, arrival order
  sim::Time next_message_at_;      // the first packet of the next message, not before (rate cap)
  NicStats stats_;
  NicRxBuffer rx_;  // toward the host (after params_ and shared_dma_, which it reads)
};

}  // namespace models
