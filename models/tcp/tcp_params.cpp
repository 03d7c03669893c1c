// The kernel TCP parameters a scenario sets (fabric.tcp), described once (sim/param_spec.hpp).
#include "models/tcp/tcp_params.hpp"

#include "sim/param_spec.hpp"

namespace models {

const sim::ParamTable<TcpParams>& tcp_param_table() {
  using S = TcpParams;
  static const sim::ParamTable<S> t = [] {
    sim::ParamTable<S> f;
    f.push_back(sim::choice_param<S>(
        "cc", &S::cc,
        "cubic | dctcp | reno: the congestion window's growth and decrease (cubic: Linux's "
        "default, RFC 9438; dctcp: RFC 8257, ECN-capable segments; reno: RFC 5681)",
        [] {
          std::vector<std::pair<std::string, int64_t>> c;
          for (TcpCc cc : kTcpCcs) c.emplace_back(tcp_cc_name(cc), static_cast<int64_t>(cc));
          return c;
        }()));
    f.push_back(sim::bytes_param<S>(
        "mss", &S::mss,
        "payload bytes per segment (8948: a 9000-byte MTU less IPv4, TCP and timestamps; "
        "1448 for 1500-byte frames)",
        64));
    f.push_back(sim::bytes_param<S>(
        "header", &S::header_bytes,
        "bytes per segment on the wire beyond its payload, framing apart (Ethernet 18, IPv4 "
        "20, TCP 20, timestamps 12)"));
    f.push_back(sim::int_param<S>("initial_window", &S::initial_window,
                                  "initial congestion window in segments (RFC 6928)", 1, 1000));
    f.push_back(sim::bytes_param<S>(
        "receive_window", &S::receive_window,
        "most bytes in flight a receiver allows (Linux tcp_rmem max, 6 MiB)", 1));
    f.push_back(sim::int_param<S>(
        "ack_every", &S::ack_every,
        "in-order segments per ACK (1: quick-ack; 2: RFC 5681's delayed ACK)", 1, 64));
    f.push_back(sim::time_param<S>(
        "delayed_ack", &S::delayed_ack,
        "longest wait of a lone unacknowledged segment (Linux TCP_DELACK_MIN 40 ms)",
        sim::Time(1)));
    f.push_back(sim::int_param<S>(
        "dupack_threshold", &S::dupack_threshold,
        "segments SACKed above a hole before it is lost (RFC 6675 DupThresh)", 1, 64));
    f.push_back(sim::time_param<S>(
        "min_rto", &S::min_rto,
        "floor of the retransmission timeout's variance term (Linux TCP_RTO_MIN 200 ms)",
        sim::Time(1)));
    f.push_back(sim::time_param<S>("max_rto", &S::max_rto,
                                   "retransmission timeout ceiling (Linux 120 s)", sim::Time(1)));
    f.push_back(sim::time_param<S>(
        "initial_rto", &S::initial_rto,
        "retransmission timeout before the first RTT sample (RFC 6298: 1 s)", sim::Time(1)));
    f.push_back(sim::number_param<S>("cubic_c", &S::cubic_c,
                                     "Cubic's C, segments / s^3 (RFC 9438: 0.4)", 0.001, 1000.0));
    f.push_back(sim::number_param<S>("cubic_beta", &S::cubic_beta,
                                     "Cubic's multiplicative decrease factor (RFC 9438: 0.7)", 0.1,
                                     0.95));
    f.push_back(sim::number_param<S>(
        "dctcp_g", &S::dctcp_g, "DCTCP's alpha gain g (RFC 8257, Linux: 1/16)", 1.0 / 1024, 1.0));
    f.push_back(sim::int_param<S>(
        "cores", &S::cores,
        "CPU cores a host (a GPU server, all its NICs) gives to networking; connections are "
        "dealt to them round-robin",
        1, 1024));
    f.push_back(
        sim::rate_param<S>("copy_rate", &S::copy_rate_bps,
                           "one core's copy bandwidth between user and kernel memory (12 GB/s)"));
    f.push_back(sim::time_param<S>("syscall", &S::syscall, "a send() or recv() system call"));
    f.push_back(sim::time_param<S>(
        "tx_segment_cost", &S::tx_segment_cost,
        "sender CPU per segment beyond its copy (TCP/IP, qdisc, driver; TSO amortised)"));
    f.push_back(sim::time_param<S>(
        "rx_segment_cost", &S::rx_segment_cost,
        "receiver CPU per segment beyond its copy (driver, GRO, TCP/IP, socket)"));
    f.push_back(sim::time_param<S>(
        "interrupt_latency", &S::interrupt_latency,
        "arrival to the start of its processing (interrupt moderation, softirq)"));
    f.push_back(sim::time_param<S>(
        "wakeup_latency", &S::wakeup_latency,
        "a message's last segment processed to the application running (context switch)"));
    return f;
  }();
  return t;
}

}  // namespace models
