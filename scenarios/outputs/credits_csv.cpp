// credits.csv: InfiniBand credit stalls, one row at the start and one at the end of each
// interval during which a sending port's VL had a packet waiting for credit (as pfc.csv logs
// pauses and resumes).
#include <algorithm>
#include <sstream>
#include <tuple>

#include "scenarios/outputs/csv_cell.hpp"
#include "scenarios/run/percentiles.hpp"
#include "scenarios/outputs/write_outputs.hpp"

namespace scen {

std::string credits_csv(const RunOutcome& out) {
  struct Row {
    sim::Time time;
    const models::CreditStall* stall;
    bool end;
  };
  std::vector<Row> rows;
  rows.reserve(out.credit_stalls.size() * 2);
  for (const auto& c : out.credit_stalls) {
    rows.push_back({c.start, &c, false});
    rows.push_back({c.end, &c, true});
  }
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return std::tie(a.time, a.end) < std::tie(b.time, b.end);
  });
  std::ostringstream o;
  o << "time_ns,node,port,vl,event,stall_start_ns,stall_ns\n";
  for (const Row& r : rows) {
    const models::CreditStall& c = *r.stall;
    o << format_ns(r.time) << ',' << csv_cell(out.node_names[c.node]) << ',' << c.port << ','
      << static_cast<int>(c.vl) << ',' << (r.end ? "stall_end" : "stall_start") << ','
      << format_ns(c.start) << ',';
    if (r.end) o << format_ns(c.end - c.start);
    o << '\n';
  }
  return o.str();
}

}  // namespace scen
