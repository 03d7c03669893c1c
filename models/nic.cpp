#include "models/nic.hpp"

#include <algorithm>
#include <cmath>

#include "models/cc/ack_rate_control.hpp"
#include "models/control_frames.hpp"
#include "models/ib/credit_gate.hpp"
#include "models/ib/ib_cc.hpp"
#include "models/roce/dcqcn.hpp"
#include "models/roce/pfc_gate.hpp"
#include "models/roce/pfc_headroom.hpp"
#include "models/shared_dma_link.hpp"
#include "models/sharp/sharp_allreduce.hpp"
#include "models/switch_buffer.hpp"
#include "models/tcp/tcp_stack.hpp"

namespace models {

Nic::Nic(Context& ctx, Transport& transport, uint32_t host, int64_t rate_bps)
    : ctx_(ctx),
      transport_(transport),
      params_(transport.params()),
      host_(host),
      port_(ctx, rate_bps, 0),
      rx_(ctx, params_, shared_dma_, *this) {
  port_.set_source(this);
  set_host_path(params_.host);
  update_engine_rate();
}

void Nic::update_engine_rate() {
  engine_rate_bps_ = params_.max_send_rate_bps;
  if (params_.send_efficiency < 1.0) {
    const auto share = static_cast<int64_t>(
        std::llround(params_.send_efficiency * static_cast<double>(port_.rate_bps())));
    if (engine_rate_bps_ == 0 || share < engine_rate_bps_) engine_rate_bps_ = share;
  }
}

void Nic::set_host_path(const HostPathParams& host) {
  host_path_ = host;
  int64_t drain = params_.rx_drain_rate_bps;
  if (host.pcie_rate_bps > 0 && (drain == 0 || host.pcie_rate_bps < drain)) {
    drain = host.pcie_rate_bps;  // the DMA write of received payload
  }
  rx_.set_drain_rate(drain);
}

sim::Time Nic::dma_read_done(sim::Time floor, int64_t payload) const {
  sim::Time done = floor;
  if (host_path_.pcie_rate_bps > 0) {
    done = std::max(dma_read_free_at_, floor) +
           sim::serialization_time(payload, host_path_.pcie_rate_bps);
  }
  // Cut through the links on the way: the read is through when the slowest has carried it.
  for (const SharedDmaLink* l : shared_dma_) {
    done = std::max(done, l->done_at(SharedDmaLink::kRead, floor, payload));
  }
  return done;
}

void Nic::post(QueuePair& qp) {
  if (!qp.rto) qp.rto = std::make_unique<sim::Timer>(ctx_.sim, this, kRto, qp.id);
  qp.rate_bps = port_.rate_bps();
  if (qp.tcp) {
    tcp_->on_post(qp);
  } else if (cc_for(qp)) {
    ack_cc_->on_post(qp, port_.rate_bps());
  }
  // Doorbell and the first DMA read's round trip come before the payload can stream; inline
  // sends skip the read.
  const sim::Time latency = post_latency(params_, qp.bytes, host_path_);
  qp.next_send_at = ctx_.sim.now() + latency;
  if (latency.ps == 0) {
    qp.posted = true;
    activate(qp);
  } else {
    ctx_.sim.after(latency, this, kPosted, qp.id);
  }
}

void Nic::on_rate_change(QueuePair& qp) {
  if (qp.last_wire == 0) return;  // nothing sent yet: the first packet goes when posted
  qp.next_send_at = qp.rate_bps < port_.rate_bps()
                        ? qp.last_sent_at + sim::serialization_time(qp.last_wire, qp.rate_bps)
                        : qp.last_sent_at;
  if (qp.in_active_list) port_.wake();
}

bool Nic::has_sendable(const QueuePair& qp) const {
  if (qp.tcp) return qp.posted && !qp.done && !qp.behind && tcp_->may_send(qp);
  if (!qp.posted || qp.done || qp.behind || qp.snd_nxt >= qp.total_packets) return false;
  int64_t window = params_.max_inflight_bytes;
  bool follows_rate = params_.window_follows_rate;
  if (cc_window_set_ && cc_for(qp)) {
    window = cc_window_bytes_;
    follows_rate = cc_window_follows_rate_;
  }
  if (window > 0) {
    if (follows_rate && qp.rate_bps < port_.rate_bps()) {
      // W = W_max x R / line rate, at least one byte (one packet), as ns-3 HPCC's GetWin.
      window = std::max<int64_t>(
          1, static_cast<int64_t>(static_cast<__int128>(window) * qp.rate_bps / port_.rate_bps()));
    }
    if (static_cast<int64_t>(qp.snd_nxt - qp.snd_una) * params_.mtu >= window) return false;
  }
  return true;
}

void Nic::activate(QueuePair& qp) {
  if (!qp.in_active_list && has_sendable(qp)) {
    qp.in_active_list = true;
    active_.push_back(qp.id);
  }
  port_.wake();
}

// Round-robin over active QPs. A QP leaves the list when it has nothing more to send; one
// held by its rate limiter or by the port's flow-control gate stays and is retried later.
PacketHandle Nic::next_packet(FlowControlGate* gate) {
  const sim::Time now = ctx_.sim.now();
  sim::Time earliest = sim::Time::max();
  if (now < engine_free_at_) {  // the send engine is still on the previous packet or message
    if (!active_.empty()) schedule_pacing_wake(engine_free_at_);
    return kNoPacket;
  }
  for (size_t tries = active_.size(); tries > 0; --tries) {
    const uint32_t id = active_.front();
    active_.pop_front();
    QueuePair& qp = transport_.qp(id);
    if (!has_sendable(qp)) {
      qp.in_active_list = false;
      continue;
    }
    if (qp.next_send_at > now) {
      earliest = std::min(earliest, qp.next_send_at);
      active_.push_back(id);
      continue;
    }
    if (qp.tcp) {  // the next segment's data is not in the socket buffer yet
      const sim::Time ready = tcp_->ready_at(qp);
      if (ready > now) {
        earliest = std::min(earliest, ready);
        active_.push_back(id);
        continue;
      }
    }
    const uint32_t psn = qp.tcp ? tcp_->next_psn(qp) : qp.snd_nxt;
    if (qp.snd_nxt == 0 && now < next_message_at_) {  // the engine's message rate cap
      earliest = std::min(earliest, next_message_at_);
      active_.push_back(id);
      continue;
    }
    if (gate != nullptr && !gate->may_send(lane_of(qp.priority), data_wire_bytes(qp, psn))) {
      // Held by flow control: the gate wakes the port when the class may go again.
      active_.push_back(id);
      continue;
    }
    sim::Time read_done, read_floor;
    if (models_dma_reads()) {
      // The payload's DMA read: after the channel's previous read, and no earlier than the
      // QP's post (first packet) or its previous packet's departure (one packet read ahead).
      read_floor = qp.last_wire == 0 ? qp.next_send_at : qp.last_sent_at;
      read_done = dma_read_done(read_floor, data_payload_bytes(qp, psn));
      if (read_done > now) {
        earliest = std::min(earliest, read_done);
        active_.push_back(id);
        continue;
      }
    }
    if (models_dma_reads()) {
      const int64_t payload = data_payload_bytes(qp, psn);
      if (host_path_.pcie_rate_bps > 0) {
        dma_read_free_at_ = std::max(dma_read_free_at_, read_floor) +
                            sim::serialization_time(payload, host_path_.pcie_rate_bps);
      }
      for (SharedDmaLink* l : shared_dma_) {
        l->commit(SharedDmaLink::kRead, l->done_at(SharedDmaLink::kRead, read_floor, payload));
      }
    }
    const PacketHandle h = make_data_packet(qp, psn);
    const Packet& p = ctx_.pool[h];
    if (qp.tcp) {
      tcp_->on_sent(qp, psn);
    } else {
      ++qp.snd_nxt;
    }
    if (qp.snd_nxt == qp.total_packets && qp.fifo_next != UINT32_MAX) {
      // Its last packet is out: the connection's next message goes on (Transport::
      // start_flow_in_order); the port asks again after this packet.
      QueuePair& next = transport_.qp(qp.fifo_next);
      qp.fifo_next = UINT32_MAX;
      next.behind = false;
      if (next.posted && !next.in_active_list) {
        next.in_active_list = true;
        active_.push_back(next.id);
      }
    }
    qp.last_sent_at = now;
    qp.last_wire = p.wire_bytes;
    if (qp.rate_bps < port_.rate_bps()) {
      qp.next_send_at = now + sim::serialization_time(p.wire_bytes, qp.rate_bps);
    }
    if (qp.tcp) {
      tcp_->start_timer(qp);
    } else if (!qp.rto->armed()) {
      qp.rto->arm(now + params_.rto);
    }
    if (engine_rate_bps_ > 0 || params_.message_overhead.ps > 0) {
      engine_free_at_ = now;
      if (engine_rate_bps_ > 0) {
        engine_free_at_ += sim::serialization_time(p.wire_bytes, engine_rate_bps_);
      }
      if (p.psn == 0) engine_free_at_ += params_.message_overhead;
    }
    if (p.psn == 0 && params_.max_message_rate > 0) next_message_at_ = now + message_gap(params_);
    if (Dcqcn* d = dcqcn_for(qp); d != nullptr && !qp.tcp) d->on_sent(qp, p.wire_bytes);
    active_.push_back(id);
    ++stats_.data_packets_sent;
    return h;
  }
  if (earliest != sim::Time::max()) schedule_pacing_wake(earliest);
  return kNoPacket;
}

void Nic::schedule_pacing_wake(sim::Time at) {
  if (!pacing_wake_pending_ || at < pacing_wake_at_) {
    pacing_wake_pending_ = true;
    pacing_wake_at_ = at;
    ctx_.sim.at(at, this, kPacingWake);
  }
}

uint32_t Nic::data_payload_bytes(const QueuePair& qp, uint32_t psn) const {
  if (qp.tcp) return tcp_->payload_bytes(qp, psn);
  return psn + 1 == qp.total_packets ? qp.last_payload : static_cast<uint32_t>(params_.mtu);
}

uint32_t Nic::data_wire_bytes(const QueuePair& qp, uint32_t psn) const {
  if (qp.tcp) return tcp_->wire_bytes(tcp_->payload_bytes(qp, psn));
  return static_cast<uint32_t>(data_payload_bytes(qp, psn) + params_.header_bytes +
                               (cc_for(qp) ? cc_header_bytes_ : 0) + params_.framing_bytes);
}

PacketHandle Nic::make_data_packet(QueuePair& qp, uint32_t psn) {
  const PacketHandle h = ctx_.pool.alloc();
  Packet& p = ctx_.pool[h];
  p.qp = qp.id;
  ctx_.pool.count_qp_packet(p);
  p.src_host = qp.src_host;
  p.dst_host = qp.dst_host;
  p.psn = psn;
  p.payload_bytes = data_payload_bytes(qp, psn);
  p.wire_bytes = data_wire_bytes(qp, psn);
  p.route_id = qp.route_id;
  p.udp_sport = qp.udp_sport;
  p.type = PacketType::Data;
  p.sl = qp.priority;
  p.priority = lane_of(qp.priority);
  p.dscp = qp.dscp;
  // RoCEv2 traffic is ECN-capable; TCP's only under DCTCP (Linux negotiates ECN only when
  // asked, net.ipv4.tcp_ecn = 2).
  p.ecn = !qp.tcp || tcp_->ecn_capable() ? Ecn::Ect0 : Ecn::NotEct;
  p.ttl = static_cast<uint8_t>(params_.ttl);
  p.sent_at = ctx_.sim.now();
  if (telemetry_ && !qp.tcp && cc_for(qp)) p.int_slot = ctx_.pool.alloc_telemetry();
  return h;
}

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

void Nic::enable_rx_pfc(uint8_t lossless, uint32_t quanta, int node, std::vector<PfcEvent>* log) {
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

void Nic::on_event(uint32_t kind, uint64_t arg) {
  switch (kind) {
    case kPosted: {
      QueuePair& qp = transport_.qp(static_cast<uint32_t>(arg));
      qp.posted = true;
      activate(qp);
      break;
    }
    case kRto: {
      QueuePair& qp = transport_.qp(static_cast<uint32_t>(arg));
      if (qp.tcp) {
        tcp_->on_timeout(*this, qp);
        break;
      }
      if (qp.done || qp.snd_nxt == qp.snd_una) break;  // nothing outstanding
      ++qp.timeouts;
      qp.retransmitted_packets += qp.snd_nxt - qp.snd_una;
      qp.snd_nxt = qp.snd_una;
      qp.rto->arm(ctx_.sim.now() + params_.rto);
      activate(qp);
      break;
    }
    case kPacingWake:
      pacing_wake_pending_ = false;
      port_.wake();
      break;
    case kDmaWritten:
      dma_written();
      break;
  }
}

}  // namespace models
