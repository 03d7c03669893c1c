#include "models/switch.hpp"

#include "models/ib/credit_gate.hpp"
#include "models/roce/pfc_gate.hpp"
#include "models/sharp/aggregation_engine.hpp"

namespace models {

Switch::Switch(Context& ctx, int node, std::string name, const SwitchParams& params,
               const std::vector<int64_t>& port_rates, uint64_t ecmp_seed)
    : ctx_(ctx),
      node_(node),
      name_(std::move(name)),
      params_(params),
      buffer_(params.buffer, static_cast<int>(port_rates.size())),
      port_rates_(port_rates),
      ecmp_key_(topo::ecmp_seed_key(ecmp_seed)),
      adaptive_(params.adaptive_routing) {
  ports_.reserve(port_rates.size());
  for (size_t i = 0; i < port_rates.size(); ++i) {
    ports_.push_back(std::make_unique<EgressPort>(ctx, port_rates[i], static_cast<uint16_t>(i)));
    ports_.back()->set_observer(this);
    if (params.buffer.classes > kPriorities) ports_.back()->set_class_count(params.buffer.classes);
  }
}

int Switch::route(const Packet& p) const {
  if (p.route_id != 0 && explicit_routes_ != nullptr) {
    const auto& r = explicit_routes_->ports[p.route_id - 1];
    return p.route_hop < r.size() ? r[p.route_hop] : -1;
  }
  if (!routing_->lft.empty()) {
    const uint16_t port =
        routing_->lft[static_cast<size_t>(node_) * routing_->num_hosts + p.dst_host];
    return port == topo::kNoPort ? -1 : port;
  }
  const auto hops = routing_->next_hops(node_, static_cast<int>(p.dst_host));
  if (hops.empty()) return -1;
  if (hops.size() == 1) return hops[0];
  const uint32_t h = topo::ecmp_hash_keyed(ecmp_key_, static_cast<uint32_t>(node_), p.src_host,
                                           p.dst_host, p.udp_sport);
  return hops[h % static_cast<uint32_t>(hops.size())];
}

void Switch::prefetch_arrival(uint32_t arrival_hint, uint16_t in_port, int depth) const {
  const uint32_t dst = arrival_hint & 0xffffff;
  const auto prio = static_cast<uint8_t>(arrival_hint >> 24);
  if (dst >= static_cast<uint32_t>(routing_->num_hosts)) return;
  const size_t entry = static_cast<size_t>(node_) * routing_->num_hosts + dst;
  if (depth == 0) {
    if (!routing_->lft.empty()) {
      __builtin_prefetch(&routing_->lft[entry]);
    } else {
      __builtin_prefetch(&routing_->set_of[entry]);
    }
    __builtin_prefetch(ports_.data());
    if (!trust_dscp_) buffer_.prefetch_ingress(in_port, prio);
    return;
  }
  if (adaptive_ || trust_dscp_ || remap_vl_) return;  // its port or class is decided later
  int out = -1;
  if (!routing_->lft.empty()) {
    out = routing_->lft[entry] == topo::kNoPort ? -1 : routing_->lft[entry];
  } else {
    const auto hops = routing_->next_hops(node_, static_cast<int>(dst));
    if (hops.size() == 1) out = hops[0];  // several: the choice needs the packet's flow
  }
  if (out < 0) return;
  ports_[out]->prefetch_enqueue(prio);
  buffer_.prefetch_egress(static_cast<uint16_t>(out), prio);
}

void Switch::drop(PacketHandle h, uint64_t& counter) {
  ++counter;
  ctx_.pool.release(h);
}

void Switch::receive(PacketHandle h, uint16_t in_port) {
  ++stats_.received;
  Packet& p = ctx_.pool[h];
  if (p.type == PacketType::Pause) {  // a PFC frame from the peer on this port: hold our egress
    ++stats_.pause_frames_received;
    if (in_port < pfc_gates_.size() && pfc_gates_[in_port] != nullptr) {
      pfc_gates_[in_port]->on_pause_frame(p.priority, p.pause_quanta());
    }
    ctx_.pool.release(h);
    return;
  }
  if (p.type == PacketType::FlowControl) {  // InfiniBand credit for our egress on this port
    ++stats_.flow_control_received;
    if (in_port < credit_gates_.size() && credit_gates_[in_port] != nullptr) {
      credit_gates_[in_port]->on_flow_control(p.priority, p.credit_limit());
    }
    ctx_.pool.release(h);
    return;
  }
  if (p.type == PacketType::Sharp) {  // addressed to this switch's aggregation node
    if (aggregation_ == nullptr) return drop(h, stats_.no_route_drops);
    return aggregation_->receive(h, in_port);
  }
  // Ingress classification: the class picks the egress queue, the buffer accounting and the
  // PFC pause class, so it happens before admission.
  if (trust_dscp_) p.priority = dscp_map_[p.dscp];
  // IP hop limit: decremented per switch so that a routing loop drains (RFC 791 TTL).
  if (p.ttl <= 1) return drop(h, stats_.ttl_drops);
  --p.ttl;
  int out = route(p);
  if (out < 0) return drop(h, stats_.no_route_drops);
  if (adaptive_ && p.route_id == 0) out = adaptive_route(p, out);
  if (p.route_id != 0) ++p.route_hop;
  if (retag_valleys_ && port_goes_up_[in_port] && port_goes_up_[out] &&
      valley_next_[p.priority] != p.priority) {
    p.priority = valley_next_[p.priority];  // Tagger: off the up*/down* path
    ++stats_.valley_retags;
  }
  EgressPort& egress = *ports_[out];
  const uint8_t in_class = p.priority;  // its ingress buffer (and credits) stay with this class
  if (remap_vl_) p.priority = sl_to_vl_[static_cast<size_t>(out) * kSlToVlEntries + p.sl];
  const Admission a =
      buffer_.admit(in_port, in_class, static_cast<uint16_t>(out), p.priority, p.wire_bytes);
  if (a == Admission::TailDrop) {
    egress.count_tail_drop(p.priority);
    return drop(h, stats_.tail_drops);
  }
  if (a == Admission::HeadroomExhausted) {
    exhaustions_.push_back({ctx_.sim.now(), in_port, in_class});
    return drop(h, stats_.lossless_drops);
  }
  const sim::Time now = ctx_.sim.now();
  // Cut-through into a faster egress would underrun: wait for the last bit (ser_in later).
  const bool underrun =
      params_.forwarding == Forwarding::CutThrough && egress.rate_bps() > port_rates_[in_port];
  egress.enqueue(h, p, in_port, underrun ? now + p.ser_in : now, in_class);
}

void Switch::on_dequeue(EgressPort& port, const QueuedPacket& q) {
  if (int_stamping_) {
    const Packet& p = ctx_.pool[q.handle];
    if (p.int_slot != 0) {
      ctx_.pool.telemetry(p.int_slot)
          .push(IntHop{ctx_.sim.now(), port.sent_wire_bytes() / int_byte_unit_ * int_byte_unit_,
                       port.total_queue_bytes() / int_queue_unit_ * int_queue_unit_,
                       port.rate_bps()});
    }
  }
  if (q.in_port == kAggregationInPort) return;  // the aggregation node's own chunk memory
  buffer_.release(q.in_port, q.in_priority, port.index(), q.priority, q.wire_bytes);
}

}  // namespace models
