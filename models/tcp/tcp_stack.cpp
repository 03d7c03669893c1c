#include "models/tcp/tcp_stack.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "models/nic.hpp"
#include "sim/event_arg.hpp"
#include "sim/partition_lists.hpp"

namespace models {

TcpStack::TcpStack(Context& ctx, Transport& transport, const TcpParams& params,
                   int64_t framing_bytes, std::vector<uint32_t> cpu_of_host, uint32_t cpus)
    : ctx_(ctx),
      transport_(transport),
      p_(params),
      framing_(framing_bytes),
      cores_(static_cast<uint32_t>(std::max(1, params.cores))),
      cpu_of_host_(std::move(cpu_of_host)),
      cpus_(cpus),
      next_core_(cpus, 0),
      conn_index_(cpus),
      rx_core_index_(cpus) {
  // Each CPU's events where its first host's NIC is (a GPU server's NICs: one partition's).
  std::vector<int64_t> first_host(cpus, -1);
  for (size_t h = 0; h < cpu_of_host_.size(); ++h) {
    if (first_host[cpu_of_host_[h]] < 0) first_host[cpu_of_host_[h]] = static_cast<int64_t>(h);
  }
  const uint32_t building = ctx_.sim.building_partition();
  for (uint32_t c = 0; c < cpus; ++c) {
    const sim::EventHandler* nic =
        first_host[c] < 0 ? nullptr : transport_.nic_handler(static_cast<uint32_t>(first_host[c]));
    ctx_.sim.set_building_partition(nic != nullptr ? nic->partition() : building);
    cpu_agents_.push_back(std::make_unique<TcpCpu>(ctx_.sim, *this));
  }
  ctx_.sim.set_building_partition(building);
  stats_.resize(ctx_.sim.partitions());
  held_.resize(ctx_.sim.partitions());
  reserve_qps(transport_.qp_count());
}

void TcpCpu::on_event(uint32_t kind, uint64_t arg) {
  stack_.on_event(kind, arg);
}

TcpStats& TcpStats::operator+=(const TcpStats& o) {
  segments_sent += o.segments_sent;
  segments_retransmitted += o.segments_retransmitted;
  fast_recoveries += o.fast_recoveries;
  timeouts += o.timeouts;
  ecn_reductions += o.ecn_reductions;
  acks_sent += o.acks_sent;
  acks_received += o.acks_received;
  segments_received += o.segments_received;
  out_of_order_segments += o.out_of_order_segments;
  connections += o.connections;
  cpu_time += o.cpu_time;
  max_cwnd_bytes = std::max(max_cwnd_bytes, o.max_cwnd_bytes);
  return *this;
}

uint32_t TcpStack::connection_of(const QueuePair& qp) {
  const uint64_t key = connection_key(qp.src_host, qp.dst_host, qp.udp_sport);
  auto& index = conn_index_[cpu_of_host_[qp.src_host]];
  const auto found = index.find(key);
  if (found != index.end()) return found->second;
  Connection c;
  c.window.reset(p_);
  c.tx_core = next_core(qp.src_host);
  record(c);
  uint32_t id = 0;
  {
    const std::lock_guard lock(conns_mutex_);
    id = static_cast<uint32_t>(conns_.push_back(std::move(c)));
  }
  index.emplace(key, id);
  ++stats_.local().connections;
  return id;
}

uint32_t TcpStack::receive_core(const Packet& p) {
  auto& index = rx_core_index_[cpu_of_host_[p.dst_host]];
  const auto [it, first] =
      index.try_emplace(connection_key(p.src_host, p.dst_host, p.udp_sport), 0);
  if (first) it->second = next_core(p.dst_host);
  return it->second;
}

void TcpStack::record(const Connection& c) {
  TcpStats& s = stats_.local();
  s.max_cwnd_bytes = std::max(s.max_cwnd_bytes, c.window.cwnd());
}

void TcpStack::on_post(QueuePair& qp) {
  TxMessage& m = tx_[qp.id];
  m = TxMessage{};
  m.conn = connection_of(qp);
  Connection& c = conns_[m.conn];
  c.open.push_back(qp.id);
  const sim::Time now = ctx_.sim.now();
  if (c.pipe == 0 && c.sent_bytes > 0 && now - c.last_sent > rto(qp)) {
    c.window.restart_after_idle();
    record(c);
  }
  // send(): the system call, then the copy into the socket buffer, segment by segment, on the
  // connection's core once it has finished its earlier work.
  sim::Time& free_at = core_at(core_slot(qp.src_host, c.tx_core)).free_at;
  const sim::Time start = std::max(now, free_at);
  m.copy_start = start + p_.syscall;
  const sim::Time end = m.copy_start + p_.tx_segment_cost * qp.total_packets +
                        sim::serialization_time(qp.bytes, p_.copy_rate_bps);
  stats_.local().cpu_time += end - start;
  free_at = end;
}

bool TcpStack::may_send(const QueuePair& qp) {
  TxMessage& m = tx_[qp.id];
  if (m.acked) return false;
  const Connection& c = conns_[m.conn];
  const bool retransmit = m.board.next_lost() != UINT32_MAX;
  if (!retransmit && qp.snd_nxt >= qp.total_packets) return false;
  if (static_cast<int64_t>(c.pipe) * p_.mss >= c.window.cwnd()) return false;
  // New data also stays within the receiver's window.
  return retransmit || c.sent_bytes - c.acked_bytes < p_.receive_window;
}

sim::Time TcpStack::ready_at(const QueuePair& qp) {
  TxMessage& m = tx_[qp.id];
  if (m.board.next_lost() != UINT32_MAX) return sim::Time(0);  // already in the socket buffer
  const uint32_t k = qp.snd_nxt;
  const int64_t through = std::min<int64_t>(static_cast<int64_t>(k + 1) * p_.mss, qp.bytes);
  return m.copy_start + p_.tx_segment_cost * (k + 1) +
         sim::serialization_time(through, p_.copy_rate_bps);
}

uint32_t TcpStack::next_psn(const QueuePair& qp) {
  const uint32_t lost = tx_[qp.id].board.next_lost();
  return lost != UINT32_MAX ? lost : qp.snd_nxt;
}

void TcpStack::set_pipe(Connection& c, TxMessage& m, uint32_t before) {
  c.pipe = c.pipe - before + m.board.pipe();
}

void TcpStack::on_sent(QueuePair& qp, uint32_t psn) {
  TxMessage& m = tx_[qp.id];
  Connection& c = conns_[m.conn];
  const uint32_t before = m.board.pipe();
  if (psn == qp.snd_nxt) {
    m.board.sent_new(ctx_.sim.now());
    ++qp.snd_nxt;
    c.sent_bytes += payload_bytes(qp, psn);
  } else {
    m.board.retransmitted(psn, ctx_.sim.now());
    ++qp.retransmitted_packets;
    ++stats_.local().segments_retransmitted;
  }
  set_pipe(c, m, before);
  c.last_sent = ctx_.sim.now();
  ++stats_.local().segments_sent;
}

void TcpStack::arm(QueuePair& qp, sim::Time deadline) {
  qp.rto->arm(deadline);
  qp.rto_horizon = std::max(qp.rto_horizon, deadline);
}

void TcpStack::start_timer(QueuePair& qp) {
  if (!qp.rto->armed()) arm(qp, ctx_.sim.now() + rto(qp));
}

// RFC 6298 with Linux's floor: SRTT + max(4 RTTVAR, min_rto), doubled per timeout in a row,
// at most max_rto; initial_rto before the first sample.
sim::Time TcpStack::rto(const QueuePair& qp) const {
  const Connection& c = conns_[tx_[qp.id].conn];
  sim::Time base = p_.initial_rto;
  if (c.has_rtt) base = c.srtt + std::max(c.rttvar * 4, p_.min_rto);
  for (uint32_t i = 0; i < c.backoff && base < p_.max_rto; ++i) base = base * 2;
  return std::min(base, p_.max_rto);
}

void TcpStack::sample_rtt(Connection& c, sim::Time rtt) {
  if (rtt.ps <= 0) return;
  if (!c.has_rtt || rtt < c.min_rtt) c.min_rtt = rtt;
  if (!c.has_rtt) {
    c.has_rtt = true;
    c.srtt = rtt;
    c.rttvar = sim::Time(rtt.ps / 2);
    return;
  }
  const int64_t err = c.srtt.ps > rtt.ps ? c.srtt.ps - rtt.ps : rtt.ps - c.srtt.ps;
  c.rttvar = sim::Time((3 * c.rttvar.ps + err) / 4);
  c.srtt = sim::Time((7 * c.srtt.ps + rtt.ps) / 8);
}

void TcpStack::on_ack(Nic& nic, QueuePair& qp, const Packet& a) {
  ++stats_.local().acks_received;
  TxMessage& m = tx_[qp.id];
  if (m.acked) return;  // a late ACK of a message fully acknowledged
  Connection& c = conns_[m.conn];
  const sim::Time now = ctx_.sim.now();
  sample_rtt(c, now - a.sent_at);  // the timestamp option's echo (RFC 7323)
  const uint32_t before = m.board.pipe();
  int64_t newly = 0;
  if (a.psn > qp.snd_una) {
    const int64_t segments = a.psn - qp.snd_una;
    newly = segments * p_.mss;
    if (a.psn == qp.total_packets) newly -= p_.mss - qp.last_payload;
    m.board.advance(a.psn);
    qp.snd_una = a.psn;
    c.backoff = 0;
    c.acked_bytes += newly;
  }
  uint32_t lost = 0;
  const bool sacked = a.sack_end != 0 && m.board.sack(a.sack_end - 1);
  if (sacked) lost = m.board.mark_losses(p_.dupack_threshold);
  if (newly > 0 || sacked) {
    // The segment this ACK answers was delivered: RACK's reordering window is a quarter of
    // the connection's lowest RTT.
    lost += m.board.rack_mark(a.sent_at, sim::Time(c.min_rtt.ps / 4));
  }
  const bool ece = (a.flags & kFlagCongestion) != 0;
  if (p_.cc == TcpCc::Dctcp) {
    // The fraction of bytes acknowledged with ECE over each window (RFC 8257 §3.3).
    c.window_acked += newly;
    if (ece) c.window_marked += newly;
    if (c.acked_bytes >= c.alpha_end) {
      c.window.dctcp_window_end(c.window_acked, c.window_marked);
      c.window_acked = c.window_marked = 0;
      c.alpha_end = c.sent_bytes;
    }
  }
  const bool may_cut = c.acked_bytes >= c.cwr_end;  // at most one cut per window of data
  if (lost > 0 && may_cut && qp.snd_una >= m.rto_recover) {
    c.window.on_loss();
    c.cwr_end = c.sent_bytes;
    ++stats_.local().fast_recoveries;
    record(c);
  } else if (ece && may_cut && p_.cc == TcpCc::Dctcp) {
    c.window.dctcp_reduce();
    c.cwr_end = c.sent_bytes;
    ++stats_.local().ecn_reductions;
    record(c);
  } else if (newly > 0 && may_cut) {
    const int64_t old = c.window.cwnd();
    c.window.on_ack(newly, now, c.srtt);
    if (c.window.cwnd() != old) record(c);
  }
  set_pipe(c, m, before);
  if (qp.snd_una == qp.total_packets) {
    m.acked = true;
    qp.rto->cancel();
    c.open.erase(std::find(c.open.begin(), c.open.end(), qp.id));
    // The receiver noted when its application has the message before it acknowledged the last
    // segment: the message completes then — after the delivery of that moment, which was
    // scheduled first — or now if that has passed.
    const sim::Time delivered = rx_[qp.id].delivered_at;
    if (delivered >= now) {
      ctx_.sim.at(delivered, &cpu_of(qp.src_host), kComplete, qp.id);
    } else {
      complete(qp);
    }
  } else if (newly > 0) {
    arm(qp, now + rto(qp));  // restarted by new data acknowledged (RFC 6298 5.3)
  }
  resume_connection(nic, m.conn);
}

void TcpStack::resume_connection(Nic& nic, uint32_t conn) {
  for (const uint32_t id : conns_[conn].open) nic.resume(transport_.qp(id));
}

void TcpStack::on_timeout(Nic& nic, QueuePair& qp) {
  TxMessage& m = tx_[qp.id];
  if (m.acked || qp.snd_una == qp.snd_nxt) return;  // nothing outstanding
  Connection& c = conns_[m.conn];
  ++qp.timeouts;
  ++stats_.local().timeouts;
  const uint32_t before = m.board.pipe();
  c.window.on_timeout(static_cast<int64_t>(c.pipe) * p_.mss);
  m.board.mark_all_lost();
  set_pipe(c, m, before);
  m.rto_recover = qp.snd_nxt;  // no fast recovery for what was out before the timeout
  c.backoff = std::min<uint32_t>(c.backoff + 1, 30);
  arm(qp, ctx_.sim.now() + rto(qp));
  record(c);
  resume_connection(nic, m.conn);
}

void TcpStack::complete(QueuePair& qp) {
  qp.done = true;
  qp.finish = ctx_.sim.now();
  transport_.on_qp_complete(qp);
}

void TcpStack::on_event(uint32_t kind, uint64_t arg) {
  switch (kind) {
    case kRxProcessed: {
      Ring<Pending>& q = core_at(static_cast<uint32_t>(arg)).rx;
      const Pending head = q.front();
      q.pop_front();
      --held_.local();
      if (!q.empty()) {
        ctx_.sim.at(q.front().at, cpu_agents_[arg / cores_].get(), kRxProcessed, arg);
      }
      process(*head.nic, head.packet);
      break;
    }
    case kDelivered: {
      const auto id = static_cast<uint32_t>(arg);
      RxMessage& m = rx_[id];
      ctx_.pool.release(m.last_segment);
      m.last_segment = kNoPacket;
      --held_.local();
      transport_.on_qp_delivered(transport_.qp(id));
      break;
    }
    case kDelayedAck: {
      const uint32_t id = sim::arg_low(arg);
      const RxMessage& m = rx_[id];
      // An ACK went out since, or the slot has moved on to another message.
      if (m.delack_generation.load(std::memory_order_relaxed) != sim::arg_high(arg)) break;
      QueuePair& qp = transport_.qp(id);
      if (qp.unacked > 0) send_ack(*m.nic, qp, m.echo, 0);
      break;
    }
    case kComplete:
      complete(transport_.qp(static_cast<uint32_t>(arg)));
      break;
  }
}

void TcpStack::pack_share(sim::Bytes& out) {
  sim::pack_partition_lists(ctx_.sim, delivered_told_, out);
}

void TcpStack::take_share(sim::ByteReader& in, uint32_t rank) {
  const auto count = in.get<uint64_t>();
  const bool own = rank == ctx_.sim.ranks()->rank();
  for (uint64_t i = 0; i < count; ++i) {
    const auto [qp, at] = in.get<Delivered>();
    if (qp >= transport_.qp_count()) {
      throw std::logic_error("a TCP message's delivery told of QP " + std::to_string(qp) +
                             ", beyond the transport's " + std::to_string(transport_.qp_count()));
    }
    // Where the receiver is, it noted the moment itself; its sender's process reads it when
    // the last acknowledgement arrives, a window or more from now.
    if (!own) rx_[qp].delivered_at = at;
  }
}

bool TcpStack::share_pending() const {
  return sim::partition_lists_pending(ctx_.sim, delivered_told_);
}

}  // namespace models
