#include "scenarios/run/ib_cc_results.hpp"

#include <algorithm>
#include <tuple>

#include "scenarios/run/percentiles.hpp"

namespace scen {

void trace_ib_cc(const Scenario& s, models::Network& net) {
  if (!net.ib_cc) return;
  for (uint32_t id : s.timeseries.flows) {
    const models::FlowState& fl = net.transport->flow(id);
    for (uint32_t k = 0; k < fl.qp_count; ++k) net.ib_cc->trace(fl.first_qp + k, &net.ccti_logs);
  }
}

void add_ib_cc_results(const Scenario& s, const models::Network& net, RunOutcome& out, Json& ib) {
  if (!net.ib_cc) return;
  const int vls = s.ib.data_vls;
  std::vector<uint64_t> vl_marks(static_cast<size_t>(vls));
  uint64_t marks = 0, victim_skips = 0;
  for (size_t i = 0; i < net.link_fecn_marker.size(); ++i) {
    const models::FecnMarker* m = net.link_fecn_marker[i];
    if (m == nullptr) continue;
    LinkResult& r = out.links[i];
    for (int vl = 0; vl < vls; ++vl) {
      const auto v = static_cast<uint8_t>(vl);
      r.class_fecn_marks[vl] = m->marks(v);
      r.fecn_marks += m->marks(v);
      vl_marks[vl] += m->marks(v);
      victim_skips += m->victim_skips(v);
    }
    marks += r.fecn_marks;
  }
  for (int vl = 0; vl < vls; ++vl) ib["per_vl"][vl]["fecn_marks"] = vl_marks[vl];
  Json per_nic = Json::array();
  uint64_t fecn_received = 0, becns = 0;
  int64_t max_ccti = 0, min_rate = 0;
  for (size_t h = 0; h < net.nics.size(); ++h) {
    const models::IbCcNicStats& n = net.ib_cc->nic_stats(static_cast<uint32_t>(h));
    fecn_received += n.fecn_received;
    becns += n.becns_received;
    max_ccti = std::max(max_ccti, n.max_ccti);
    if (n.min_rate_bps > 0 && (min_rate == 0 || n.min_rate_bps < min_rate))
      min_rate = n.min_rate_bps;
    if (n.fecn_received == 0 && n.becns_received == 0) continue;
    per_nic.push_back({{"host", out.host_names[h]},
                       {"fecn_received", n.fecn_received},
                       {"becns_sent", net.nics[h]->stats().cnps_sent},
                       {"becns_received", n.becns_received},
                       {"max_ccti", n.max_ccti},
                       {"min_rate_Gbps", milli_number(n.min_rate_bps / 1'000'000)}});
  }
  ib["cc"] = {{"fecn_marks", marks},
              {"victim_packets_unmarked", victim_skips},
              {"fecn_received", fecn_received},
              {"becns_received", becns},
              {"max_ccti", max_ccti},
              {"min_rate_Gbps", milli_number(min_rate / 1'000'000)},
              {"per_nic", per_nic}};
  // By (time, QP): a split run's partitions log one after another.
  out.ccti_changes = net.ccti_log;
  std::stable_sort(
      out.ccti_changes.begin(), out.ccti_changes.end(),
      [](const auto& a, const auto& b) { return std::tie(a.time, a.qp) < std::tie(b.time, b.qp); });
}

}  // namespace scen
