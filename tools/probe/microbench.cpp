#include "tools/probe/microbench.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

#include "sim/units.hpp"

namespace probe {
namespace {

using Clock = std::chrono::steady_clock;

double us_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::micro>(b - a).count();
}

// Nearest-rank percentile of sorted values.
double percentile(const std::vector<double>& sorted, double p) {
  size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(sorted.size())));
  rank = std::clamp<size_t>(rank, 1, sorted.size());
  return sorted[rank - 1];
}

constexpr uint32_t kModeLatency = 1, kModeBandwidth = 2;

}  // namespace

traces::PerftestInfo TcpEndpoint::info() const {
  traces::PerftestInfo i;
  i.device = "tcp";
  i.link_type = "TCP";
  i.transport = "TCP";
  i.connection = "TCP";
  return i;
}

std::vector<int64_t> parse_sizes(const std::string& text) {
  std::vector<int64_t> out;
  const auto colon = text.find(':');
  if (colon != std::string::npos) {
    const int64_t lo = sim::parse_bytes(text.substr(0, colon));
    const int64_t hi = sim::parse_bytes(text.substr(colon + 1));
    if (lo < 1 || hi < lo) throw std::invalid_argument("--sizes: want LO:HI with 1 <= LO <= HI");
    for (int64_t s = lo; s <= hi; s *= 2) out.push_back(s);
  } else {
    size_t pos = 0;
    while (pos <= text.size()) {
      const auto comma = text.find(',', pos);
      out.push_back(sim::parse_bytes(text.substr(pos, comma - pos)));
      if (comma == std::string::npos) break;
      pos = comma + 1;
    }
  }
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] < 1 || (i > 0 && out[i] <= out[i - 1])) {
      throw std::invalid_argument("--sizes: want increasing sizes of at least 1 byte");
    }
  }
  return out;
}

traces::PerftestTrace run_sweep_client(Endpoint& ep, TcpConnection& ctrl, const SweepOptions& o) {
  if (o.sizes.empty()) throw std::invalid_argument("no sizes to measure");
  ctrl.send_header(MsgKind::Hello, static_cast<uint64_t>(o.sizes.back()),
                   o.latency ? kModeLatency : kModeBandwidth);
  ctrl.recv_header(MsgKind::Hello, kMaxMessageBytes);
  traces::PerftestTrace t;
  t.info = ep.info();
  t.info.verb = o.verb;
  t.info.latency = o.latency;
  const std::string verb = o.verb == "write"  ? "RDMA_Write"
                           : o.verb == "read" ? "RDMA_Read"
                                              : "Send";
  t.info.title = verb + (o.latency ? " Latency Test" : " BW Test");
  for (const int64_t size : o.sizes) {
    const auto bytes = static_cast<size_t>(size);
    ctrl.send_header(MsgKind::Data, bytes, static_cast<uint32_t>(o.iterations));
    if (o.latency) {
      std::vector<double> half_rtt;
      half_rtt.reserve(static_cast<size_t>(o.iterations));
      for (int64_t i = 0; i < o.iterations; ++i) {
        const auto a = Clock::now();
        ep.send_message(bytes);
        ep.recv_message(bytes);
        half_rtt.push_back(us_between(a, Clock::now()) / 2);  // perftest: half the round trip
      }
      std::vector<double> sorted = half_rtt;
      std::sort(sorted.begin(), sorted.end());
      double sum = 0, sq = 0;
      for (double v : half_rtt) sum += v;
      const double avg = sum / static_cast<double>(half_rtt.size());
      for (double v : half_rtt) sq += (v - avg) * (v - avg);
      traces::LatRow r;
      r.bytes = size;
      r.iterations = o.iterations;
      r.t_min_us = sorted.front();
      r.t_max_us = sorted.back();
      r.t_typical_us = sorted[sorted.size() / 2];  // perftest's typical: the median
      r.t_avg_us = avg;
      r.t_stdev_us = std::sqrt(sq / static_cast<double>(half_rtt.size()));
      r.p99_us = percentile(sorted, 99);
      r.p999_us = percentile(sorted, 99.9);
      t.lat.push_back(r);
    } else {
      // Four batches: the average over all, the peak of the best batch (perftest's peak is
      // its best interval too).
      const int64_t batches = o.iterations >= 4 ? 4 : 1;
      const int64_t per_batch = o.iterations / batches;
      double best = 0, total_us = 0;
      for (int64_t b = 0; b < batches; ++b) {
        const auto a = Clock::now();
        ep.send_stream(bytes, per_batch);
        ctrl.recv_header(MsgKind::Ack, kMaxMessageBytes);
        const double us = us_between(a, Clock::now());
        total_us += us;
        best = std::max(best, static_cast<double>(per_batch * size) / (us * 1e-6));
      }
      traces::BwRow r;
      r.bytes = size;
      r.iterations = per_batch * batches;
      r.peak_bytes_per_s = best;
      r.average_bytes_per_s = static_cast<double>(r.iterations * size) / (total_us * 1e-6);
      r.msg_rate_mpps = r.average_bytes_per_s / static_cast<double>(size) / 1e6;
      t.bw.push_back(r);
    }
  }
  ctrl.send_header(MsgKind::Data, 0, 0);  // end of session
  return t;
}

void run_sweep_server(Endpoint& ep, TcpConnection& ctrl, uint64_t max_bytes) {
  const Header hello = ctrl.recv_header(MsgKind::Hello, max_bytes);
  ctrl.send_header(MsgKind::Hello, hello.bytes, hello.tag);
  const bool latency = hello.tag == kModeLatency;
  for (;;) {
    const Header h = ctrl.recv_header(MsgKind::Data, hello.bytes);  // no larger than announced
    if (h.bytes == 0) return;
    const auto bytes = static_cast<size_t>(h.bytes);
    if (latency) {
      for (uint32_t i = 0; i < h.tag; ++i) {
        ep.recv_message(bytes);
        ep.send_message(bytes);
      }
    } else {
      const int64_t batches = h.tag >= 4 ? 4 : 1;
      for (int64_t b = 0; b < batches; ++b) {
        ep.recv_stream(bytes, h.tag / batches);
        ctrl.send_header(MsgKind::Ack, 0);
      }
    }
  }
}

}  // namespace probe
