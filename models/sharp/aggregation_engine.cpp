#include "models/sharp/aggregation_engine.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "models/switch.hpp"
#include "sim/event_arg.hpp"
#include "sim/units.hpp"

namespace models {

AggregationEngine::AggregationEngine(Context& ctx, Switch& sw)
    : EventHandler(ctx.sim), ctx_(ctx), switch_(sw) {}

void AggregationEngine::add_tree(uint32_t tree, std::vector<int> child_ports, int parent_port,
                                 uint8_t vl, uint8_t sl, const SharpChunks* chunks,
                                 const SharpParams& params) {
  Tree t;
  t.id = tree;
  t.child_of_port.assign(switch_.port_count(), -1);
  for (size_t c = 0; c < child_ports.size(); ++c) {
    t.child_of_port[static_cast<size_t>(child_ports[c])] = static_cast<int>(c);
  }
  t.child_ports = std::move(child_ports);
  t.parent_port = parent_port;
  t.vl = vl;
  t.sl = sl;
  t.chunks = chunks;
  t.params = params;
  t.slots.resize(static_cast<size_t>(params.max_outstanding_chunks));
  if (local_of_tree_.size() <= tree) local_of_tree_.resize(tree + 1, -1);
  local_of_tree_[tree] = static_cast<int>(trees_.size());
  trees_.push_back(std::move(t));
}

void AggregationEngine::set_heads(uint32_t tree, std::vector<int> head_ports) {
  Tree& t = trees_[static_cast<size_t>(local_of_tree_[tree])];
  if (t.parent_port >= 0) {
    throw std::logic_error("NVLS-tree: heads on " + switch_.name() + ", not its tree's root");
  }
  t.head_ports = std::move(head_ports);
}

void AggregationEngine::start(uint32_t tree) {
  Tree& t = trees_[static_cast<size_t>(local_of_tree_[tree])];
  const size_t packets = static_cast<size_t>(t.chunks->packets(0));
  for (Slot& s : t.slots) {
    s.chunk = -1;
    s.multicast_in = 0;
    s.result_in = false;
    s.arrived.assign(t.child_ports.size(), 0);
    s.hits.assign(packets, 0);
    s.ready.assign(packets, sim::Time(0));
  }
  t.busy_until = ctx_.sim.now();
  t.reduce_chunk = t.down_chunk = 0;
  t.reduce_packet = t.down_packet = 0;
  t.replicate_next = 0;
}

void AggregationEngine::reset_slot(Slot& s) {
  s.chunk = -1;
  s.multicast_in = 0;
  s.result_in = false;
  std::fill(s.arrived.begin(), s.arrived.end(), 0u);
  std::fill(s.hits.begin(), s.hits.end(), 0u);
  std::fill(s.ready.begin(), s.ready.end(), sim::Time(0));
}

// The packet's blocks stay in its input buffer (and its credits with the sender) while held;
// the switch's MMU accounts them against that port both ways (the aggregation node has no
// egress queue of its own in the MMU).
void AggregationEngine::hold(uint16_t in_port, uint8_t vl, uint32_t wire) {
  if (switch_.buffer().admit(in_port, in_port, vl, wire) != Admission::Admitted) {
    throw std::logic_error("SHARP: " + switch_.name() + " port " + std::to_string(in_port) +
                           " refused a packet of its aggregation node at " +
                           sim::format_time(ctx_.sim.now()));
  }
}

void AggregationEngine::unhold(uint16_t in_port, uint8_t vl, uint32_t wire) {
  switch_.buffer().release(in_port, in_port, vl, wire);
}

void AggregationEngine::receive(PacketHandle h, uint16_t in_port) {
  const Packet& p = ctx_.pool[h];
  ++stats_.packets_received;
  const uint32_t tree = p.sharp_tree();
  if (tree >= local_of_tree_.size() || local_of_tree_[tree] < 0) {
    throw std::logic_error("SHARP: " + switch_.name() + " is not in aggregation tree " +
                           std::to_string(tree));
  }
  const auto local = static_cast<uint32_t>(local_of_tree_[tree]);
  Tree& t = trees_[local];
  if ((p.flags & kFlagSharpMulticast) != 0) {
    receive_multicast(t, local, h, in_port);
  } else if ((p.flags & kFlagSharpResult) != 0) {
    receive_down(t, local, h, in_port);
  } else {
    receive_up(t, local, h, in_port);
  }
}

void AggregationEngine::receive_up(Tree& t, uint32_t local, PacketHandle h, uint16_t in_port) {
  const Packet& p = ctx_.pool[h];
  const int child = t.child_of_port[in_port];
  if (child < 0) {
    throw std::logic_error("SHARP: " + switch_.name() + " got a contribution on port " +
                           std::to_string(in_port) + ", not a child of tree " +
                           std::to_string(t.id));
  }
  hold(in_port, p.priority, p.wire_bytes);
  const int64_t j = p.sharp_chunk();
  Slot& s = t.slots[static_cast<size_t>(j % t.params.max_outstanding_chunks)];
  if (s.chunk != j) {
    if (s.chunk >= 0) {
      throw std::logic_error("SHARP: chunk " + std::to_string(j) + " reached " + switch_.name() +
                             " while its slot still holds chunk " + std::to_string(s.chunk));
    }
    s.chunk = j;
  }
  const uint32_t n = s.arrived[static_cast<size_t>(child)]++;
  // Fully in at its last bit plus the switch's latency (the link hands it over at the first
  // bit plus that latency under cut-through).
  const sim::Time in = switch_.params().forwarding == Forwarding::CutThrough
                           ? ctx_.sim.now() + p.ser_in
                           : ctx_.sim.now();
  s.ready[n] = std::max(s.ready[n], in);
  ctx_.pool.release(h);
  if (++s.hits[n] < t.child_ports.size()) return;
  // Packet n of every child is in: the reduction unit takes it after what it already has.
  // A chunk's first packet also pays the unit's per-chunk cost.
  const sim::Time begin =
      std::max(s.ready[n], t.busy_until) + (n == 0 ? t.params.chunk_cost : sim::Time{});
  t.busy_until =
      t.params.reduction_rate_bps > 0
          ? begin + sim::serialization_time(t.chunks->payload(j, n), t.params.reduction_rate_bps)
          : begin;
  ctx_.sim.at(t.busy_until, this, kReduced, local);
}

void AggregationEngine::receive_down(Tree& t, uint32_t local, PacketHandle h, uint16_t in_port) {
  const Packet& p = ctx_.pool[h];
  if (static_cast<int>(in_port) != t.parent_port) {
    throw std::logic_error("SHARP: " + switch_.name() + " got a result on port " +
                           std::to_string(in_port) + ", not its parent's in tree " +
                           std::to_string(t.id));
  }
  hold(in_port, p.priority, p.wire_bytes);
  const sim::Time in =
      switch_.params().forwarding == Forwarding::CutThrough ? p.ser_in : sim::Time(0);
  ctx_.pool.release(h);
  ctx_.sim.after(in, this, kDownArrived, local);
}

// The head's global result of a chunk, going up for the multicast: held in its input buffer
// until fully in (as a result from a parent is), then replicated in chunk order.
void AggregationEngine::receive_multicast(Tree& t, uint32_t local, PacketHandle h,
                                          uint16_t in_port) {
  const Packet& p = ctx_.pool[h];
  const int64_t j = p.sharp_chunk();
  const Slot& s = t.slots[static_cast<size_t>(j % t.params.max_outstanding_chunks)];
  if (t.head_ports.empty() ||
      static_cast<int>(in_port) != t.head_ports[static_cast<size_t>(j) % t.head_ports.size()] ||
      s.chunk != j) {
    throw std::logic_error("NVLS-tree: " + switch_.name() + " got a result of chunk " +
                           std::to_string(j) + " on port " + std::to_string(in_port) +
                           ", not from that chunk's head, or for a chunk it does not hold");
  }
  hold(in_port, p.priority, p.wire_bytes);
  const sim::Time in =
      switch_.params().forwarding == Forwarding::CutThrough ? p.ser_in : sim::Time(0);
  ctx_.pool.release(h);
  ctx_.sim.after(in, this, kMulticastIn, sim::pack_arg(static_cast<uint32_t>(j), local));
}

void AggregationEngine::replicate_ready(Tree& t, uint32_t local) {
  while (t.replicate_next < t.chunks->chunks()) {
    Slot& s = t.slots[static_cast<size_t>(t.replicate_next % t.params.max_outstanding_chunks)];
    if (s.chunk != t.replicate_next || !s.result_in) return;
    s.result_in = false;  // replicated once
    ctx_.sim.after(t.params.latency, this, kReplicate,
                   sim::pack_arg(static_cast<uint32_t>(t.replicate_next), local));
    ++t.replicate_next;
  }
}

void AggregationEngine::send_chunk(const Tree& t, int64_t chunk, int port, uint8_t flags) {
  EgressPort& out = switch_.port(static_cast<size_t>(port));
  const SharpChunks& c = *t.chunks;
  for (uint32_t n = 0; n < c.packets(chunk); ++n) {
    const PacketHandle h = ctx_.pool.alloc();
    Packet& p = ctx_.pool[h];
    p.type = PacketType::Sharp;
    p.set_sharp(static_cast<uint32_t>(t.id), static_cast<uint32_t>(chunk));
    p.payload_bytes = c.payload(chunk, n);
    p.wire_bytes = c.wire(chunk, n);
    p.priority = t.vl;
    p.sl = t.sl;
    p.flags = flags;
    p.sent_at = ctx_.sim.now();
    out.enqueue(h, p, kAggregationInPort, ctx_.sim.now());
    ++stats_.packets_sent;
  }
}

void AggregationEngine::on_event(uint32_t kind, uint64_t arg) {
  const uint32_t local = sim::arg_low(arg);
  Tree& t = trees_[local];
  const SharpChunks& c = *t.chunks;
  switch (kind) {
    case kReduced: {  // packet (reduce_chunk, reduce_packet) of every child is consumed
      const int64_t j = t.reduce_chunk;
      const uint32_t n = t.reduce_packet;
      for (int port : t.child_ports) unhold(static_cast<uint16_t>(port), t.vl, c.wire(j, n));
      if (++t.reduce_packet < c.packets(j)) return;
      t.reduce_packet = 0;
      ++t.reduce_chunk;
      ++stats_.chunks_reduced;
      const Kind next = t.parent_port >= 0 ? kEmitUp : t.head_ports.empty() ? kReplicate : kToHead;
      ctx_.sim.after(t.params.latency, this, next, sim::pack_arg(static_cast<uint32_t>(j), local));
      return;
    }
    case kEmitUp:
      send_chunk(t, static_cast<int64_t>(sim::arg_high(arg)), t.parent_port, 0);
      return;
    case kToHead: {  // the NVSwitch-reduced chunk to its head GPU (multimem.ld_reduce)
      const auto j = static_cast<int64_t>(sim::arg_high(arg));
      send_chunk(t, j, t.head_ports[static_cast<size_t>(j) % t.head_ports.size()],
                 kFlagSharpResult | kFlagSharpToHead);
      return;
    }
    case kMulticastIn: {  // a packet of the head's result of chunk j is fully in
      const auto j = static_cast<int64_t>(sim::arg_high(arg));
      Slot& s = t.slots[static_cast<size_t>(j % t.params.max_outstanding_chunks)];
      const uint32_t n = s.multicast_in++;
      unhold(static_cast<uint16_t>(t.head_ports[static_cast<size_t>(j) % t.head_ports.size()]),
             t.vl, c.wire(j, n));
      if (s.multicast_in < c.packets(j)) return;
      s.result_in = true;
      replicate_ready(t, local);
      return;
    }
    case kDownArrived: {  // result packet (down_chunk, down_packet) is fully in
      const int64_t j = t.down_chunk;
      const uint32_t n = t.down_packet;
      unhold(static_cast<uint16_t>(t.parent_port), t.vl, c.wire(j, n));
      if (++t.down_packet < c.packets(j)) return;
      t.down_packet = 0;
      ++t.down_chunk;
      ctx_.sim.after(t.params.latency, this, kReplicate,
                     sim::pack_arg(static_cast<uint32_t>(j), local));
      return;
    }
    case kReplicate: {  // the result of chunk j goes to every child; its slot is free again
      const auto j = static_cast<int64_t>(sim::arg_high(arg));
      for (int port : t.child_ports) send_chunk(t, j, port, kFlagSharpResult);
      reset_slot(t.slots[static_cast<size_t>(j % t.params.max_outstanding_chunks)]);
      return;
    }
  }
}

}  // namespace models
