// The congestion window of one TCP connection, in bytes: slow start, then Cubic (RFC 9438),
// DCTCP (RFC 8257, with Reno's growth, as Linux's tcp_dctcp) or Reno (RFC 5681 with
// appropriate byte counting, RFC 3465). Pure arithmetic on the events a sender sees — bytes
// newly acknowledged, a loss, a timeout, an ECN echo — so that tests check it against the
// formulas directly.
#pragma once

#include <cstdint>

#include "models/tcp/tcp_params.hpp"
#include "sim/time.hpp"

namespace models {

// x^(1/3) for x >= 0 by Newton's iteration from above (exact IEEE arithmetic only, so results
// are the same on every platform).
double cube_root(double x);

class TcpWindow {
 public:
  void reset(const TcpParams& p);

  int64_t cwnd() const { return cwnd_; }
  int64_t ssthresh() const { return ssthresh_; }
  bool in_slow_start() const { return cwnd_ < ssthresh_; }
  double dctcp_alpha() const { return alpha_; }
  // Cubic's state: W_max (segments) and K (seconds) of the current epoch.
  double cubic_w_max() const { return w_max_; }
  double cubic_k() const { return k_; }

  // `bytes` newly acknowledged, outside loss recovery. Cubic's curve runs on `now` and the
  // smoothed RTT.
  void on_ack(int64_t bytes, sim::Time now, sim::Time srtt);
  // A loss found by SACK (fast retransmit) or, for Reno and Cubic, an ECN echo: one
  // multiplicative decrease (Cubic beta, Reno and DCTCP 1/2).
  void on_loss();
  // The retransmission timeout: ssthresh from the flight, the window down to one segment.
  void on_timeout(int64_t flight_bytes);
  // DCTCP: one window of data acknowledged, `marked` of its `acked` bytes with ECE: alpha
  // follows; `reduce` (an ECE was seen in it) cuts the window by alpha / 2.
  void dctcp_window_end(int64_t acked, int64_t marked);
  void dctcp_reduce();
  // Idle longer than the RTO (Linux tcp_slow_start_after_idle): restart from the initial
  // window (RFC 5681 §4.1).
  void restart_after_idle();

 private:
  void cubic_ack(int64_t bytes, sim::Time now, sim::Time srtt);
  void reno_ack(int64_t bytes);

  TcpParams p_;
  int64_t cwnd_ = 0;
  int64_t ssthresh_ = INT64_MAX;
  int64_t reno_acked_ = 0;  // bytes acknowledged toward the next segment of growth
  // Cubic (segments, seconds).
  double w_max_ = 0;
  double k_ = 0;
  double w_est_ = 0;
  bool epoch_started_ = false;
  sim::Time epoch_start_;
  // DCTCP.
  double alpha_ = 1.0;
};

}  // namespace models
