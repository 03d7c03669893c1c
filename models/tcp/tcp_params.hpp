// Kernel TCP/IP between hosts, the baseline RDMA is bought against: the congestion window
// (slow start, then Cubic, DCTCP or Reno), SACK loss recovery and the retransmission timeout,
// and the host CPU work RDMA's NICs do in hardware — system calls, copies between user and
// kernel memory, per-segment protocol processing, interrupts and waking the application.
// Defaults and their sources: docs/references.md, "TCP/IP baseline".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/param_spec_fwd.hpp"
#include "sim/time.hpp"

namespace models {

enum class TcpCc : uint8_t { Cubic, Dctcp, Reno };
inline constexpr TcpCc kTcpCcs[] = {TcpCc::Cubic, TcpCc::Dctcp, TcpCc::Reno};

inline const char* tcp_cc_name(TcpCc cc) {
  switch (cc) {
    case TcpCc::Cubic:
      return "cubic";
    case TcpCc::Dctcp:
      return "dctcp";
    case TcpCc::Reno:
      return "reno";
  }
  return "cubic";
}

// Every congestion control's name, in kTcpCcs order (the loader's choice of fabric.tcp.cc).
inline std::vector<std::string> tcp_cc_names() {
  std::vector<std::string> names;
  for (TcpCc cc : kTcpCcs) names.emplace_back(tcp_cc_name(cc));
  return names;
}

// The congestion control named `name` (false: none is).
inline bool tcp_cc_from_name(const std::string& name, TcpCc& out) {
  for (TcpCc cc : kTcpCcs) {
    if (name == tcp_cc_name(cc)) {
      out = cc;
      return true;
    }
  }
  return false;
}

struct TcpParams {
  // Linux's default congestion control since 2.6.19 (RFC 9438).
  TcpCc cc = TcpCc::Cubic;
  // Payload bytes per segment: a 9000-byte jumbo MTU less IPv4 (20), TCP (20) and the
  // timestamp option (12) — the MTU data-centre TCP runs at (1500-byte frames: 1448).
  int64_t mss = 8948;
  // Per-segment wire overhead beyond the payload: Ethernet header 14 + FCS 4 + IPv4 20 + TCP
  // 20 + timestamps 12 = 70 (framing — preamble and gap — is the NIC's framing_bytes).
  int64_t header_bytes = 70;
  // Initial window in segments (RFC 6928; Linux TCP_INIT_CWND 10).
  int64_t initial_window = 10;
  // Bytes in flight never exceed the receiver's window: Linux's tcp_rmem maximum (6 MiB).
  int64_t receive_window = 6 * 1024 * 1024;
  // In-order segments per ACK. Out-of-order data, a segment that fills a gap, a CE mark
  // (RFC 8257) and a message's last segment are acknowledged at once; a lone segment waits at
  // most `delayed_ack`. Linux acknowledges every second full segment and delays a lone one by
  // up to 40 ms (TCP_DELACK_MIN) outside its quick-ack mode; data-centre hosts run quick-ack
  // (`ip route ... quickack 1`), an ACK per segment, the default here.
  int64_t ack_every = 1;
  sim::Time delayed_ack{40'000'000'000};
  // Segments SACKed above a hole before it counts as lost (RFC 6675 DupThresh).
  int64_t dupack_threshold = 3;
  // Retransmission timeout (RFC 6298: SRTT + 4 RTTVAR) within [min_rto, max_rto]; 1 s before
  // the first RTT sample. Linux: TCP_RTO_MIN 200 ms, TCP_RTO_MAX 120 s.
  sim::Time min_rto{200'000'000'000};
  sim::Time max_rto{120'000'000'000'000};
  sim::Time initial_rto{1'000'000'000'000};
  // Cubic (RFC 9438): C in segments/s^3, beta the multiplicative decrease.
  double cubic_c = 0.4;
  double cubic_beta = 0.7;
  // DCTCP (RFC 8257): alpha's gain g (Linux dctcp_shift_g 4: 1/16), alpha starts at 1.
  double dctcp_g = 1.0 / 16;
  // Host CPU. A host — a GPU server with all its NICs — gives `cores` cores to networking;
  // each connection end is served by one of them (connections dealt round-robin, as RSS and one
  // application thread per socket spread them). A send costs `syscall` then, per segment,
  // `tx_segment_cost` plus its copy from user memory at `copy_rate`; a received segment costs
  // `interrupt_latency` (interrupt moderation) before `rx_segment_cost` plus its copy to user
  // memory; the application, blocked in recv(), runs `wakeup_latency` + `syscall` after the
  // message's last segment. Orders of magnitude from Cai et al., SIGCOMM 2021 (one core receives
  // ~42 Gb/s with TSO, GRO and jumbo frames; the receiver's copy is about half its cycles).
  int cores = 8;
  int64_t copy_rate_bps = 96'000'000'000;  // 12 GB/s per core (memcpy, cache-cold)
  sim::Time syscall{1'000'000};
  sim::Time tx_segment_cost{250'000};
  sim::Time rx_segment_cost{960'000};
  sim::Time interrupt_latency{4'000'000};
  sim::Time wakeup_latency{5'000'000};
};

// The parameters of TcpParams a scenario sets (fabric.tcp; models/tcp/tcp_params.cpp).
const sim::ParamTable<TcpParams>& tcp_param_table();

}  // namespace models
