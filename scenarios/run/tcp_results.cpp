#include "scenarios/run/tcp_results.hpp"

#include "scenarios/run/percentiles.hpp"

namespace scen {

void add_tcp_results(const Scenario& s, const models::Network& net, Json& res) {
  if (!net.tcp) return;
  const models::TcpStats& t = net.tcp->stats();
  res["tcp"] = {{"cc", models::tcp_cc_name(s.tcp.cc)},
                {"connections", t.connections},
                {"segments_sent", t.segments_sent},
                {"segments_retransmitted", t.segments_retransmitted},
                {"fast_recoveries", t.fast_recoveries},
                {"timeouts", t.timeouts},
                {"ecn_reductions", t.ecn_reductions},
                {"acks_sent", t.acks_sent},
                {"out_of_order_segments", t.out_of_order_segments},
                {"max_cwnd_bytes", t.max_cwnd_bytes},
                {"cpu_time_us", milli_number(t.cpu_time.ps / 1000)}};
}

}  // namespace scen
