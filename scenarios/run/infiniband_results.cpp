#include "scenarios/run/infiniband_results.hpp"

#include <algorithm>
#include <stdexcept>
#include <tuple>

#include "scenarios/run/credit_results.hpp"
#include "scenarios/run/ib_cc_results.hpp"
#include "scenarios/run/percentiles.hpp"

namespace scen {

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
  // By (start, node, port, VL): a split run's partitions append one after another.
  std::stable_sort(out.credit_stalls.begin(), out.credit_stalls.end(),
                   [](const models::CreditStall& a, const models::CreditStall& b) {
                     return std::tie(a.start, a.node, a.port, a.vl) <
                            std::tie(b.start, b.node, b.port, b.vl);
                   });
  // Lossless by construction: any drop is a broken invariant, not a result.
  uint64_t drops = 0;
  for (const auto& [kind, n] : res["drops"].items()) drops += n.get<uint64_t>();
  if (drops > 0) {
    throw std::logic_error("InfiniBand fabric dropped " + std::to_string(drops) +
                           " packets: " + res["drops"].dump());
  }
}

}  // namespace scen
