#include "scenarios/run/infiniband_results.hpp"

#include <algorithm>
#include <stdexcept>

#include "scenarios/builder/build_nvlink.hpp"
#include "scenarios/outputs/percentiles.hpp"
#include "scenarios/run/ib_cc_results.hpp"

namespace scen {

uint64_t flow_control_consumed(const models::Network& net) {
  uint64_t n = 0;
  for (const auto& sw : net.switches) n += sw->stats().flow_control_received;
  for (const auto& nic : net.nics) n += nic->stats().flow_control_received;
  return n;
}

namespace {

bool on_nvlink(const models::Network& net, int node) {
  return static_cast<size_t>(node) < net.nvlink_node.size() && net.nvlink_node[node];
}

// The node whose port feeds links[i].
int sender_node(const topo::Fabric& f, size_t i) {
  const topo::Link& l = f.topo.links[i / 2];
  return i % 2 == 0 ? l.a : l.b;
}

// One credit-controlled domain's totals: its links' stalls (into out.links) and receivers.
struct CreditTotals {
  std::vector<sim::Time> vl_stalled;
  std::vector<uint64_t> vl_stalls, vl_bytes;
  uint64_t stalls = 0, fc_sent = 0, fc_received = 0, peak_blocks = 0, capacity_blocks = 0;
  sim::Time stalled;
};

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

}  // namespace

void add_nvlink_results(const Scenario& s, models::Network& net, RunOutcome& out, Json& res) {
  if (s.fabric.topo.gpus.empty()) return;
  const CreditTotals t = credit_totals(s, net, out, nvlink_classes(s), true);
  // Lossless by construction (credits): a drop inside a server is a broken invariant.
  uint64_t drops = 0;
  for (const auto& sw : net.switches) {
    if (on_nvlink(net, sw->node())) drops += sw->stats().tail_drops + sw->stats().lossless_drops;
  }
  if (drops > 0) {
    throw std::logic_error("NVLink dropped " + std::to_string(drops) +
                           " packets (credits make "
                           "that impossible)");
  }
  res["nvlink"] = {{"buffer_bytes", t.capacity_blocks * models::kIbBlockBytes},
                   {"peak_buffer_bytes", t.peak_blocks * models::kIbBlockBytes},
                   {"flow_control_packets_sent", t.fc_sent},
                   {"flow_control_packets_received", t.fc_received},
                   {"credit_stalls", t.stalls},
                   {"credit_stalled_ns", ns_number(t.stalled)}};
}

void add_infiniband_results(const Scenario& s, models::Network& net, RunOutcome& out, Json& res) {
  const int vls = s.ib.data_vls;
  const CreditTotals t = credit_totals(s, net, out, vls, false);
  Json per_vl = Json::array();
  for (int vl = 0; vl < vls; ++vl) {
    per_vl.push_back({{"vl", vl},
                      {"wire_bytes", t.vl_bytes[vl]},
                      {"credit_stalls", t.vl_stalls[vl]},
                      {"credit_stalled_ns", ns_number(t.vl_stalled[vl])}});
  }
  res["infiniband"] = {{"data_vls", vls},
                       {"vl_buffer_blocks", t.capacity_blocks},
                       {"peak_vl_buffer_blocks", t.peak_blocks},
                       {"flow_control_packets_sent", t.fc_sent},
                       {"flow_control_packets_received", t.fc_received},
                       {"credit_stalls", t.stalls},
                       {"credit_stalled_ns", ns_number(t.stalled)},
                       {"per_vl", per_vl}};
  add_ib_cc_results(s, net, out, res["infiniband"]);
  out.credit_stalls = net.credit_log;
  std::stable_sort(
      out.credit_stalls.begin(), out.credit_stalls.end(),
      [](const models::CreditStall& a, const models::CreditStall& b) { return a.start < b.start; });
  // Lossless by construction: any drop is a broken invariant, not a result.
  uint64_t drops = 0;
  for (const auto& [kind, n] : res["drops"].items()) drops += n.get<uint64_t>();
  if (drops > 0) {
    throw std::logic_error("InfiniBand fabric dropped " + std::to_string(drops) +
                           " packets: " + res["drops"].dump());
  }
}

}  // namespace scen
