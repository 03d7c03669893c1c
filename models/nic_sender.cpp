// The NIC's sending side (models/nic_sender.hpp): posting, the send engine and PCIe reads,
// round-robin over active queue pairs, pacing by rate limiter and window, building data packets,
// and the reaction to ACKs, NACKs, timeouts and congestion notifications.
#include "models/nic_sender.hpp"

#include <algorithm>
#include <cmath>
#include <memory>

#include "models/cc/ack_rate_control.hpp"
#include "models/ib/ib_cc.hpp"
#include "models/nic.hpp"
#include "models/roce/dcqcn.hpp"
#include "models/shared_dma_link.hpp"
#include "models/tcp/tcp_stack.hpp"

namespace models {

NicSender::NicSender(Context& ctx, Transport& transport, Nic& nic, EgressPort& port,
                     const NicParams& params, const NicSettings& settings,
                     const HostPathParams& host_path, const std::vector<SharedDmaLink*>& shared_dma,
                     NicStats& stats)
    : EventHandler(ctx.sim),
      ctx_(ctx),
      transport_(transport),
      nic_(nic),
      port_(port),
      params_(params),
      settings_(settings),
      host_path_(host_path),
      shared_dma_(shared_dma),
      stats_(stats) {
  update_engine_rate();
}

void NicSender::update_engine_rate() {
  // The fresh QPs in the list are counted only where the message rate cap can hold them.
  counting_ = params_.max_message_rate > 0;
  nonfresh_in_list_ = 0;
  if (counting_) {
    for (size_t i = 0; i < active_.size(); ++i)
      nonfresh_in_list_ += fresh(transport_.qp(active_[i])) ? 0 : 1;
  }
  engine_rate_bps_ = params_.max_send_rate_bps;
  if (params_.send_efficiency < 1.0) {
    const auto share = static_cast<int64_t>(
        std::llround(params_.send_efficiency * static_cast<double>(port_.rate_bps())));
    if (engine_rate_bps_ == 0 || share < engine_rate_bps_) engine_rate_bps_ = share;
  }
}

void NicSender::on_event(uint32_t kind, uint64_t arg) {
  switch (kind) {
    case kPosted: {
      QueuePair& qp = transport_.qp(static_cast<uint32_t>(arg));
      qp.posted = true;
      activate(qp);
      break;
    }
    case kRto:
      on_timeout(transport_.qp(static_cast<uint32_t>(arg)));
      break;
    case kPacingWake:
      pacing_wake_pending_ = false;
      port_.wake();
      break;
  }
}

void NicSender::on_timeout(QueuePair& qp) {
  if (qp.tcp) return settings_.tcp->on_timeout(nic_, qp);
  if (qp.done || qp.snd_nxt == qp.snd_una) return;  // nothing outstanding
  ++qp.timeouts;
  qp.retransmitted_packets += qp.snd_nxt - qp.snd_una;
  const bool was_fresh = counting_ && fresh(qp);
  qp.snd_nxt = qp.snd_una;
  refresh_count(qp, was_fresh);
  qp.rto->arm(ctx_.sim.now() + params_.rto);
  activate(qp);
}

void NicSender::on_cnp(const Packet& cnp) {
  QueuePair& qp = transport_.qp(cnp.qp);
  if (Dcqcn* d = settings_.dcqcn_for(qp)) d->on_notification(qp, port_.rate_bps());
  if (settings_.ib_cc != nullptr) settings_.ib_cc->on_becn(qp, port_.rate_bps());
}

sim::Time NicSender::dma_read_done(sim::Time floor, int64_t payload) const {
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

void NicSender::post(QueuePair& qp) {
  if (!qp.rto) qp.rto = std::make_unique<sim::Timer>(ctx_.sim, this, kRto, qp.id);
  qp.rate_bps = port_.rate_bps();
  if (qp.tcp) {
    settings_.tcp->on_post(qp);
  } else if (settings_.cc_for(qp)) {
    settings_.ack_cc->on_post(qp, port_.rate_bps());
  }
  // Doorbell and the first DMA read's round trip come before the payload can stream; inline
  // sends skip the read.
  const sim::Time latency = post_latency(params_, qp.bytes, host_path_);
  qp.next_send_at = ctx_.sim.now() + latency;
  latest_send_at_ = std::max(latest_send_at_, qp.next_send_at);
  if (latency.ps == 0) {
    qp.posted = true;
    activate(qp);
  } else {
    ctx_.sim.after(latency, this, kPosted, qp.id);
  }
}

void NicSender::on_rate_change(QueuePair& qp) {
  if (qp.last_wire == 0) return;  // nothing sent yet: the first packet goes when posted
  qp.next_send_at = qp.rate_bps < port_.rate_bps()
                        ? qp.last_sent_at + sim::serialization_time(qp.last_wire, qp.rate_bps)
                        : qp.last_sent_at;
  latest_send_at_ = std::max(latest_send_at_, qp.next_send_at);
  if (qp.in_active_list) port_.wake();
}

bool NicSender::has_sendable(const QueuePair& qp) const {
  if (qp.tcp) return qp.posted && !qp.done && !qp.behind && settings_.tcp->may_send(qp);
  if (!qp.posted || qp.done || qp.behind || qp.snd_nxt >= qp.total_packets) return false;
  int64_t window = params_.max_inflight_bytes;
  bool follows_rate = params_.window_follows_rate;
  if (settings_.cc_window_set && settings_.cc_for(qp)) {
    window = settings_.cc_window_bytes;
    follows_rate = settings_.cc_window_follows_rate;
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

void NicSender::activate(QueuePair& qp) {
  if (!qp.in_active_list && has_sendable(qp)) {
    qp.in_active_list = true;
    push_active(qp);
  }
  port_.wake();
}

// Round-robin over active QPs. A QP leaves the list when it has nothing more to send; one
// held by its rate limiter or by the port's flow-control gate stays and is retried later.
PacketHandle NicSender::next_packet(FlowControlGate* gate) {
  const sim::Time now = ctx_.sim.now();
  sim::Time earliest = sim::Time::max();
  if (now < engine_free_at_) {  // the send engine is still on the previous packet or message
    if (!active_.empty()) schedule_pacing_wake(engine_free_at_);
    return kNoPacket;
  }
  size_t tries = active_.size();
  // While the message rate cap holds, a pass over a list of fresh QPs but the last rotates them
  // all back into the same order, each adding next_message_at_ to the earliest wake; only the
  // last one's turn can differ (the one just sent, most often: done, or mid-message). So that
  // turn alone is taken, moved to the front, as the pass would take it: the same list, the same
  // wake, the same packet, without touching the others (a stream of thousands of one-packet
  // messages went over every one of them per packet).
  if (counting_ && now < next_message_at_ && latest_send_at_ <= now) {
    const uint32_t last = active_.empty() ? 0 : active_.back();
    if (nonfresh_in_list_ == 0 || (nonfresh_in_list_ == 1 && !fresh(transport_.qp(last)))) {
      if (active_.size() > nonfresh_in_list_) earliest = next_message_at_;
      tries = nonfresh_in_list_;
      if (tries == 1) {  // the last one's turn comes first
        active_.pop_back();
        active_.push_front(last);
      }
    }
  }
  for (; tries > 0; --tries) {
    ++turns_;
    QueuePair& qp = transport_.qp(active_.front());
    active_.pop_front();
    if (counting_ && !fresh(qp)) --nonfresh_in_list_;
    if (!has_sendable(qp)) {
      qp.in_active_list = false;
      continue;
    }
    if (qp.next_send_at > now) {
      earliest = std::min(earliest, qp.next_send_at);
      push_active(qp);
      continue;
    }
    if (qp.tcp) {  // the next segment's data is not in the socket buffer yet
      const sim::Time ready = settings_.tcp->ready_at(qp);
      if (ready > now) {
        earliest = std::min(earliest, ready);
        push_active(qp);
        continue;
      }
    }
    const uint32_t psn = qp.tcp ? settings_.tcp->next_psn(qp) : qp.snd_nxt;
    if (qp.snd_nxt == 0 && now < next_message_at_) {  // the engine's message rate cap
      earliest = std::min(earliest, next_message_at_);
      push_active(qp);
      continue;
    }
    const DataSize size = data_size(qp, psn);
    if (gate != nullptr && !gate->may_send(settings_.lane_of(qp.priority), size.wire)) {
      // Held by flow control: the gate wakes the port when the class may go again.
      push_active(qp);
      continue;
    }
    sim::Time read_done, read_floor;
    if (models_dma_reads()) {
      // The payload's DMA read: after the channel's previous read, and no earlier than the
      // QP's post (first packet) or its previous packet's departure (one packet read ahead).
      read_floor = qp.last_wire == 0 ? qp.next_send_at : qp.last_sent_at;
      read_done = dma_read_done(read_floor, size.payload);
      if (read_done > now) {
        earliest = std::min(earliest, read_done);
        push_active(qp);
        continue;
      }
    }
    if (models_dma_reads()) {
      const int64_t payload = size.payload;
      if (host_path_.pcie_rate_bps > 0) {
        dma_read_free_at_ = std::max(dma_read_free_at_, read_floor) +
                            sim::serialization_time(payload, host_path_.pcie_rate_bps);
      }
      for (SharedDmaLink* l : shared_dma_) {
        l->commit(SharedDmaLink::kRead, l->done_at(SharedDmaLink::kRead, read_floor, payload));
      }
    }
    const PacketHandle h = make_data_packet(qp, psn, size);
    const Packet& p = ctx_.pool[h];
    if (qp.tcp) {
      settings_.tcp->on_sent(qp, psn);
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
        push_active(next);
      }
    }
    qp.last_sent_at = now;
    qp.last_wire = p.wire_bytes;
    if (qp.rate_bps < port_.rate_bps()) {
      qp.next_send_at = now + sim::serialization_time(p.wire_bytes, qp.rate_bps);
      latest_send_at_ = std::max(latest_send_at_, qp.next_send_at);
    }
    if (qp.tcp) {
      settings_.tcp->start_timer(qp);
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
    if (Dcqcn* d = settings_.dcqcn_for(qp); d != nullptr && !qp.tcp) d->on_sent(qp, p.wire_bytes);
    push_active(qp);
    ++stats_.data_packets_sent;
    return h;
  }
  if (earliest != sim::Time::max()) schedule_pacing_wake(earliest);
  return kNoPacket;
}

void NicSender::schedule_pacing_wake(sim::Time at) {
  if (!pacing_wake_pending_ || at < pacing_wake_at_) {
    pacing_wake_pending_ = true;
    pacing_wake_at_ = at;
    ctx_.sim.at(at, this, kPacingWake);
  }
}

NicSender::DataSize NicSender::data_size(const QueuePair& qp, uint32_t psn) const {
  if (qp.tcp) {
    const uint32_t payload = settings_.tcp->payload_bytes(qp, psn);
    return {payload, settings_.tcp->wire_bytes(payload)};
  }
  const uint32_t payload =
      psn + 1 == qp.total_packets ? qp.last_payload : static_cast<uint32_t>(params_.mtu);
  return {payload, static_cast<uint32_t>(payload + params_.header_bytes +
                                         (settings_.cc_for(qp) ? settings_.cc_header_bytes : 0) +
                                         params_.framing_bytes)};
}

PacketHandle NicSender::make_data_packet(QueuePair& qp, uint32_t psn, DataSize size) {
  const PacketHandle h = ctx_.pool.alloc();
  Packet& p = ctx_.pool[h];
  p.qp = qp.id;
  ctx_.pool.count_qp_packet(p);
  p.src_host = qp.src_host;
  p.dst_host = qp.dst_host;
  p.psn = psn;
  p.payload_bytes = size.payload;
  p.wire_bytes = size.wire;
  p.route_id = qp.route_id;
  p.udp_sport = qp.udp_sport;
  p.type = PacketType::Data;
  p.sl = qp.priority;
  p.priority = settings_.lane_of(qp.priority);
  p.dscp = qp.dscp;
  // RoCEv2 traffic is ECN-capable; TCP's only under DCTCP (Linux negotiates ECN only when
  // asked, net.ipv4.tcp_ecn = 2).
  p.ecn = !qp.tcp || settings_.tcp->ecn_capable() ? Ecn::Ect0 : Ecn::NotEct;
  p.ttl = static_cast<uint8_t>(params_.ttl);
  p.sent_at = ctx_.sim.now();
  if (settings_.telemetry && !qp.tcp && settings_.cc_for(qp))
    p.int_slot = ctx_.pool.alloc_telemetry();
  return h;
}

void NicSender::on_ack(const Packet& a) {
  QueuePair& qp = transport_.qp(a.qp);
  if (qp.tcp) return settings_.tcp->on_ack(nic_, qp, a);
  if ((a.flags & kFlagCongestion) != 0) {
    ++stats_.congestion_flags_received;
    if (Dcqcn* d = settings_.dcqcn_for(qp)) d->on_notification(qp, port_.rate_bps());
  }
  if (qp.done) return;
  const bool was_fresh = counting_ && fresh(qp);
  if (a.psn > qp.snd_una) {
    qp.snd_una = a.psn;
    if (qp.snd_nxt < qp.snd_una) qp.snd_nxt = qp.snd_una;
    if (qp.snd_una == qp.total_packets) {
      refresh_count(qp, was_fresh);
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
  refresh_count(qp, was_fresh);
  if (settings_.cc_for(qp)) settings_.ack_cc->on_ack(qp, a, port_.rate_bps());
  activate(qp);
}

}  // namespace models
