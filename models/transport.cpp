#include "models/transport.hpp"

#include <algorithm>
#include <tuple>

#include "models/nic.hpp"

namespace models {

int64_t Transport::used_qps(const FlowSpec& spec) const {
  const int64_t mtu = is_tcp(spec) ? tcp_mss_ : params_.mtu;
  const int64_t packets = (spec.bytes + mtu - 1) / mtu;
  return std::min<int64_t>(spec.qps, packets);
}

uint32_t Transport::add_flow(const FlowSpec& spec, uint32_t route_id, uint16_t first_udp_sport,
                             bool recycle) {
  const int64_t qps = used_qps(spec);
  const bool split = ctx_.sim.partitions() > 1;
  recycle = recycle && !keep_qp_ids_;
  std::unique_lock<std::mutex> hold(add_mutex_, std::defer_lock);
  if (split) hold.lock();
  if (recycle && !split) ctx_.pool.track_qp_packets();  // a split run's from the start
  const uint32_t reused =
      recycle ? reuse_slot(static_cast<uint32_t>(qps), partition_of(spec.src_host)) : UINT32_MAX;
  uint32_t flow_id = 0, first_qp = 0;
  if (reused != UINT32_MAX) {
    flow_id = reused;
    first_qp = flows_[reused].first_qp;
    if (over_processes_) added_.local().push_back({flow_id, true});
  } else if (over_processes_) {
    const uint32_t partition = partition_of(spec.src_host);
    std::tie(flow_id, first_qp) = block_ids(partition, static_cast<uint32_t>(qps));
    added_.local().push_back({flow_id, false});
  } else {
    flow_id = static_cast<uint32_t>(flows_.size());
    first_qp = static_cast<uint32_t>(qps_.size());
  }
  fill_flow(flow_id, first_qp, spec, route_id, first_udp_sport, recycle, reused != UINT32_MAX);
  return flow_id;
}

void Transport::fill_flow(uint32_t flow_id, uint32_t first_qp, const FlowSpec& spec,
                          uint32_t route_id, uint16_t first_udp_sport, bool recycle, bool reused) {
  // Stripe the message over its QPs in contiguous runs of MTU packets; the last non-empty QP
  // carries the message's short tail packet. QPs beyond the packet count are not created.
  const bool tcp = is_tcp(spec);
  const int64_t mtu = tcp ? tcp_mss_ : params_.mtu;
  const int64_t packets = (spec.bytes + mtu - 1) / mtu;
  const int64_t used_qps = std::min<int64_t>(spec.qps, packets);
  // A slot of a table: appended, or written over (a reused slot, or a block's spare one).
  const bool in_place = reused || flow_id < flows_.size();
  FlowState f;
  f.spec = spec;
  f.recycle = recycle;
  f.first_qp = first_qp;
  f.qp_count = static_cast<uint32_t>(used_qps);
  f.qps_remaining = f.qp_count;
  f.qps_undelivered = f.qp_count;
  for (int64_t k = 0; k < used_qps; ++k) {
    QueuePair qp;
    qp.id = f.first_qp + static_cast<uint32_t>(k);
    qp.flow = flow_id;
    qp.src_host = static_cast<uint32_t>(spec.src_host);
    qp.dst_host = static_cast<uint32_t>(spec.dst_host);
    qp.udp_sport = static_cast<uint16_t>(first_udp_sport + k);
    qp.priority = static_cast<uint8_t>(spec.priority);
    qp.dscp = static_cast<uint8_t>(spec.dscp);
    qp.route_id = route_id;
    qp.tcp = tcp;
    const int64_t my_packets = packets / used_qps + (k < packets % used_qps ? 1 : 0);
    int64_t bytes = my_packets * mtu;
    if (k == used_qps - 1) bytes -= packets * mtu - spec.bytes;
    qp.bytes = bytes;
    qp.total_packets = static_cast<uint32_t>(my_packets);
    qp.last_payload = static_cast<uint32_t>(bytes - (my_packets - 1) * mtu);
    if (qp.id < qps_.size()) {
      qps_[qp.id] = std::move(qp);
    } else {
      qps_.push_back(std::move(qp));
    }
  }
  if (in_place) {
    flows_[flow_id] = std::move(f);
  } else {
    flows_.push_back(std::move(f));
  }
  ctx_.pool.reserve_qp_counts(static_cast<uint32_t>(qps_.size()));
  if (qp_reserver_) qp_reserver_(qps_.size());
}

void Transport::prepare_recycling() {
  if (!keep_qp_ids_) ctx_.pool.track_qp_packets();
}

sim::EventHandler* Transport::nic_handler(uint32_t host) const {
  return host < nics_.size() ? nics_[host] : nullptr;  // none: a rig without NICs
}

uint32_t Transport::partition_of(int64_t host) const {
  const sim::EventHandler* nic = nic_handler(static_cast<uint32_t>(host));
  return nic != nullptr ? nic->partition() : 0;
}

// Each start is an event of the flow's source NIC (models/nic.hpp, kStartFlow).
void Transport::schedule_starts() {
  for (uint32_t i = 0; i < flows_.size(); ++i) {
    const uint32_t src = static_cast<uint32_t>(flows_[i].spec.src_host);
    ctx_.sim.at(flows_[i].spec.start, nics_[src], Nic::kStartFlow, i);
  }
}

void Transport::on_event(uint32_t, uint64_t flow_id) {
  const FlowState& f = flows_[flow_id];
  for (uint32_t k = 0; k < f.qp_count; ++k) {
    QueuePair& q = qps_[f.first_qp + k];
    nics_[q.src_host]->post(q);
  }
}

void Transport::start_flow_in_order(uint32_t flow) {
  const FlowState& f = flows_[flow];
  if (f.qp_count == 1) {
    QueuePair& q = qps_[f.first_qp];
    const uint64_t connection =
        (uint64_t{q.src_host} << 40) ^ (uint64_t{q.dst_host} << 16) ^ q.udp_sport;
    const auto [it, fresh] =
        connection_tail_[partition_of(q.src_host)].try_emplace(connection, q.id);
    if (!fresh) {
      // The latest message's QP, unless its id went to another connection's message since.
      QueuePair& ahead = qps_[it->second];
      if (ahead.id != q.id && ahead.src_host == q.src_host && ahead.dst_host == q.dst_host &&
          ahead.udp_sport == q.udp_sport && flows_[ahead.flow].qp_count == 1 && !ahead.done &&
          ahead.snd_nxt < ahead.total_packets && ahead.fifo_next == UINT32_MAX) {
        ahead.fifo_next = q.id;
        q.behind = true;
      }
      it->second = q.id;
    }
  }
  start_flow(flow);
}

void Transport::rate_changed(QueuePair& qp) {
  if (qp.src_host < nics_.size()) nics_[qp.src_host]->on_rate_change(qp);
}

void Transport::on_qp_complete(QueuePair& qp) {
  FlowState& f = flows_[qp.flow];
  if (--f.qps_remaining == 0) {
    f.done = true;
    f.finish = ctx_.sim.now();
    flows_done_.fetch_add(1, std::memory_order_release);
    const uint32_t flow = qp.flow;
    for (auto* l : listeners_) l->on_flow_complete(flow);
    if (flows_[flow].recycle) retire(flow);
  }
}

void Transport::on_qp_delivered(QueuePair& qp) {
  if (qp.delivered) return;
  qp.delivered = true;
  qp.delivered_at = ctx_.sim.now();
  if (--flows_[qp.flow].qps_undelivered == 0) {
    const uint32_t flow = qp.flow;
    for (auto* l : listeners_) l->on_flow_delivered(flow);
  }
}

}  // namespace models
