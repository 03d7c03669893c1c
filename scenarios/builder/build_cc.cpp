#include "scenarios/builder/build_cc.hpp"

#include <algorithm>
#include <vector>

#include "scenarios/builder/build_network.hpp"
#include "scenarios/loader/input_error.hpp"

namespace scen {

sim::Time resolved_base_rtt(const Scenario& s, const models::Network& net) {
  if (s.cc.base_rtt.ps > 0) return s.cc.base_rtt;
  sim::Time longest;
  const models::Transport& tr = *net.transport;
  for (size_t i = 0; i < tr.flow_count(); ++i) {
    const models::QueuePair& q = tr.qp(tr.flow(i).first_qp);
    const auto data = trace_path(s, net, q.src_host, q.dst_host, q.udp_sport, q.route_id);
    const auto ack = trace_path(s, net, q.dst_host, q.src_host, q.udp_sport, 0);
    if (data.empty() || ack.empty()) continue;
    longest = std::max(longest, models::ideal_fct(data, ack, s.nic.mtu, s.nic));
  }
  return longest;
}

void apply_congestion_control(const Scenario& s, models::Network& net) {
  const models::CcAlgorithm a = s.cc.algorithm;
  if (a != models::CcAlgorithm::Hpcc && a != models::CcAlgorithm::Dctcp &&
      a != models::CcAlgorithm::Timely) {
    return;
  }
  models::CcParams p = s.cc;
  p.base_rtt = resolved_base_rtt(s, net);
  if (p.base_rtt.ps <= 0) {
    throw InputError("fabric.cc.base_rtt", "0",
                     "a base RTT: the workload has no flow whose path could measure one");
  }
  int64_t line_rate = 0;
  for (const auto& nic : net.nics) line_rate = std::max(line_rate, nic->port().rate_bps());
  // One BDP: the base RTT at the fastest NIC's line rate (the ns-3 HPCC simulator's maxBdp).
  const int64_t bdp = static_cast<int64_t>(static_cast<__int128>(p.base_rtt.ps) * line_rate /
                                           (8 * static_cast<__int128>(1'000'000'000'000)));
  const int64_t window = p.window_bytes < 0 ? 0 : (p.window_bytes == 0 ? bdp : p.window_bytes);
  switch (a) {
    case models::CcAlgorithm::Hpcc:
      net.ack_cc = std::make_unique<models::Hpcc>(net.ctx, p, *net.transport,
                                                  std::max<int64_t>(1, window > 0 ? window : bdp));
      break;
    case models::CcAlgorithm::Dctcp:
      net.ack_cc = std::make_unique<models::Dctcp>(net.ctx, p, *net.transport);
      break;
    default:
      net.ack_cc = std::make_unique<models::Timely>(net.ctx, p, *net.transport);
      break;
  }
  const bool hpcc = a == models::CcAlgorithm::Hpcc;
  const int64_t extra =
      hpcc ? p.hpcc_int_bytes : (a == models::CcAlgorithm::Timely ? p.timely_timestamp_bytes : 0);
  // Every RDMA NIC; a GPU's NVLink endpoint is not one (GPU memory copies over NVSwitch).
  std::vector<bool> nvlink(net.nics.size(), false);
  for (int n : s.fabric.topo.gpus.nvlink_node) nvlink[s.fabric.host_index[n]] = true;
  for (size_t h = 0; h < net.nics.size(); ++h) {
    if (nvlink[h]) continue;
    net.nics[h]->set_ack_cc(net.ack_cc.get(), /*echo_ce=*/a == models::CcAlgorithm::Dctcp, hpcc,
                            extra, p.classes);
    net.nics[h]->set_window(window, p.window_follows_rate);
  }
  if (hpcc) {
    for (auto& sw : net.switches) {
      sw->set_int_stamping(true, p.hpcc_int_byte_unit, p.hpcc_int_queue_unit);
    }
  }
}

}  // namespace scen
