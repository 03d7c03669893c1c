#include "scenarios/builder/credit_domain.hpp"

#include <memory>

namespace scen {

models::SwitchBufferParams credit_switch_buffer(size_t ports, int classes,
                                                int64_t buffer_per_class) {
  models::SwitchBufferParams b;
  b.buffer_bytes = static_cast<int64_t>(ports) * classes * buffer_per_class;
  b.queue_limit_bytes = 0;
  b.reserve_bytes = 0;
  b.threshold_mode = models::ThresholdMode::Static;
  b.classes = classes;  // more than 8: the switch's ports and buffer get more classes
  return b;
}

void wire_credit_domain(const topo::Fabric& f, models::Network& net,
                        const std::vector<bool>& in_domain, const models::IbParams& p,
                        const std::array<uint8_t, 16>& sl_to_vl,
                        models::PartitionLog<models::CreditStall>* log) {
  const size_t nodes = f.topo.nodes.size();
  net.ib_receivers.resize(nodes);
  for (size_t n = 0; n < nodes; ++n) {
    if (!in_domain[n]) continue;
    net.build_at(static_cast<int>(n));
    std::vector<models::EgressPort*> ports;
    if (f.host_index[n] >= 0) {
      ports.push_back(&net.nics[f.host_index[n]]->port());
    } else {
      models::Switch& sw = *net.switches[net.node_switch[n]];
      for (size_t port = 0; port < sw.port_count(); ++port) ports.push_back(&sw.port(port));
    }
    net.ib_receivers[n] = std::make_unique<models::IbCreditReturn>(net.ctx, std::move(ports),
                                                                   f.topo.nodes[n].name, p);
    if (f.host_index[n] < 0) {
      net.switches[net.node_switch[n]]->buffer().set_listener(net.ib_receivers[n].get());
    }
  }
  // One gate per sending port, starting with the downstream buffer's whole credit.
  net.link_credit_gate.resize(net.links.size(), nullptr);
  for (size_t i = 0; i < net.links.size(); ++i) {
    const topo::Link& l = f.topo.links[i / 2];
    const bool a_side = i % 2 == 0;
    const int from = a_side ? l.a : l.b, to = a_side ? l.b : l.a;
    if (!in_domain[from]) continue;
    const int from_port = a_side ? l.a_port : l.b_port;
    models::EgressPort& sender = *net.link_sender[i];
    net.build_at(from);
    net.ib_gates.push_back(std::make_unique<models::IbCreditGate>(
        net.ctx, sender, from, p.data_vls, net.ib_receivers[to]->capacity_blocks(), log,
        p.credit_log_min_stall));
    models::IbCreditGate* gate = net.ib_gates.back().get();
    sender.set_gate(gate);
    net.link_credit_gate[i] = gate;
    net.ib_receivers[from]->set_gate(static_cast<size_t>(from_port), gate);
    if (f.host_index[from] < 0) {
      net.switches[net.node_switch[from]]->set_credit_gate(static_cast<size_t>(from_port), gate);
    }
  }
  for (size_t h = 0; h < net.nics.size(); ++h) {
    const int node = f.host_node[h];
    if (!in_domain[node]) continue;
    const int link = f.ports[node][0].link;
    const topo::Link& l = f.topo.links[link];
    const size_t dir = l.a == node ? 0 : 1;
    net.nics[h]->enable_ib(sl_to_vl, net.link_credit_gate[2 * link + dir],
                           net.ib_receivers[node].get(), p.data_vls);
  }
}

}  // namespace scen
