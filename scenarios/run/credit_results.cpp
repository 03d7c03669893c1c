#include "scenarios/run/credit_results.hpp"

#include <algorithm>

namespace scen {

namespace {

// The node whose port feeds links[i].
int sender_node(const topo::Fabric& f, size_t i) {
  const topo::Link& l = f.topo.links[i / 2];
  return i % 2 == 0 ? l.a : l.b;
}

}  // namespace

uint64_t flow_control_consumed(const models::Network& net) {
  uint64_t n = 0;
  for (const auto& sw : net.switches) n += sw->stats().flow_control_received;
  for (const auto& nic : net.nics) n += nic->stats().flow_control_received;
  return n;
}

bool on_nvlink(const models::Network& net, int node) {
  return static_cast<size_t>(node) < net.nvlink_node.size() && net.nvlink_node[node];
}

CreditTotals credit_totals(const Scenario& s, models::Network& net, RunOutcome& out, int vls,
                           bool nvlink) {
  const topo::Fabric& f = s.fabric;
  CreditTotals t;
  t.vl_stalled.resize(static_cast<size_t>(vls));
  t.vl_stalls.resize(static_cast<size_t>(vls));
  t.vl_bytes.resize(static_cast<size_t>(vls));
  for (size_t i = 0; i < net.link_credit_gate.size(); ++i) {
    if (net.link_credit_gate[i] == nullptr || on_nvlink(net, sender_node(f, i)) != nvlink) continue;
    models::IbCreditGate& g = *net.link_credit_gate[i];
    g.finish_accounting();
    LinkResult& r = out.links[i];
    r.credit_stalled = g.stalled_time();
    for (int vl = 0; vl < vls; ++vl) {
      const models::IbVlStats& st = g.vl_stats(static_cast<uint8_t>(vl));
      r.credit_stalls += st.stalls;
      r.class_credit_stalled[vl] = st.stalled_time;
      t.vl_stalled[vl] += st.stalled_time;
      t.vl_stalls[vl] += st.stalls;
      t.vl_bytes[vl] += st.wire_bytes_sent;
    }
    t.stalls += r.credit_stalls;
    t.stalled += r.credit_stalled;
  }
  for (size_t n = 0; n < net.ib_receivers.size(); ++n) {
    const auto& rx = net.ib_receivers[n];
    if (rx == nullptr || on_nvlink(net, static_cast<int>(n)) != nvlink) continue;
    t.capacity_blocks = rx->capacity_blocks();
    for (size_t p = 0; p < f.ports[n].size(); ++p) {
      t.fc_sent += rx->port_stats(p).flow_control_sent;
      t.peak_blocks = std::max(t.peak_blocks, rx->port_stats(p).peak_blocks);
    }
  }
  for (const auto& sw : net.switches) {
    if (on_nvlink(net, sw->node()) == nvlink) t.fc_received += sw->stats().flow_control_received;
  }
  for (size_t h = 0; h < net.nics.size(); ++h) {
    if (on_nvlink(net, f.host_node[h]) == nvlink) {
      t.fc_received += net.nics[h]->stats().flow_control_received;
    }
  }
  return t;
}

}  // namespace scen
