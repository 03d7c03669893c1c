// fct_by_size.csv: FCT slowdown percentiles per flow-size bucket (the form of the HPCC paper's
// figures: slowdown against flow size), for scenarios that ask for it (outputs.fct_by_size).
#include <sstream>

#include "scenarios/outputs/write_outputs.hpp"
#include "scenarios/run/percentiles.hpp"

namespace scen {

std::string fct_by_size_csv(const std::vector<int64_t>& edges, const RunOutcome& out) {
  std::ostringstream o;
  o << "from_bytes,to_bytes,flows,slowdown_p50,slowdown_p95,slowdown_p99,fct_p50_ns,fct_p99_ns\n";
  for (size_t b = 0; b <= edges.size(); ++b) {
    const int64_t from = b == 0 ? 0 : edges[b - 1];
    const int64_t to = b < edges.size() ? edges[b] : -1;  // -1: no upper bound
    std::vector<int64_t> slowdown_milli, fct_ps;
    for (const auto& f : out.flows) {
      if (!f.completed || f.ideal_fct.ps <= 0 || f.bytes <= from || (to >= 0 && f.bytes > to)) {
        continue;
      }
      slowdown_milli.push_back(
          static_cast<int64_t>(static_cast<__int128>(f.fct.ps) * 1000 / f.ideal_fct.ps));
      fct_ps.push_back(f.fct.ps);
    }
    o << from << ',' << (to >= 0 ? std::to_string(to) : std::string()) << ','
      << slowdown_milli.size() << ',' << format_milli(nearest_rank(slowdown_milli, 50)) << ','
      << format_milli(nearest_rank(slowdown_milli, 95)) << ','
      << format_milli(nearest_rank(slowdown_milli, 99)) << ','
      << format_ns(sim::Time(nearest_rank(fct_ps, 50))) << ','
      << format_ns(sim::Time(nearest_rank(fct_ps, 99))) << '\n';
  }
  return o.str();
}

}  // namespace scen
