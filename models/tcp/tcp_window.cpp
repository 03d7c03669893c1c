#include "models/tcp/tcp_window.hpp"

#include <algorithm>

namespace models {

double cube_root(double x) {
  if (x <= 0) return 0;
  double y = std::max(1.0, x);  // at or above the root: Newton then decreases monotonically
  for (int i = 0; i < 200; ++i) {
    const double next = (2 * y + x / (y * y)) / 3;
    if (next >= y) break;
    y = next;
  }
  return y;
}

void TcpWindow::reset(const TcpParams& p) {
  p_ = p;
  cwnd_ = p.initial_window * p.mss;
  ssthresh_ = INT64_MAX;
  reno_acked_ = 0;
  w_max_ = 0;
  k_ = 0;
  w_est_ = 0;
  epoch_started_ = false;
  alpha_ = 1.0;
}

void TcpWindow::on_ack(int64_t bytes, sim::Time now, sim::Time srtt) {
  if (bytes <= 0) return;
  if (cwnd_ < ssthresh_) {
    // Slow start: the window grows by what is acknowledged (Linux counts segments acked, ABC
    // with no limit), up to ssthresh; the rest of the ACK goes to congestion avoidance.
    const int64_t room = ssthresh_ - cwnd_;
    const int64_t grow = std::min(bytes, room);
    cwnd_ += grow;
    bytes -= grow;
    if (bytes <= 0) return;
  }
  if (p_.cc == TcpCc::Cubic) {
    cubic_ack(bytes, now, srtt);
  } else {
    reno_ack(bytes);
  }
}

void TcpWindow::reno_ack(int64_t bytes) {
  // One segment per window of data acknowledged (RFC 5681 §3.1, RFC 3465).
  reno_acked_ += bytes;
  while (reno_acked_ >= cwnd_) {
    reno_acked_ -= cwnd_;
    cwnd_ += p_.mss;
  }
}

// RFC 9438 §4: W_cubic(t) = C (t - K)^3 + W_max, t from the epoch's start; the window aims at
// W_cubic(t + RTT) (clamped to [cwnd, 1.5 cwnd]), and never below the Reno-friendly estimate
// W_est, which grows by alpha_cubic = 3 (1 - beta) / (1 + beta) segments per window (1 once
// W_est passes W_max).
void TcpWindow::cubic_ack(int64_t bytes, sim::Time now, sim::Time srtt) {
  const double mss = static_cast<double>(p_.mss);
  double cwnd = static_cast<double>(cwnd_) / mss;
  const double acked = static_cast<double>(bytes) / mss;
  if (!epoch_started_) {
    epoch_started_ = true;
    epoch_start_ = now;
    if (cwnd < w_max_) {
      k_ = cube_root((w_max_ - cwnd) / p_.cubic_c);
    } else {
      k_ = 0;
      w_max_ = cwnd;
    }
    w_est_ = cwnd;
  }
  const double t = static_cast<double>((now - epoch_start_).ps) * 1e-12;
  const double rtt = static_cast<double>(srtt.ps) * 1e-12;
  auto w_cubic = [&](double at) {
    const double d = at - k_;
    return p_.cubic_c * d * d * d + w_max_;
  };
  const double alpha_cubic = w_est_ >= w_max_ ? 1.0 : 3 * (1 - p_.cubic_beta) / (1 + p_.cubic_beta);
  w_est_ += alpha_cubic * acked / cwnd;
  if (w_cubic(t) < w_est_) {
    cwnd = std::max(cwnd, w_est_);  // the Reno-friendly region
  } else {
    const double target = std::clamp(w_cubic(t + rtt), cwnd, 1.5 * cwnd);
    cwnd += (target - cwnd) / cwnd * acked;
  }
  cwnd_ = std::max<int64_t>(cwnd_, static_cast<int64_t>(cwnd * mss));
}

void TcpWindow::on_loss() {
  const double mss = static_cast<double>(p_.mss);
  double beta = 0.5;
  if (p_.cc == TcpCc::Cubic) {
    beta = p_.cubic_beta;
    const double cwnd = static_cast<double>(cwnd_) / mss;
    // Fast convergence (RFC 9438 §4.7): a flow that lost before reaching its last W_max
    // releases bandwidth sooner.
    w_max_ = cwnd < w_max_ ? cwnd * (1 + p_.cubic_beta) / 2 : cwnd;
    epoch_started_ = false;
  }
  ssthresh_ =
      std::max<int64_t>(static_cast<int64_t>(static_cast<double>(cwnd_) * beta), 2 * p_.mss);
  cwnd_ = ssthresh_;
  reno_acked_ = 0;
}

void TcpWindow::on_timeout(int64_t flight_bytes) {
  const double beta = p_.cc == TcpCc::Cubic ? p_.cubic_beta : 0.5;
  if (p_.cc == TcpCc::Cubic) {
    w_max_ = static_cast<double>(cwnd_) / static_cast<double>(p_.mss);
    epoch_started_ = false;
  }
  // RFC 5681 (4): ssthresh = max(FlightSize / 2, 2 SMSS) — beta for Cubic (RFC 9438 §4.6).
  ssthresh_ =
      std::max<int64_t>(static_cast<int64_t>(static_cast<double>(flight_bytes) * beta), 2 * p_.mss);
  cwnd_ = p_.mss;  // the loss window (RFC 5681)
  reno_acked_ = 0;
}

void TcpWindow::dctcp_window_end(int64_t acked, int64_t marked) {
  if (acked <= 0) return;
  const double f = static_cast<double>(marked) / static_cast<double>(acked);
  alpha_ = (1 - p_.dctcp_g) * alpha_ + p_.dctcp_g * f;
}

void TcpWindow::dctcp_reduce() {
  // RFC 8257 §3.3: cwnd = cwnd x (1 - alpha / 2), at least two segments (Linux dctcp_ssthresh).
  const auto cut = static_cast<int64_t>(static_cast<double>(cwnd_) * alpha_ / 2);
  ssthresh_ = std::max<int64_t>(cwnd_ - cut, 2 * p_.mss);
  cwnd_ = ssthresh_;
  reno_acked_ = 0;
}

void TcpWindow::restart_after_idle() {
  cwnd_ = std::min(cwnd_, p_.initial_window * p_.mss);
  epoch_started_ = false;
}

}  // namespace models
