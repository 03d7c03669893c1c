#include "models/ib/credit_return.hpp"

#include <algorithm>
#include <stdexcept>

#include "models/ib/credit_gate.hpp"
#include "sim/units.hpp"

namespace models {

IbCreditReturn::IbCreditReturn(Context& ctx, std::vector<EgressPort*> ports, std::string name,
                               const IbParams& params)
    : EventHandler(ctx.sim),
      ctx_(ctx),
      ports_(std::move(ports)),
      name_(std::move(name)),
      vls_(params.data_vls),
      capacity_blocks_(static_cast<uint32_t>(params.vl_buffer_bytes / kIbBlockBytes)),
      min_interval_(params.fc_min_interval),
      period_(params.fc_period),
      slots_(ports_.size() * static_cast<size_t>(params.data_vls)),
      port_state_(ports_.size()),
      gates_(ports_.size(), nullptr),
      flow_control_sent_(ports_.size(), 0) {}

void IbCreditReturn::overflow(uint16_t port, uint8_t vl, uint32_t blocks) const {
  throw std::logic_error("InfiniBand receive buffer overflow at " +
                         sim::format_time(ctx_.sim.now()) + ": " + name_ + " port " +
                         std::to_string(port) + " VL " + std::to_string(vl) + " would hold " +
                         std::to_string(blocks) + " blocks of " + std::to_string(capacity_blocks_) +
                         " (a sender ignored its credits)");
}

void IbCreditReturn::bad_vl(uint16_t port, uint8_t vl) const {
  throw std::logic_error("InfiniBand: a packet on VL " + std::to_string(vl) + " arrived at " +
                         name_ + " port " + std::to_string(port) + ", which has " +
                         std::to_string(vls_) + " data VLs");
}

void IbCreditReturn::on_ingress_bytes(uint16_t in_port, uint8_t vl, int64_t bytes) {
  if (vl >= vls_) bad_vl(in_port, vl);
  Slot& s = slot(in_port, vl);
  const int64_t delta = bytes - s.bytes;
  s.bytes = bytes;
  if (delta > 0) {  // one packet in
    const uint32_t b = ib_blocks(static_cast<uint32_t>(delta));
    if (s.blocks + b > capacity_blocks_) overflow(in_port, vl, s.blocks + b);
    s.blocks += b;
    s.received += b;
    s.peak_blocks = std::max(s.peak_blocks, s.blocks);
  } else if (delta < 0) {  // one packet out: its blocks are free again
    s.blocks -= ib_blocks(static_cast<uint32_t>(-delta));
    changed(in_port, vl);
  }
}

void IbCreditReturn::changed(uint16_t port, uint8_t vl) {
  Slot& s = slot(port, vl);
  const sim::Time now = ctx_.sim.now();
  PortState& ps = port_state_[port];
  ps.active = true;
  if (!ps.periodic_armed && period_.ps > 0) {
    ps.periodic_armed = true;
    ctx_.sim.after(period_, this, kPeriodic, port);
  }
  if (s.deferred) return;  // the scheduled update will carry this change
  if (now >= s.next_allowed) {
    send_update(port, vl);
    s.next_allowed = now + min_interval_;
    return;
  }
  s.deferred = true;
  ctx_.sim.at(s.next_allowed, this, kDeferred, static_cast<uint64_t>(port) * vls_ + vl);
}

void IbCreditReturn::on_event(uint32_t kind, uint64_t arg) {
  if (kind == kDeferred) {
    const auto port = static_cast<uint16_t>(arg / vls_);
    const auto vl = static_cast<uint8_t>(arg % vls_);
    Slot& s = slot(port, vl);
    s.deferred = false;
    send_update(port, vl);
    s.next_allowed = ctx_.sim.now() + min_interval_;
    return;
  }
  // Periodic refresh of every VL's limit, while the port keeps seeing traffic.
  const auto port = static_cast<uint16_t>(arg);
  PortState& ps = port_state_[port];
  if (!ps.active) {
    ps.periodic_armed = false;
    return;
  }
  ps.active = false;
  for (int vl = 0; vl < vls_; ++vl) send_update(port, static_cast<uint8_t>(vl));
  ctx_.sim.after(period_, this, kPeriodic, port);
}

void IbCreditReturn::send_update(uint16_t port, uint8_t vl) {
  const PacketHandle h = ctx_.pool.alloc();
  Packet& p = ctx_.pool[h];
  p.type = PacketType::FlowControl;
  p.priority = vl;
  p.set_flow_control(credit_limit(port, vl),
                     gates_[port] != nullptr ? gates_[port]->blocks_sent(vl) : 0);
  p.wire_bytes = kIbFlowControlWireBytes;
  ++flow_control_sent_[port];
  ports_[port]->send_control(h, p);
}

}  // namespace models
