// The NIC's receiving side (models/nic.hpp): what arrives from the wire (pause and
// flow-control frames, data through the DMA write latency and the receive buffer, ACKs, NACKs,
// CNPs, SHARP results), the receiver's in-order / out-of-order acceptance and its ACKs, NACKs
// and CNPs, and the sender's reaction to ACKs (go-back-N, completion, congestion control).
#include "models/cc/ack_rate_control.hpp"
#include "models/control_frames.hpp"
#include "models/ib/credit_gate.hpp"
#include "models/ib/ib_cc.hpp"
#include "models/nic.hpp"
#include "models/roce/dcqcn.hpp"
#include "models/roce/pfc_gate.hpp"
#include "models/sharp/sharp_allreduce.hpp"
#include "models/switch_buffer.hpp"
#include "models/tcp/tcp_stack.hpp"

namespace models {

void Nic::send_control(Packet& data, PacketType type, uint32_t psn) {
  QueuePair& qp = transport_.qp(data.qp);
  PacketHandle h{};
  Packet& a = make_reply(ctx_.pool, h, data, type);
  const int64_t cc_header = cc_for(qp) ? cc_header_bytes_ : 0;
  a.wire_bytes = static_cast<uint32_t>(params_.header_bytes + cc_header +
                                       params_.ack_payload_bytes + params_.framing_bytes);
  a.sl = static_cast<uint8_t>(params_.ack_priority);
  a.priority = lane_of(params_.ack_priority);
  a.dscp = static_cast<uint8_t>(params_.ack_dscp);
  a.ttl = static_cast<uint8_t>(params_.ttl);
  a.psn = psn;
  a.sent_at = data.sent_at;    // echoed: the sender's RTT sample
  a.int_slot = data.int_slot;  // the telemetry goes back with the ACK
  data.int_slot = 0;
  if (qp.congestion_to_echo) {  // DCQCN notification on the ACK (ns-3 HPCC style)
    a.flags |= kFlagCongestion;
    qp.congestion_to_echo = false;
  }
  if (type == PacketType::Ack) {
    ++stats_.acks_sent;
  } else {
    ++stats_.nacks_sent;
  }
  port_.enqueue(h, a);
}

// A congestion notification packet back to the sender of `data`'s QP, in the CNP class.
void Nic::send_cnp(const Packet& data) {
  PacketHandle h{};
  Packet& c = make_reply(ctx_.pool, h, data, PacketType::Cnp);
  c.wire_bytes = static_cast<uint32_t>(params_.header_bytes + params_.cnp_payload_bytes +
                                       params_.framing_bytes);
  c.sl = static_cast<uint8_t>(params_.cnp_priority);
  c.priority = lane_of(params_.cnp_priority);
  c.dscp = static_cast<uint8_t>(params_.cnp_dscp);
  c.ttl = static_cast<uint8_t>(params_.ttl);
  c.sent_at = ctx_.sim.now();
  ++stats_.cnps_sent;
  port_.enqueue(h, c);
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
    if (dma_writes_.empty()) ctx_.sim.at(at, this, kDmaWritten);
    dma_writes_.push_back(PendingWrite{at, h});
    return;
  }
  receive_data_or_control(h);
}

void Nic::dma_written() {
  const PacketHandle h = dma_writes_.front().packet;
  dma_writes_.pop_front();
  if (!dma_writes_.empty()) ctx_.sim.at(dma_writes_.front().at, this, kDmaWritten);
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
    QueuePair& qp = transport_.qp(p.qp);
    if (Dcqcn* d = dcqcn_for(qp)) d->on_notification(qp, port_.rate_bps());
    if (ib_cc_ != nullptr) ib_cc_->on_becn(transport_.qp(p.qp), port_.rate_bps());
  } else if (p.type == PacketType::Sharp) {  // a result chunk's packet, consumed on arrival
    if (sharp_ != nullptr) sharp_->on_result(host_, p);
  } else {
    ++stats_.acks_received;
    on_ack(h);
  }
  if (rx_credit_ != nullptr)
    rx_credit_->on_ingress_bytes(0, p.priority, rx_.class_bytes(p.priority));
  ctx_.pool.release(h);
}

bool Nic::on_data(PacketHandle h) {
  Packet& p = ctx_.pool[h];
  QueuePair& qp = transport_.qp(p.qp);
  ++stats_.data_packets_received;
  if (qp.tcp) {
    if (p.ecn == Ecn::Ce) ++stats_.ce_marked_received;
    tcp_->on_segment(*this, h);
    return true;
  }
  if ((p.flags & kFlagFecn) != 0 && ib_cc_ != nullptr) {  // InfiniBand CC: BECN in a CNP
    ib_cc_->on_fecn(host_);
    send_cnp(p);
  }
  if (p.ecn == Ecn::Ce) {
    ++stats_.ce_marked_received;
    Dcqcn* dcqcn = dcqcn_for(qp);
    if (echo_ce_ && cc_for(qp)) {  // DCTCP: the ACK echoes the mark
      qp.congestion_to_echo = true;
    } else if (dcqcn != nullptr) {  // DCQCN notification point
      if (dcqcn->params().feedback == DcqcnParams::Feedback::AckFlag) {
        qp.congestion_to_echo = true;
      } else if (dcqcn->cnp_due(p.qp)) {
        send_cnp(p);
      }
    }
  }
  if (p.psn == qp.expected_psn) {
    ++qp.expected_psn;
    qp.delivered_bytes += p.payload_bytes;
    if (accept_out_of_order_) {  // PSNs that arrived early close up behind this one
      qp.expected_psn = qp.received.next_missing(qp.expected_psn, qp.total_packets);
    }
    if (qp.expected_psn == qp.total_packets) transport_.on_qp_delivered(qp);
    qp.nacked_psn = UINT32_MAX;
    if (++qp.unacked >= params_.ack_every || qp.expected_psn == qp.total_packets) {
      qp.unacked = 0;
      send_control(p, PacketType::Ack, qp.expected_psn);
    }
  } else if (p.psn > qp.expected_psn) {
    ++qp.out_of_order_packets;
    ++stats_.out_of_order_received;
    if (accept_out_of_order_) {
      // Placed at once (models/received_psns.hpp); acknowledged when the gap before it closes.
      if (qp.received.mark(p.psn, qp.total_packets)) {
        qp.delivered_bytes += p.payload_bytes;
      } else {
        ++qp.duplicate_packets;
        send_control(p, PacketType::Ack, qp.expected_psn);
      }
      return false;
    }
    // A gap: go-back-N receivers discard it and ask once for the missing PSN.
    if (qp.nacked_psn != qp.expected_psn) {
      qp.nacked_psn = qp.expected_psn;
      send_control(p, PacketType::Nack, qp.expected_psn);
    }
  } else {
    // A duplicate (the sender went back): re-acknowledge so a lost ACK heals.
    ++qp.duplicate_packets;
    send_control(p, PacketType::Ack, qp.expected_psn);
  }
  return false;
}

void Nic::on_ack(PacketHandle h) {
  const Packet& a = ctx_.pool[h];
  QueuePair& qp = transport_.qp(a.qp);
  if (qp.tcp) return tcp_->on_ack(*this, qp, a);
  if ((a.flags & kFlagCongestion) != 0) {
    ++stats_.congestion_flags_received;
    if (Dcqcn* d = dcqcn_for(qp)) d->on_notification(qp, port_.rate_bps());
  }
  if (qp.done) return;
  if (a.psn > qp.snd_una) {
    qp.snd_una = a.psn;
    if (qp.snd_nxt < qp.snd_una) qp.snd_nxt = qp.snd_una;
    if (qp.snd_una == qp.total_packets) {
      qp.done = true;
      qp.finish = ctx_.sim.now();
      qp.rto->cancel();
      transport_.on_qp_complete(qp);
      return;
    }
    qp.rto->arm(ctx_.sim.now() + params_.rto);
  }
  if (a.type == PacketType::Nack) {
    ++qp.nacks_received;
    if (qp.snd_nxt > a.psn) {
      qp.retransmitted_packets += qp.snd_nxt - a.psn;
      qp.snd_nxt = a.psn;
    }
  }
  if (cc_for(qp)) ack_cc_->on_ack(qp, a, port_.rate_bps());
  activate(qp);
}

}  // namespace models
