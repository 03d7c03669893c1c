#include "scenarios/run/headline_results.hpp"

#include <algorithm>
#include <vector>

#include "scenarios/run/percentiles.hpp"

namespace scen {

Json headline_results(const RunOutcome& out, const TransportTotals& transport,
                      const FabricTotals& fabric, const PacketTotals& packets) {
  std::vector<int64_t> fcts, slowdowns_milli;
  int64_t payload = 0;
  sim::Time first_start = sim::Time::max(), last_finish;
  size_t completed = 0;
  for (const auto& r : out.flows) {
    if (!r.completed) continue;
    ++completed;
    fcts.push_back(r.fct.ps);
    if (r.ideal_fct.ps > 0) slowdowns_milli.push_back(r.fct.ps * 1000 / r.ideal_fct.ps);
    payload += r.bytes;
    first_start = std::min(first_start, r.start);
    last_finish = std::max(last_finish, r.finish);
  }
  Json res;
  res["stop_reason"] = sim::to_string(out.reason);
  res["end_time_ns"] = ns_number(out.end_time);
  res["end_time_ps"] = out.end_time.ps;  // exact
  res["flows"] = out.flows.size();
  res["flows_completed"] = completed;
  res["fct_p50_ns"] = ns_number(sim::Time(nearest_rank(fcts, 50)));
  res["fct_p99_ns"] = ns_number(sim::Time(nearest_rank(fcts, 99)));
  res["fct_max_ns"] = ns_number(sim::Time(nearest_rank(fcts, 100)));
  res["slowdown_p50"] = milli_number(nearest_rank(slowdowns_milli, 50));
  res["slowdown_p99"] = milli_number(nearest_rank(slowdowns_milli, 99));
  res["payload_bytes_delivered"] = payload;
  if (completed > 0 && last_finish > first_start) {
    // Aggregate goodput: payload of completed flows over the span from first start to last
    // finish, in Gb/s with three decimals (integer arithmetic).
    const __int128 milli_gbps =
        static_cast<__int128>(payload) * 8 * 1000 * 1000 / (last_finish - first_start).ps;
    res["goodput_Gbps"] = milli_number(static_cast<int64_t>(milli_gbps));
  }
  res["data_packets_sent"] = packets.data_sent;
  res["retransmitted_packets"] = transport.retransmitted;
  res["timeouts"] = transport.timeouts;
  res["nacks"] = transport.nacks;
  res["duplicate_packets"] = transport.duplicates;
  res["drops"] = {{"tail", fabric.tail_drops},
                  {"ttl", fabric.ttl_drops},
                  {"no_route", fabric.no_route},
                  {"link_loss", fabric.lost},
                  {"lossless", fabric.lossless_drops}};
  return res;
}

}  // namespace scen
