#include "scenarios/run/packet_conservation.hpp"

#include <stdexcept>
#include <string>

#include "scenarios/run/credit_results.hpp"

namespace scen {

PacketTotals check_packet_conservation(models::Network& net, const FabricTotals& fabric) {
  PacketTotals t;
  for (const auto& nic : net.nics) {
    nic->finish_accounting();
    t.rx_overflow += nic->stats().rx_overflow_drops;
    t.consumed += nic->stats().data_packets_received + nic->stats().acks_received +
                  nic->stats().pause_frames_received + nic->stats().cnps_received;
    t.data_sent += nic->stats().data_packets_sent;
    t.acks += nic->stats().acks_sent + nic->stats().nacks_sent;
  }
  t.created = net.pool.allocated_total();
  t.consumed += fabric.pause_consumed + flow_control_consumed(net);
  if (net.sharp) t.consumed += net.sharp->packets_consumed();  // SHARP nodes and results
  if (net.tcp) {
    // Segments the NICs received that still wait for their host's CPU are in flight, not
    // consumed; the TCP stack's ACKs are control packets.
    t.consumed -= net.tcp->segments_held();
    t.acks += net.tcp->stats().acks_sent;
  }
  uint64_t watchdog_drops = 0;  // the PFC watchdog's drop action (EgressPort::discard)
  for (const models::EgressPort* port : net.link_sender)
    watchdog_drops += port->discarded_packets();
  const uint64_t dropped = fabric.tail_drops + fabric.ttl_drops + fabric.no_route + fabric.lost +
                           fabric.lossless_drops + t.rx_overflow + watchdog_drops;
  t.in_flight = net.pool.live();
  // One packet at a time on every wire: a port that started a second before the first was out
  // would carry more than its rate.
  for (const auto& link : net.links) {
    if (link->stats().overlapping_packets > 0) {
      throw std::logic_error("a sending port put " +
                             std::to_string(link->stats().overlapping_packets) +
                             " packet(s) on its wire before the previous one was out");
    }
  }
  if (t.created != t.consumed + dropped + t.in_flight) {
    throw std::logic_error("packet conservation broken: created " + std::to_string(t.created) +
                           " != consumed " + std::to_string(t.consumed) + " + dropped " +
                           std::to_string(dropped) + " + in flight " + std::to_string(t.in_flight));
  }
  return t;
}

}  // namespace scen
