// A host's RDMA NIC endpoint: its port, its sending side (models/nic_sender.hpp: queue-pair
// scheduling, pacing, the send engine, PCIe reads, go-back-N and the reaction to ACKs), its
// receiver (models/nic_receiver.hpp: acceptance, ACKs, NACKs, CNPs) and, with a finite host
// drain rate (NicParams::rx_drain_rate_bps), its receive buffer toward the host
// (models/nic_rx_buffer.hpp), which may pause lossless priorities upstream when it fills. The
// NIC itself sorts what arrives from the wire (pause and flow-control frames for its port's
// gates, data through the DMA write latency to the buffer or the receiver, ACKs and CNPs to the
// sender, SHARP results) and holds what the builder sets.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "models/context.hpp"
#include "models/egress_port.hpp"
#include "models/nic_receiver.hpp"
#include "models/nic_rx_buffer.hpp"
#include "models/nic_sender.hpp"
#include "models/nic_settings.hpp"
#include "models/ring.hpp"
#include "models/roce/pfc_params.hpp"
#include "models/transport.hpp"

namespace models {

class PfcGate;
class IbCreditGate;
class IngressListener;
class SharpAllReduce;
class SharedDmaLink;

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

class Nic final : public PacketReceiver, public sim::EventHandler, private NicRxBuffer::Consumer {
 public:
  Nic(Context& ctx, Transport& transport, uint32_t host, int64_t rate_bps);

  EgressPort& port() { return port_; }
  void set_pfc_gate(PfcGate* gate) { pfc_gate_ = gate; }
  // DCQCN for the QPs of the traffic classes in `classes` (bit c: priority c).
  void set_dcqcn(Dcqcn* dcqcn, uint8_t classes = 0xff) {
    settings_.dcqcn = dcqcn;
    settings_.dcqcn_classes = classes;
  }
  // ACK-driven congestion control (models/cc/ack_rate_control.hpp). `echo_ce`: ACKs carry the
  // CE mark of the data they answer (DCTCP). `telemetry`: data packets carry an INT record
  // that switches fill and ACKs echo (HPCC). `extra_header_bytes`: the algorithm's header on
  // every data packet and ACK (HPCC's INT header, TIMELY's timestamp).
  // `classes`: the traffic classes whose QPs it controls (the others keep the NIC's own
  // window and packet format).
  void set_ack_cc(AckRateControl* cc, bool echo_ce, bool telemetry, int64_t extra_header_bytes,
                  uint8_t classes = 0xff) {
    settings_.ack_cc = cc;
    settings_.cc_classes = classes;
    settings_.echo_ce = echo_ce;
    settings_.telemetry = telemetry;
    settings_.cc_header_bytes = extra_header_bytes;
  }
  // Kernel TCP (models/tcp/tcp_stack.hpp): this NIC hands its TCP queue pairs' sending
  // decisions, ACKs and received segments to `tcp`.
  void set_tcp(TcpStack* tcp) { settings_.tcp = tcp; }
  // The QP may send again (the TCP stack opened its window).
  void resume(QueuePair& qp) { sender_.activate(qp); }
  // InfiniBand congestion control (annex A10): FECN-marked data is answered by a BECN (a CNP),
  // BECNs reach the QP's CCTI (models/ib/ib_cc.hpp).
  void set_ib_cc(IbCongestionControl* cc) { settings_.ib_cc = cc; }
  // InfiniBand: packets carry SL = their class and travel on VL = sl_to_vl[SL]; the port's
  // credit gate obeys flow-control packets; `rx` hears the receive buffer's bytes per VL
  // (models/ib/credit_return.hpp). `data_vls`: the port's classes.
  void enable_ib(const std::array<uint8_t, 16>& sl_to_vl, IbCreditGate* gate, IngressListener* rx,
                 int data_vls = kPriorities) {
    if (data_vls > kPriorities) port_.set_class_count(data_vls);
    settings_.ib = true;
    settings_.sl_to_vl = sl_to_vl;
    credit_gate_ = gate;
    rx_credit_ = rx;
    rx_.set_credit_listener(rx);
  }
  // Accept data packets out of order (adaptive routing in the fabric): they are placed on
  // arrival and acknowledged cumulatively, instead of go-back-N's discard and NACK.
  void accept_out_of_order(bool on) { receiver_.accept_out_of_order(on); }
  // SHARP: result packets of in-network reductions go to `sharp`.
  void set_sharp(SharpAllReduce* sharp) { sharp_ = sharp; }
  // NIC-sent PFC on the receive buffer: the priorities in `lossless` pause upstream with
  // `quanta`; frames are logged as node `node`, port 0.
  void enable_rx_pfc(uint8_t lossless, uint32_t quanta, int node, PartitionLog<PfcEvent>* log);
  // Bytes of `priority` in the receive buffer now.
  int64_t rx_buffer_bytes(uint8_t priority) const { return rx_.class_bytes(priority); }
  // Adds the time XOFF has been held up to now (end of run).
  void finish_accounting();
  const EgressPort& port() const { return port_; }
  uint32_t host() const { return host_; }
  // A copy, with the receive buffer's counters and those of NIC-sent PFC (its PfcSender's).
  NicStats stats() const;

  // The QP's message is posted: it starts sending after the NIC's tx latency and host path.
  void post(QueuePair& qp) { sender_.post(qp); }
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
    sender_.update_engine_rate();
  }
  const NicParams& params() const { return params_; }
  // QPs the send engine's round robin has looked at so far (its work; not an output).
  uint64_t round_robin_turns() const { return sender_.round_robin_turns(); }
  // The congestion control's window of bytes in flight per QP (0 = none), scaled by the QP's
  // rate / line rate when `follows_rate`.
  void set_window(int64_t bytes, bool follows_rate) {
    settings_.cc_window_set = true;
    settings_.cc_window_bytes = bytes;
    settings_.cc_window_follows_rate = follows_rate;
  }
  const HostPathParams& host_path() const { return host_path_; }
  // The QP's rate limit changed: the gap after its last packet follows the new rate (a QP
  // held at a low rate is released early when the rate rises again).
  void on_rate_change(QueuePair& qp) { sender_.on_rate_change(qp); }

  void receive(PacketHandle h, uint16_t in_port) override;
  // A DMA write is done, or (kStartFlow) a flow of this host starts: its start is the source
  // NIC's event, so that it runs in the NIC's partition of a split run (sim/simulator.hpp).
  void on_event(uint32_t kind, uint64_t arg) override;
  static constexpr uint32_t kStartFlow = 1;

  // Its results, gathered from the process that ran it (sim/result_archive.hpp).
  void archive_results(sim::ResultArchive& a);

 private:
  bool on_data(PacketHandle h);  // true: the TCP stack keeps the packet
  bool on_drained(PacketHandle h) override { return on_data(h); }  // from the receive buffer
  void receive_data_or_control(PacketHandle h);  // after the DMA write's latency, for data
  void dma_written();
  bool drains_receives() const { return rx_.drains(); }

  Context& ctx_;
  Transport& transport_;
  NicParams params_;  // the transport's, or set_params's (an NVLink endpoint's)
  uint32_t host_;
  EgressPort port_;
  NicSettings settings_;
  PfcGate* pfc_gate_ = nullptr;
  IbCreditGate* credit_gate_ = nullptr;
  IngressListener* rx_credit_ = nullptr;
  SharpAllReduce* sharp_ = nullptr;
  // PCIe (host_path.hpp): this NIC's path; the receive buffer drains at the lower of
  // rx_drain_rate and pcie_rate.
  HostPathParams host_path_;
  std::vector<SharedDmaLink*> shared_dma_;
  struct PendingWrite {
    sim::Time at;
    PacketHandle packet = 0;
  };
  Ring<PendingWrite> dma_writes_;  // data packets in their DMA write latency, arrival order
  NicStats stats_;
  // The parts read the members above (declared after them).
  NicSender sender_;
  NicReceiver receiver_;
  NicRxBuffer rx_;  // toward the host
};

}  // namespace models
