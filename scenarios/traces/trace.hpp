// Measurements read from the text output of the tools users already run on their clusters:
// perftest (ib_{write,send,read}_{bw,lat}, InfiniBand and RoCE) and nccl-tests
// (all_reduce, all_gather, reduce_scatter, alltoall, broadcast, sendrecv). Values are kept in
// the tools' own units; the accessors convert (perftest's MB/sec is 2^20 bytes per second).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace traces {

// perftest's header block (the "Key : value" pairs above the table) and the test it names.
struct PerftestInfo {
  std::string title;      // "RDMA_Write BW Test"
  std::string verb;       // write | send | read
  bool latency = false;   // a latency test (else bandwidth)
  std::string device;     // "mlx5_0"
  std::string link_type;  // "IB", "Ethernet" (RoCE), or "TCP" (rdmasim-probe's tcp transport)
  std::string transport;  // "IB" (perftest's transport type)
  std::string connection = "RC";
  int64_t mtu = 0;  // bytes, 0 if not stated
  int64_t qps = 1;
};

// One row of a bandwidth table. perftest prints MB/sec meaning 2^20 bytes per second
// (--report_gbits prints Gb/sec; both are converted to bytes per second here).
struct BwRow {
  int64_t bytes = 0;
  int64_t iterations = 0;
  double peak_bytes_per_s = 0;
  double average_bytes_per_s = 0;
  double msg_rate_mpps = 0;
  int line = 0;  // line number in the file
};

// One row of a latency table, microseconds. perftest reports half of the round trip of its
// ping-pong; t_avg, t_stdev and the percentiles are absent in older versions (then 0).
struct LatRow {
  int64_t bytes = 0;
  int64_t iterations = 0;
  double t_min_us = 0, t_max_us = 0, t_typical_us = 0;
  double t_avg_us = 0, t_stdev_us = 0, p99_us = 0, p999_us = 0;
  int line = 0;
};

struct PerftestTrace {
  std::string file;
  PerftestInfo info;
  std::vector<BwRow> bw;    // a bandwidth test's table
  std::vector<LatRow> lat;  // a latency test's table
};

// nccl-tests: one row per size, out-of-place and in-place results side by side.
struct NcclResult {
  double time_us = 0;
  double algbw_gb_s = 0;  // GB/s = 1e9 bytes per second
  double busbw_gb_s = 0;
  int64_t wrong = 0;  // #wrong (or the old "error" column); -1 for N/A
};

struct NcclRow {
  int64_t bytes = 0;
  int64_t count = 0;
  std::string type, redop;
  int64_t root = -1;
  NcclResult out_of_place, in_place;
  int line = 0;
};

// A "#  Rank  0 Group  0 Pid 1000 on node-00 device  0 [0000:00:00] NVIDIA H100 80GB HBM3" line.
struct NcclRank {
  int rank = 0;
  std::string host;
  int device = 0;
  std::string gpu;  // model name as printed
};

struct NcclTrace {
  std::string file;
  std::string collective;  // all_reduce | all_gather | reduce_scatter | alltoall | broadcast |
                           // sendrecv | reduce (from the file's own words or its name)
  std::vector<NcclRank> ranks;
  std::vector<NcclRow> rows;
  double avg_busbw_gb_s = 0;  // the "# Avg bus bandwidth" line, 0 if absent
};

// Parsers: `file` names the source in errors ("file:line: ..." as InputError paths). Both are
// tolerant of the differences between tool versions (optional columns, extra header and
// warning lines, CRLF endings) and refuse a truncated or garbled table with its line number.
PerftestTrace parse_perftest(std::string_view text, const std::string& file);
NcclTrace parse_nccl_tests(std::string_view text, const std::string& file);

enum class TraceKind { Perftest, NcclTests };

struct Trace {
  TraceKind kind = TraceKind::Perftest;
  PerftestTrace perftest;
  NcclTrace nccl;
};

// Reads `path` and parses it with the parser its content calls for (InputError if it is
// neither tool's output or cannot be read).
Trace read_trace_file(const std::string& path);

// A perftest-layout rendering of a trace (the tables `rdmasim-probe` prints and writes).
std::string format_perftest(const PerftestTrace& t);

}  // namespace traces
