// The receiving side of the kernel TCP stack (tcp_stack.hpp): a segment's interrupt and
// protocol work queued on its connection's receive core, in-order delivery with a SACK
// scoreboard for what arrives ahead of a gap, and the ACKs — at once (out of order, a filled
// gap, a CE mark, every `ack_every` segments, the last) or after the delayed-ACK timer.
#include <algorithm>

#include "models/control_frames.hpp"
#include "models/nic.hpp"
#include "models/tcp/tcp_stack.hpp"
#include "sim/event_arg.hpp"

namespace models {
namespace {
constexpr uint32_t kSackOptionBytes = 12;  // one SACK block (10) and two NOPs (RFC 2018)
}

void TcpStack::on_segment(Nic& nic, PacketHandle h) {
  const Packet& p = ctx_.pool[h];
  const uint32_t rx_core = receive_core(p);
  rx_[p.qp].nic = &nic;
  TcpStats& stats = stats_.local();
  ++stats.segments_received;
  // The interrupt (moderated), then protocol processing and the copy to the application on
  // the connection's receive core, after whatever that core is doing.
  const uint32_t slot = core_slot(p.dst_host, rx_core);
  Core& core = core_at(slot);
  sim::Time& free_at = core.free_at;
  const sim::Time start = std::max(ctx_.sim.now() + p_.interrupt_latency, free_at);
  const sim::Time done =
      start + p_.rx_segment_cost + sim::serialization_time(p.payload_bytes, p_.copy_rate_bps);
  stats.cpu_time += done - start;
  free_at = done;
  Ring<Pending>& q = core.rx;
  if (q.empty()) ctx_.sim.at(done, &cpu_of(p.dst_host), kRxProcessed, slot);
  q.push_back({done, h, &nic});
  ++held_.local();
}

void TcpStack::process(Nic& nic, PacketHandle h) {
  const Packet& p = ctx_.pool[h];
  QueuePair& qp = transport_.qp(p.qp);
  RxMessage& m = rx_[p.qp];
  bool ack_now = false;
  uint32_t sack_end = 0;
  if (p.ecn == Ecn::Ce) {
    qp.congestion_to_echo = true;
    ack_now = true;
  }
  if (p.psn == qp.expected_psn) {
    qp.delivered_bytes += p.payload_bytes;
    const uint32_t next = qp.received.next_missing(p.psn + 1, qp.total_packets);
    if (next > p.psn + 1) ack_now = true;  // it filled a gap
    qp.expected_psn = next;
    m.echo = p.sent_at;
    if (++qp.unacked >= p_.ack_every || next == qp.total_packets) ack_now = true;
    if (next == qp.total_packets) {
      // The application, blocked in recv(), is woken and returns with the message: noted
      // before the acknowledgement below, which tells the sender when that is.
      m.delivered_at = ctx_.sim.now() + p_.wakeup_latency + p_.syscall;
      if (!delivered_told_.empty()) {
        delivered_told_[sim::Simulator::thread_partition()].push_back({qp.id, m.delivered_at});
      }
      m.last_segment = h;
      ++held_.local();
      ctx_.sim.at(m.delivered_at, &cpu_of(p.dst_host), kDelivered, qp.id);
      stats_.local().cpu_time += p_.syscall;
    }
  } else if (p.psn > qp.expected_psn) {
    ++qp.out_of_order_packets;
    ++stats_.local().out_of_order_segments;
    if (qp.received.mark(p.psn, qp.total_packets)) {
      qp.delivered_bytes += p.payload_bytes;
    } else {
      ++qp.duplicate_packets;
    }
    sack_end = p.psn + 1;
    ack_now = true;
  } else {
    ++qp.duplicate_packets;  // a spurious retransmission: acknowledge again
    ack_now = true;
  }
  const sim::Time echo = p.sent_at;
  if (m.last_segment != h) ctx_.pool.release(h);
  if (ack_now) {
    send_ack(nic, qp, echo, sack_end);
  } else {
    const uint32_t generation = m.delack_generation.fetch_add(1, std::memory_order_relaxed) + 1;
    ctx_.sim.after(p_.delayed_ack, &cpu_of(qp.dst_host), kDelayedAck,
                   sim::pack_arg(generation, qp.id));
  }
}

void TcpStack::send_ack(Nic& nic, QueuePair& qp, sim::Time echo, uint32_t sack_end) {
  qp.unacked = 0;
  // A pending delayed ACK is served by this one.
  rx_[qp.id].delack_generation.fetch_add(1, std::memory_order_relaxed);
  PacketHandle h{};
  Packet& a =
      make_reply(ctx_.pool, h, qp.id, qp.src_host, qp.dst_host, qp.udp_sport, PacketType::Ack);
  a.wire_bytes = wire_bytes(sack_end != 0 ? kSackOptionBytes : 0);
  a.sl = qp.priority;  // a TCP ACK travels in its connection's class
  a.priority = qp.priority;
  a.dscp = qp.dscp;
  a.ttl = static_cast<uint8_t>(nic.params().ttl);
  a.psn = qp.expected_psn;  // the cumulative acknowledgement
  a.sack_end = sack_end;
  a.sent_at = echo;
  if (qp.congestion_to_echo) {
    a.flags |= kFlagCongestion;  // ECE
    qp.congestion_to_echo = false;
  }
  ++stats_.local().acks_sent;
  nic.port().enqueue(h, a);
}

}  // namespace models
