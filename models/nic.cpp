// The NIC (models/nic.hpp): set-up, counters, and the sorting of what arrives from the wire.
#include "models/nic.hpp"

#include "models/ib/credit_gate.hpp"
#include "models/roce/pfc_gate.hpp"
#include "models/sharp/sharp_allreduce.hpp"
#include "models/switch_buffer.hpp"
#include "models/tcp/tcp_stack.hpp"

namespace models {

Nic::Nic(Context& ctx, Transport& transport, uint32_t host, int64_t rate_bps)
    : EventHandler(ctx.sim),
      ctx_(ctx),
      transport_(transport),
      params_(transport.params()),
      host_(host),
      port_(ctx, rate_bps, 0),
      sender_(ctx, transport, *this, port_, params_, settings_, host_path_, shared_dma_, stats_),
      receiver_(ctx, transport, port_, host, params_, settings_, stats_),
      rx_(ctx, params_, shared_dma_, *this) {
  port_.set_source(&sender_);
  set_host_path(params_.host);
}

void Nic::set_host_path(const HostPathParams& host) {
  host_path_ = host;
  int64_t drain = params_.rx_drain_rate_bps;
  if (host.pcie_rate_bps > 0 && (drain == 0 || host.pcie_rate_bps < drain)) {
    drain = host.pcie_rate_bps;  // the DMA write of received payload
  }
  rx_.set_drain_rate(drain);
}

void Nic::enable_rx_pfc(uint8_t lossless, uint32_t quanta, int node, PartitionLog<PfcEvent>* log) {
  rx_.enable_pfc(port_, lossless, quanta, node, host_, log);
}

NicStats Nic::stats() const {
  NicStats s = stats_;
  s.rx_overflow_drops = rx_.stats().overflow_drops;
  s.rx_buffer_peak_bytes = rx_.stats().peak_bytes;
  if (const PfcSender* pfc = rx_.pfc()) {
    const PfcSendStats& p = pfc->stats();
    s.pause_frames_sent = p.pause_frames_sent;
    s.resume_frames_sent = p.resume_frames_sent;
    s.xoff_transitions = p.xoff_transitions;
    s.pause_asserted_time = p.asserted_time;
  }
  return s;
}

void Nic::finish_accounting() {
  rx_.finish_accounting();
}

void Nic::receive(PacketHandle h, uint16_t) {
  const Packet& p = ctx_.pool[h];
  if (p.type == PacketType::Pause) {  // the switch pauses this NIC's class
    ++stats_.pause_frames_received;
    if (pfc_gate_ != nullptr) pfc_gate_->on_pause_frame(p.priority, p.pause_quanta());
    ctx_.pool.release(h);
    return;
  }
  if (p.type == PacketType::FlowControl) {  // InfiniBand credit for this NIC's port
    ++stats_.flow_control_received;
    if (credit_gate_ != nullptr) credit_gate_->on_flow_control(p.priority, p.credit_limit());
    ctx_.pool.release(h);
    return;
  }
  if (p.type == PacketType::Data && host_path_.dma_write_latency.ps > 0) {
    // The payload's DMA write: the packet is the host's (and acknowledged) that much later.
    // A constant delay keeps arrival order, so one pending event serves the whole line.
    const sim::Time at = ctx_.sim.now() + host_path_.dma_write_latency;
    if (dma_writes_.empty()) ctx_.sim.at(at, this, 0);
    dma_writes_.push_back(PendingWrite{at, h});
    return;
  }
  receive_data_or_control(h);
}

void Nic::on_event(uint32_t kind, uint64_t arg) {
  if (kind == kStartFlow) return transport_.start_flow(static_cast<uint32_t>(arg));
  dma_written();
}

void Nic::dma_written() {
  const PacketHandle h = dma_writes_.front().packet;
  dma_writes_.pop_front();
  if (!dma_writes_.empty()) ctx_.sim.at(dma_writes_.front().at, this, 0);
  receive_data_or_control(h);
}

void Nic::receive_data_or_control(PacketHandle h) {
  const Packet& p = ctx_.pool[h];
  if (rx_credit_ != nullptr && (p.type != PacketType::Data || !drains_receives())) {
    // Consumed on arrival (no host drain): it occupies its receive-buffer blocks while it is
    // processed; they are free again once its ACK (if any) is queued (below).
    rx_credit_->on_ingress_bytes(0, p.priority, rx_.class_bytes(p.priority) + p.wire_bytes);
  }
  if (p.type == PacketType::Data) {
    if (drains_receives()) return rx_.arrive(h);  // the host takes it later
    if (on_data(h)) return;                       // the TCP stack holds it
  } else if (p.type == PacketType::Cnp) {
    ++stats_.cnps_received;
    sender_.on_cnp(p);
  } else if (p.type == PacketType::Sharp) {  // a result chunk's packet, consumed on arrival
    if (sharp_ != nullptr) sharp_->on_result(host_, p);
  } else {
    ++stats_.acks_received;
    sender_.on_ack(p);
  }
  if (rx_credit_ != nullptr)
    rx_credit_->on_ingress_bytes(0, p.priority, rx_.class_bytes(p.priority));
  ctx_.pool.release(h);
}

bool Nic::on_data(PacketHandle h) {
  Packet& p = ctx_.pool[h];
  ++stats_.data_packets_received;
  if (p.ecn == Ecn::Ce) ++stats_.ce_marked_received;
  if (transport_.qp(p.qp).tcp) {
    settings_.tcp->on_segment(*this, h);
    return true;
  }
  receiver_.on_data(p);
  return false;
}

}  // namespace models
