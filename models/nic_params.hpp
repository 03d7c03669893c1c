// NIC and transport parameters, with their defaults and why.
#pragma once

#include <cstdint>

#include "models/host_path.hpp"
#include "sim/param_spec_fwd.hpp"
#include "sim/time.hpp"

namespace models {

struct NicParams {
  // Payload bytes per packet (RoCEv2 and InfiniBand path MTU 4096).
  int64_t mtu = 4096;
  // Per-packet header bytes on the wire: Ethernet 14 + FCS 4 + IPv4 20 + UDP 8 + IB BTH 12 +
  // ICRC 4 = 62 (RoCEv2, InfiniBand Architecture Spec. Annex A17).
  int64_t header_bytes = 62;
  // Ethernet preamble + start delimiter (8) + minimum inter-frame gap (12), IEEE 802.3.
  int64_t framing_bytes = 20;
  // An ACK carries the headers plus the 4-byte AETH.
  int64_t ack_payload_bytes = 4;
  // The receiver acknowledges every `ack_every` in-order packets (and always the last one).
  int64_t ack_every = 1;
  // Retransmission timeout (go-back-N from the oldest unacknowledged packet). Hardware
  // defaults are far longer (4.096 us x 2^14 = 67 ms on ConnectX with timeout=14); simulators
  // use shorter values so that lossy experiments finish.
  sim::Time rto{1'000'000'000};  // 1 ms
  // Bytes in flight per queue pair; 0 = unlimited (RDMA NICs are rate-, not window-based).
  int64_t max_inflight_bytes = 0;
  // The window scales with the QP's rate / line rate (at least one byte: one packet), as
  // HPCC's W = R x T (fabric.cc.window_follows_rate; set by the builder).
  bool window_follows_rate = false;
  // Host-side latency from posting a message to its first packet being ready (doorbell,
  // WQE fetch, DMA read), and from a packet's last bit to its delivery (DMA write).
  sim::Time tx_latency{0};
  sim::Time rx_latency{0};
  // The NIC's send engine (WQE processing, DMA reads over PCIe), which real NICs run below the
  // wire: it produces data packets at most at `max_send_rate_bps` (wire bytes; 0 = line rate)
  // and spends `message_overhead` on each message (after its first packet), during which it
  // produces nothing. Streaming N messages of S bytes then takes about
  // N x (wire(S) / max_send_rate + message_overhead). Both are what `rdmasim calibrate` fits
  // to perftest's bandwidth tables. `send_efficiency` states the cap as a fraction of the
  // NIC's own line rate (what `rdmasim calibrate` writes, so that a fit carries over to NICs
  // of another speed); with both, the lower cap holds.
  int64_t max_send_rate_bps = 0;
  double send_efficiency = 1.0;
  sim::Time message_overhead{0};
  // Small messages. Inline sends: a message of at most
  // `inline_threshold_bytes` of payload travels inside its work request (the CPU writes it,
  // IBV_SEND_INLINE), so the NIC skips the DMA read of the payload over PCIe and its first
  // packet is ready `inline_saving` sooner than tx_latency. 0 = no inline sends. perftest's
  // ib_write_lat inlines up to 220 B by default on ConnectX (its -I option).
  int64_t inline_threshold_bytes = 0;
  sim::Time inline_saving{0};
  // The send engine's message rate: it starts at most `max_message_rate` messages per second
  // (first packets at least 1/rate apart: WQE processing), 0 = no cap. Small messages meet it
  // long before the link: perftest's ib_write_bw on one ConnectX-6 queue pair flattens at
  // ~2.6 M messages/s. Both are what `rdmasim calibrate` fits to small sizes.
  int64_t max_message_rate = 0;
  // Traffic classes and DSCPs (qos_params.hpp). Common RoCE deployments put data in priority 3
  // with DSCP 26 and CNPs in priority 6 with DSCP 48 (NVIDIA's lossless RoCE configuration);
  // ACK/NACK go in a class of their own, ahead of data, with the class-selector DSCP of it.
  int data_priority = 3;  // traffic class of data of flows that give none
  int data_dscp = 26;     // DSCP of data of flows that give none (AF31)
  int ack_priority = 7;   // ACK/NACK class: ahead of data
  // DCQCN congestion notification packets: a class of their own, ahead of data (6 is the
  // common RoCE deployment choice, with DSCP 48).
  int cnp_priority = 6;
  // A CNP is the RoCEv2 headers plus a 16-byte reserved payload (InfiniBand Architecture Spec.
  // Annex A17, "CNP").
  int64_t cnp_payload_bytes = 16;
  int ack_dscp = 56;  // DSCP of ACK/NACK (CS7, which the default table maps to 7)
  int cnp_dscp = 48;  // DSCP of CNPs (CS6)
  int ttl = 64;       // initial IP hop limit
  // Host receive path. Data packets wait in the NIC's receive buffer until the host takes
  // them at `rx_drain_rate_bps` (PCIe / host memory bandwidth, counted on the payload that is
  // DMA-written), and only then reach the transport (ACK, completion). 0 = an infinitely fast
  // host: no buffer, delivery at last bit + rx_latency, the NIC never pauses.
  int64_t rx_drain_rate_bps = 0;
  // Receive buffer size in wire bytes, 0 = unbounded. A packet that does not fit is dropped
  // and counted (nic_rx_overflow_drops); with PFC it fits whenever the buffer holds pfc_xoff
  // plus the link's headroom (pfc_headroom.hpp).
  int64_t rx_buffer_bytes = 0;
  // NIC-sent PFC (receive-buffer pressure, as RDMA NICs do when the host cannot keep up): when
  // a lossless priority's bytes in the receive buffer pass `pfc_xoff_bytes` the NIC pauses
  // that priority upstream, refreshes while above xoff - xon_offset, and resumes there.
  // 0 = the NIC never sends pause frames.
  int64_t pfc_xoff_bytes = 0;
  int64_t pfc_xon_offset_bytes = 8'000;
  // The PCIe path to host or GPU memory (models/host_path.hpp): doorbell, DMA read and write
  // latencies and the PCIe rate, for every NIC endpoint that crosses PCIe (not the NVLink
  // endpoints of GPU servers); GPU servers may set their own (Nic::set_host_path). Off.
  HostPathParams host;
};

// Post to first packet ready for a message (or a queue pair's share of one) of `bytes`: the
// NIC's tx latency and the host path's doorbell and DMA read (host_path.hpp). Inline messages
// (payload written into the WQE with the doorbell) skip the payload's DMA read: tx_latency
// shrinks by inline_saving, and the host path's DMA read round trip is not taken.
inline sim::Time post_latency(const NicParams& p, int64_t bytes, const HostPathParams& host = {}) {
  if (bytes > p.inline_threshold_bytes) {
    return p.tx_latency + host.doorbell_latency + host.dma_read_latency;
  }
  const sim::Time tx =
      p.tx_latency > p.inline_saving ? p.tx_latency - p.inline_saving : sim::Time(0);
  return tx + host.doorbell_latency;
}

// The shortest time between two message starts of the send engine (0 = no cap), rounded up.
inline sim::Time message_gap(const NicParams& p) {
  if (p.max_message_rate <= 0) return sim::Time(0);
  return sim::Time((1'000'000'000'000LL + p.max_message_rate - 1) / p.max_message_rate);
}

// The parameters of NicParams a scenario sets (models/nic_params.cpp).
const sim::ParamTable<NicParams>& nic_param_table();

}  // namespace models
