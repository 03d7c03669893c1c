// The NIC's receiver (models/nic_receiver.hpp): in-order / out-of-order acceptance of RDMA data
// and its ACKs, NACKs and CNPs.
#include "models/nic_receiver.hpp"

#include "models/control_frames.hpp"
#include "models/ib/ib_cc.hpp"
#include "models/nic.hpp"
#include "models/roce/dcqcn.hpp"

namespace models {

void NicReceiver::send_control(Packet& data, PacketType type, uint32_t psn) {
  QueuePair& qp = transport_.qp(data.qp);
  PacketHandle h{};
  Packet& a = make_reply(ctx_.pool, h, data, type);
  const int64_t cc_header = settings_.cc_for(qp) ? settings_.cc_header_bytes : 0;
  a.wire_bytes = static_cast<uint32_t>(params_.header_bytes + cc_header +
                                       params_.ack_payload_bytes + params_.framing_bytes);
  a.sl = static_cast<uint8_t>(params_.ack_priority);
  a.priority = settings_.lane_of(params_.ack_priority);
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
void NicReceiver::send_cnp(const Packet& data) {
  PacketHandle h{};
  Packet& c = make_reply(ctx_.pool, h, data, PacketType::Cnp);
  c.wire_bytes = static_cast<uint32_t>(params_.header_bytes + params_.cnp_payload_bytes +
                                       params_.framing_bytes);
  c.sl = static_cast<uint8_t>(params_.cnp_priority);
  c.priority = settings_.lane_of(params_.cnp_priority);
  c.dscp = static_cast<uint8_t>(params_.cnp_dscp);
  c.ttl = static_cast<uint8_t>(params_.ttl);
  c.sent_at = ctx_.sim.now();
  ++stats_.cnps_sent;
  port_.enqueue(h, c);
}

void NicReceiver::on_data(Packet& p) {
  QueuePair& qp = transport_.qp(p.qp);
  if ((p.flags & kFlagFecn) != 0 && settings_.ib_cc != nullptr) {  // InfiniBand CC: BECN in a CNP
    settings_.ib_cc->on_fecn(host_);
    send_cnp(p);
  }
  if (p.ecn == Ecn::Ce) {
    Dcqcn* dcqcn = settings_.dcqcn_for(qp);
    if (settings_.echo_ce && settings_.cc_for(qp)) {  // DCTCP: the ACK echoes the mark
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
      return;
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
}

}  // namespace models
