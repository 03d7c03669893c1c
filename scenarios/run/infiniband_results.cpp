#include "scenarios/run/infiniband_results.hpp"

#include <algorithm>
#include <stdexcept>

#include "scenarios/outputs/percentiles.hpp"
#include "scenarios/run/ib_cc_results.hpp"

namespace scen {

uint64_t flow_control_consumed(const models::Network& net) {
  uint64_t n = 0;
  for (const auto& sw : net.switches) n += sw->stats().flow_control_received;
  for (const auto& nic : net.nics) n += nic->stats().flow_control_received;
  return n;
}

void add_infiniband_results(const Scenario& s, models::Network& net, RunOutcome& out, Json& res) {
  const int vls = s.ib.data_vls;
  std::vector<sim::Time> vl_stalled(static_cast<size_t>(vls));
  std::vector<uint64_t> vl_stalls(static_cast<size_t>(vls)), vl_bytes(static_cast<size_t>(vls));
  uint64_t stalls = 0;
  sim::Time stalled;
  for (size_t i = 0; i < net.link_credit_gate.size(); ++i) {
    models::IbCreditGate& g = *net.link_credit_gate[i];
    g.finish_accounting();
    LinkResult& r = out.links[i];
    r.credit_stalled = g.stalled_time();
    for (int vl = 0; vl < vls; ++vl) {
      const models::IbVlStats& st = g.vl_stats(static_cast<uint8_t>(vl));
      r.credit_stalls += st.stalls;
      r.class_credit_stalled[vl] = st.stalled_time;
      vl_stalled[vl] += st.stalled_time;
      vl_stalls[vl] += st.stalls;
      vl_bytes[vl] += st.wire_bytes_sent;
    }
    stalls += r.credit_stalls;
    stalled += r.credit_stalled;
  }
  uint64_t fc_sent = 0, peak_blocks = 0;
  for (const auto& rx : net.ib_receivers) {
    const size_t ports = s.fabric.ports[&rx - net.ib_receivers.data()].size();
    for (size_t p = 0; p < ports; ++p) {
      fc_sent += rx->port_stats(p).flow_control_sent;
      peak_blocks = std::max(peak_blocks, rx->port_stats(p).peak_blocks);
    }
  }
  Json per_vl = Json::array();
  for (int vl = 0; vl < vls; ++vl) {
    per_vl.push_back({{"vl", vl},
                      {"wire_bytes", vl_bytes[vl]},
                      {"credit_stalls", vl_stalls[vl]},
                      {"credit_stalled_ns", format_ns(vl_stalled[vl])}});
  }
  const uint32_t capacity =
      net.ib_receivers.empty() ? 0 : net.ib_receivers.front()->capacity_blocks();
  res["infiniband"] = {{"data_vls", vls},
                       {"vl_buffer_blocks", capacity},
                       {"peak_vl_buffer_blocks", peak_blocks},
                       {"flow_control_packets_sent", fc_sent},
                       {"flow_control_packets_received", flow_control_consumed(net)},
                       {"credit_stalls", stalls},
                       {"credit_stalled_ns", format_ns(stalled)},
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
