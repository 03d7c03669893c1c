// The NIC's sending side (models/nic.hpp): posting, the send engine and PCIe reads,
// round-robin over active queue pairs, pacing by rate limiter and window, building data packets.
#include <algorithm>
#include <memory>

#include "models/cc/ack_rate_control.hpp"
#include "models/nic.hpp"
#include "models/roce/dcqcn.hpp"
#include "models/shared_dma_link.hpp"
#include "models/tcp/tcp_stack.hpp"

namespace models {

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

}  // namespace models
