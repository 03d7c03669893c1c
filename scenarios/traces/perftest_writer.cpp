// perftest's report layout, so that traces measured by rdmasim-probe read like (and parse as)
// perftest's own: the dashed box, the settings, one table, the closing dashes.
#include <cstdio>
#include <string>

#include "scenarios/traces/trace.hpp"

namespace traces {
namespace {

constexpr const char* kDashes =
    "---------------------------------------------------------------------------------------\n";

std::string pair_line(const std::string& k1, const std::string& v1, const std::string& k2,
                      const std::string& v2) {
  char buf[160];
  std::snprintf(buf, sizeof buf, " %-16s: %-13s %-15s: %s\n", k1.c_str(), v1.c_str(), k2.c_str(),
                v2.c_str());
  return buf;
}

}  // namespace

std::string format_perftest(const PerftestTrace& t) {
  std::string o = kDashes;
  o += "                    " + t.info.title + "\n";
  o += pair_line("Dual-port", "OFF", "Device", t.info.device.empty() ? "-" : t.info.device);
  o += pair_line("Number of qps", std::to_string(t.info.qps), "Transport type",
                 t.info.transport.empty() ? "-" : t.info.transport);
  o += pair_line("Connection type", t.info.connection, "Using SRQ", "OFF");
  if (t.info.mtu > 0) o += " Mtu             : " + std::to_string(t.info.mtu) + "[B]\n";
  o += " Link type       : " + (t.info.link_type.empty() ? "-" : t.info.link_type) + "\n";
  o += kDashes;
  char buf[256];
  if (t.info.latency) {
    o += " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    "
         "t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] \n";
    for (const LatRow& r : t.lat) {
      std::snprintf(
          buf, sizeof buf, " %-7lld %-14lld %-14.2f %-12.2f %-18.2f %-14.2f %-15.2f %-22.2f %.2f\n",
          static_cast<long long>(r.bytes), static_cast<long long>(r.iterations), r.t_min_us,
          r.t_max_us, r.t_typical_us, r.t_avg_us, r.t_stdev_us, r.p99_us, r.p999_us);
      o += buf;
    }
  } else {
    o += " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n";
    constexpr double kMiB = 1048576.0;  // perftest's MB is 2^20 bytes
    for (const BwRow& r : t.bw) {
      std::snprintf(buf, sizeof buf, " %-10lld %-14lld %-18.2f %-20.2f %.6f\n",
                    static_cast<long long>(r.bytes), static_cast<long long>(r.iterations),
                    r.peak_bytes_per_s / kMiB, r.average_bytes_per_s / kMiB, r.msg_rate_mpps);
      o += buf;
    }
  }
  o += kDashes;
  return o;
}

}  // namespace traces
