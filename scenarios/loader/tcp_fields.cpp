// The `fabric.tcp` section: kernel TCP's window, loss recovery and host costs
// (models/tcp/tcp_params.hpp).
#include "models/tcp/tcp_params.hpp"
#include "scenarios/loader/params.hpp"

namespace scen {

using models::TcpParams;

const FieldTable<TcpParams>& tcp_fields() {
  static const FieldTable<TcpParams> t = [] {
    FieldTable<TcpParams> f;
    f.push_back(Field<TcpParams>{
        "cc", "choice",
        "cubic | dctcp | reno: the congestion window's growth and decrease (cubic: Linux's "
        "default, RFC 9438; dctcp: RFC 8257, ECN-capable segments; reno: RFC 5681)",
        [](JsonReader& r, TcpParams& p) {
          const std::string v = r.choice("cc", models::tcp_cc_names(), tcp_cc_name(p.cc));
          models::tcp_cc_from_name(v, p.cc);  // choice() has checked the name
        },
        [](const TcpParams& p) { return Json(tcp_cc_name(p.cc)); }});
    f.push_back(bytes_field<TcpParams>(
        "mss", &TcpParams::mss,
        "payload bytes per segment (8948: a 9000-byte MTU less IPv4, TCP and timestamps; "
        "1448 for 1500-byte frames)",
        64));
    f.push_back(bytes_field<TcpParams>(
        "header", &TcpParams::header_bytes,
        "bytes per segment on the wire beyond its payload, framing apart (Ethernet 18, IPv4 "
        "20, TCP 20, timestamps 12)"));
    f.push_back(int_field<TcpParams>("initial_window", &TcpParams::initial_window,
                                     "initial congestion window in segments (RFC 6928)", 1, 1000));
    f.push_back(bytes_field<TcpParams>(
        "receive_window", &TcpParams::receive_window,
        "most bytes in flight a receiver allows (Linux tcp_rmem max, 6 MiB)", 1));
    f.push_back(int_field<TcpParams>(
        "ack_every", &TcpParams::ack_every,
        "in-order segments per ACK (1: quick-ack; 2: RFC 5681's delayed ACK)", 1, 64));
    f.push_back(time_field<TcpParams>(
        "delayed_ack", &TcpParams::delayed_ack,
        "longest wait of a lone unacknowledged segment (Linux TCP_DELACK_MIN 40 ms)",
        sim::Time(1)));
    f.push_back(int_field<TcpParams>(
        "dupack_threshold", &TcpParams::dupack_threshold,
        "segments SACKed above a hole before it is lost (RFC 6675 DupThresh)", 1, 64));
    f.push_back(time_field<TcpParams>(
        "min_rto", &TcpParams::min_rto,
        "floor of the retransmission timeout's variance term (Linux TCP_RTO_MIN 200 ms)",
        sim::Time(1)));
    f.push_back(time_field<TcpParams>("max_rto", &TcpParams::max_rto,
                                      "retransmission timeout ceiling (Linux 120 s)",
                                      sim::Time(1)));
    f.push_back(time_field<TcpParams>(
        "initial_rto", &TcpParams::initial_rto,
        "retransmission timeout before the first RTT sample (RFC 6298: 1 s)", sim::Time(1)));
    f.push_back(number_field<TcpParams>("cubic_c", &TcpParams::cubic_c,
                                        "Cubic's C, segments / s^3 (RFC 9438: 0.4)", 0.001,
                                        1000.0));
    f.push_back(number_field<TcpParams>("cubic_beta", &TcpParams::cubic_beta,
                                        "Cubic's multiplicative decrease factor (RFC 9438: 0.7)",
                                        0.1, 0.95));
    f.push_back(number_field<TcpParams>("dctcp_g", &TcpParams::dctcp_g,
                                        "DCTCP's alpha gain g (RFC 8257, Linux: 1/16)", 1.0 / 1024,
                                        1.0));
    f.push_back(int_field<TcpParams>(
        "cores", &TcpParams::cores,
        "CPU cores a host (a GPU server, all its NICs) gives to networking; connections are "
        "dealt to them round-robin",
        1, 1024));
    f.push_back(rate_field<TcpParams>(
        "copy_rate", &TcpParams::copy_rate_bps,
        "one core's copy bandwidth between user and kernel memory (12 GB/s)"));
    f.push_back(
        time_field<TcpParams>("syscall", &TcpParams::syscall, "a send() or recv() system call"));
    f.push_back(time_field<TcpParams>(
        "tx_segment_cost", &TcpParams::tx_segment_cost,
        "sender CPU per segment beyond its copy (TCP/IP, qdisc, driver; TSO amortised)"));
    f.push_back(time_field<TcpParams>(
        "rx_segment_cost", &TcpParams::rx_segment_cost,
        "receiver CPU per segment beyond its copy (driver, GRO, TCP/IP, socket)"));
    f.push_back(time_field<TcpParams>(
        "interrupt_latency", &TcpParams::interrupt_latency,
        "arrival to the start of its processing (interrupt moderation, softirq)"));
    f.push_back(time_field<TcpParams>(
        "wakeup_latency", &TcpParams::wakeup_latency,
        "a message's last segment processed to the application running (context switch)"));
    return f;
  }();
  return t;
}

}  // namespace scen
