// ib_cc.csv: InfiniBand congestion control at the senders of the sampled flows, one row per
// change of a QP's congestion control table index (as rates.csv logs DCQCN's rate changes).
#include <sstream>

#include "scenarios/run/percentiles.hpp"
#include "scenarios/outputs/write_outputs.hpp"

namespace scen {

std::string ib_cc_csv(const RunOutcome& out) {
  std::ostringstream o;
  o << "time_ns,flow,qp,ccti,ipd_ns,rate_Gbps\n";
  for (const auto& c : out.ccti_changes) {
    o << format_ns(c.time) << ',' << c.flow << ',' << c.qp << ',' << c.ccti << ','
      << format_ns(c.ipd) << ',' << format_milli(c.rate_bps / 1'000'000) << '\n';
  }
  return o.str();
}

}  // namespace scen
