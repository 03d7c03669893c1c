#include "scenarios/run/nvlink_results.hpp"

#include <stdexcept>
#include <string>

#include "scenarios/builder/build_nvlink.hpp"
#include "scenarios/run/credit_results.hpp"
#include "scenarios/run/percentiles.hpp"

namespace scen {

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

}  // namespace scen
