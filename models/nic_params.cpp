// The parameters of a NIC a scenario sets (fabric.nic), described once (sim/param_spec.hpp).
#include "models/nic_params.hpp"

#include "sim/param_spec.hpp"

namespace models {

const sim::ParamTable<NicParams>& nic_param_table() {
  using S = NicParams;
  static const sim::ParamTable<S> t = [] {
    sim::ParamTable<S> f = {
        sim::bytes_param<S>("mtu", &S::mtu,
                            "payload bytes per packet (path MTU; IB/RoCE 256..4096)", 64),
        sim::bytes_param<S>(
            "header_bytes", &S::header_bytes,
            "headers per packet: Eth 14 + FCS 4 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4 (RoCEv2)"),
        sim::bytes_param<S>(
            "framing_bytes", &S::framing_bytes,
            "preamble+SFD 8 + inter-frame gap 12 per packet (IEEE 802.3); 0 on InfiniBand"),
        sim::bytes_param<S>("ack_payload_bytes", &S::ack_payload_bytes,
                            "bytes an ACK/NACK adds to the headers (AETH 4)"),
        sim::int_param<S>("ack_every", &S::ack_every,
                          "acknowledge every N in-order packets (and the last)", 1, 1 << 20),
        sim::time_param<S>(
            "rto", &S::rto,
            "retransmission timeout: go-back-N from the oldest unacknowledged packet",
            sim::Time(1)),
        sim::bytes_param<S>("max_inflight", &S::max_inflight_bytes,
                            "bytes in flight per queue pair, 0 = unlimited"),
        sim::time_param<S>("tx_latency", &S::tx_latency,
                           "post to first packet ready (doorbell, WQE fetch, DMA)"),
        sim::time_param<S>("rx_latency", &S::rx_latency,
                           "last bit in to delivery and ACK generation (DMA write)"),
    };
    sim::append_nested(f, host_path_param_table(), &S::host);  // the PCIe path
    const sim::ParamTable<S> rest = {
        sim::rate_or_zero_param<S>(
            "max_send_rate", &S::max_send_rate_bps,
            "send engine's packet rate cap in wire bits/s (DMA, PCIe), 0 = line rate; "
            "rdmasim calibrate fits it"),
        sim::number_param<S>(
            "send_efficiency", &S::send_efficiency,
            "send engine's packet rate cap as a fraction of the NIC's line rate (1 = none; with "
            "max_send_rate the lower holds); rdmasim calibrate writes it",
            0.01, 1.0),
        sim::time_param<S>("message_overhead", &S::message_overhead,
                           "send engine time per message (WQE fetch, DMA setup) in which it "
                           "sends nothing; rdmasim calibrate fits it"),
        sim::bytes_param<S>(
            "inline_threshold", &S::inline_threshold_bytes,
            "messages up to this size are sent inline (payload in the work request, no DMA "
            "read), 0 = none; rdmasim calibrate fits it"),
        sim::time_param<S>("inline_saving", &S::inline_saving,
                           "post latency an inline message saves (the payload's DMA read over "
                           "PCIe); rdmasim calibrate fits it"),
        sim::int_param<S>("max_message_rate", &S::max_message_rate,
                          "messages per second the send engine starts (WQE processing), 0 = no "
                          "cap; rdmasim calibrate fits it",
                          0, 1'000'000'000'000LL),
        sim::int_param<S>("data_priority", &S::data_priority,
                          "traffic class of data of flows that give no class", 0, 7),
        sim::int_param<S>("data_dscp", &S::data_dscp,
                          "DSCP of data of flows that give no class (RoCE: 26, AF31)", 0, 63),
        sim::int_param<S>("ack_priority", &S::ack_priority, "traffic class of ACK/NACK packets", 0,
                          7),
        sim::int_param<S>("ack_dscp", &S::ack_dscp, "DSCP of ACK/NACK packets (CS7)", 0, 63),
        sim::int_param<S>("cnp_priority", &S::cnp_priority,
                          "traffic class of congestion notification packets (CNPs)", 0, 7),
        sim::int_param<S>("cnp_dscp", &S::cnp_dscp, "DSCP of CNPs (RoCE: 48, CS6)", 0, 63),
        sim::int_param<S>("ttl", &S::ttl, "initial IP hop limit; a switch drops a packet at 0", 1,
                          255),
        sim::rate_or_zero_param<S>(
            "rx_drain_rate", &S::rx_drain_rate_bps,
            "host drain rate of the receive buffer (PCIe / host memory bandwidth, on payload); "
            "data reaches the transport when drained; 0 = infinite (no buffer)"),
        sim::bytes_param<S>(
            "rx_buffer", &S::rx_buffer_bytes,
            "receive buffer size (wire bytes); a packet that does not fit is dropped and counted "
            "(nic_rx_overflow_drops); 0 = unbounded"),
        sim::bytes_param<S>(
            "pfc_xoff", &S::pfc_xoff_bytes,
            "receive-buffer bytes of a lossless priority above which the NIC pauses it upstream "
            "(needs fabric.pfc and rx_drain_rate); 0 = the NIC never sends pause"),
        sim::bytes_param<S>(
            "pfc_xon_offset", &S::pfc_xon_offset_bytes,
            "NIC hysteresis: resume when the priority's bytes fall to pfc_xoff - pfc_xon_offset"),
    };
    f.insert(f.end(), rest.begin(), rest.end());
    return f;
  }();
  return t;
}

}  // namespace models
