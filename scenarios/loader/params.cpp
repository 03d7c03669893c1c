#include "scenarios/loader/params.hpp"

#include <numeric>

#include "scenarios/loader/collective_section.hpp"
#include "scenarios/loader/exact_decimal.hpp"
#include "scenarios/loader/fabric_section.hpp"
#include "scenarios/loader/gpu_nodes_section.hpp"
#include "scenarios/loader/host_path_section.hpp"
#include "scenarios/loader/qos_section.hpp"
#include "scenarios/loader/scenario.hpp"
#include "scenarios/loader/sharp_section.hpp"
#include "scenarios/loader/watchdog_section.hpp"

namespace scen {
namespace {

constexpr const char* kAlphaExpected =
    "a factor in [1/1024, 64]: a number such as 0.125 (up to 6 decimals) or a fraction such as "
    "\"1/8\"";

// α as written: a JSON number, or a string "0.125" or "1/8"; kept as an exact fraction.
models::Alpha read_alpha(const Json& v, const std::string& path) {
  const std::string shown = v.dump();
  if (!v.is_number() && !v.is_string()) throw InputError(path, shown, kAlphaExpected);
  const std::string text = v.is_string() ? v.get<std::string>() : shown;
  int64_t num = 0, den = 1;
  const auto slash = text.find('/');
  auto whole = [&](const std::string& t, int64_t& out) {
    return !t.empty() && t.size() <= 9 && t.find_first_not_of("0123456789") == std::string::npos &&
           (out = std::stoll(t), true);
  };
  if (slash != std::string::npos) {
    if (!whole(text.substr(0, slash), num) || !whole(text.substr(slash + 1), den) || den == 0) {
      throw InputError(path, shown, kAlphaExpected);
    }
  } else {
    if (peer::scale_decimal(text, 1, 6, num) != peer::Exactness::ok) {
      throw InputError(path, shown, kAlphaExpected);
    }
    den = 1'000'000;
  }
  if (num <= 0 || num * 1024 < den || num > 64 * den) throw InputError(path, shown, kAlphaExpected);
  const int64_t g = std::gcd(num, den);
  return {static_cast<int32_t>(num / g), static_cast<int32_t>(den / g)};
}

Json write_alpha(models::Alpha a) {
  return Json(a.den == 1 ? std::to_string(a.num)
                         : std::to_string(a.num) + "/" + std::to_string(a.den));
}

}  // namespace

using models::NicParams;
using models::SwitchParams;

const FieldTable<SwitchParams>& switch_fields() {
  static const FieldTable<SwitchParams> t = [] {
    FieldTable<SwitchParams> f;
    f.push_back(time_field<SwitchParams>(
        "latency", &SwitchParams::latency,
        "switching latency, first bit in to first bit out, header reception included "
        "(Ethernet 350-600 ns, InfiniBand 100-130 ns per switch)"));
    f.push_back(with_copy(
        Field<SwitchParams>{
            "forwarding", "choice",
            "cut-through | store-and-forward; cut-through waits for the last bit when the egress "
            "is "
            "faster than the ingress",
            [](JsonReader& r, SwitchParams& s) {
              const std::string v =
                  r.choice("forwarding", {"cut-through", "store-and-forward"},
                           s.forwarding == models::Forwarding::CutThrough ? "cut-through"
                                                                          : "store-and-forward");
              s.forwarding = v == "cut-through" ? models::Forwarding::CutThrough
                                                : models::Forwarding::StoreAndForward;
            },
            [](const SwitchParams& s) {
              return Json(s.forwarding == models::Forwarding::CutThrough ? "cut-through"
                                                                         : "store-and-forward");
            }},
        [](const SwitchParams& from, SwitchParams& to) { to.forwarding = from.forwarding; }));
    f.push_back(with_copy(
        Field<SwitchParams>{
            "buffer", "bytes",
            "packet memory of the switch: reserves + PFC headroom pool + shared pool (the rest); a "
            "lossy packet that does not fit is tail-dropped",
            [](JsonReader& r, SwitchParams& s) {
              s.buffer.buffer_bytes = r.bytes("buffer", s.buffer.buffer_bytes, 1);
            },
            [](const SwitchParams& s) { return Json(sim::format_bytes(s.buffer.buffer_bytes)); }},
        [](const SwitchParams& from, SwitchParams& to) {
          to.buffer.buffer_bytes = from.buffer.buffer_bytes;
        }));
    f.push_back(with_copy(
        Field<SwitchParams>{
            "threshold_mode", "choice",
            "static | dynamic: a (port, priority)'s shared-pool threshold is fixed "
            "(fabric.pfc.xoff "
            "for lossless classes; lossy ones only by the pool and queue_limit) or alpha x free "
            "shared pool (Choudhury-Hahne dynamic threshold, Broadcom-style MMU)",
            [](JsonReader& r, SwitchParams& s) {
              const bool dyn = s.buffer.threshold_mode == models::ThresholdMode::Dynamic;
              s.buffer.threshold_mode = r.choice("threshold_mode", {"static", "dynamic"},
                                                 dyn ? "dynamic" : "static") == "dynamic"
                                            ? models::ThresholdMode::Dynamic
                                            : models::ThresholdMode::Static;
            },
            [](const SwitchParams& s) {
              return Json(s.buffer.threshold_mode == models::ThresholdMode::Dynamic ? "dynamic"
                                                                                    : "static");
            }},
        [](const SwitchParams& from, SwitchParams& to) {
          to.buffer.threshold_mode = from.buffer.threshold_mode;
        }));
    f.push_back(bool_field<SwitchParams>(
        "adaptive_routing", &SwitchParams::adaptive_routing,
        "each packet leaves by the least loaded port (queued bytes of its class) among the "
        "equal-cost ports to its destination, instead of the per-flow hash; NICs then accept "
        "packets out of order (on InfiniBand: infiniband.adaptive_routing)"));
    return f;
  }();
  return t;
}

const FieldTable<SwitchParams>& port_fields() {
  static const FieldTable<SwitchParams> t = [] {
    FieldTable<SwitchParams> f;
    f.push_back(with_copy(
        Field<SwitchParams>{
            "queue_limit", "bytes",
            "cap on one egress (port, priority) queue, 0 = only the shared buffer limits it",
            [](JsonReader& r, SwitchParams& s) {
              s.buffer.queue_limit_bytes = r.bytes("queue_limit", s.buffer.queue_limit_bytes, 0);
            },
            [](const SwitchParams& s) {
              return Json(sim::format_bytes(s.buffer.queue_limit_bytes));
            }},
        [](const SwitchParams& from, SwitchParams& to) {
          to.buffer.queue_limit_bytes = from.buffer.queue_limit_bytes;
        }));
    f.push_back(with_copy(
        Field<SwitchParams>{
            "reserve", "bytes",
            "guaranteed bytes per (ingress port, priority), counted before the shared pool; set "
            "aside from the buffer for all 8 priorities unless overridden per priority",
            [](JsonReader& r, SwitchParams& s) {
              s.buffer.reserve_bytes = r.bytes("reserve", s.buffer.reserve_bytes, 0);
            },
            [](const SwitchParams& s) { return Json(sim::format_bytes(s.buffer.reserve_bytes)); }},
        [](const SwitchParams& from, SwitchParams& to) {
          to.buffer.reserve_bytes = from.buffer.reserve_bytes;
        }));
    f.push_back(with_copy(
        Field<SwitchParams>{
            "alpha", "fraction",
            "dynamic threshold factor: a (port, priority) may hold alpha x free shared pool "
            "(1/8 typical; docs/references.md, ns-3 HPCC); 1/1024..64",
            [](JsonReader& r, SwitchParams& s) {
              if (!r.has("alpha")) return;
              const JsonReader v = r.at("alpha");
              s.buffer.alpha = read_alpha(v.json(), v.path());
            },
            [](const SwitchParams& s) { return write_alpha(s.buffer.alpha); }},
        [](const SwitchParams& from, SwitchParams& to) { to.buffer.alpha = from.buffer.alpha; }));
    return f;
  }();
  return t;
}

const FieldTable<NicParams>& nic_fields() {
  static const FieldTable<NicParams> t = [] {
    FieldTable<NicParams> f;
    f.push_back(bytes_field<NicParams>(
        "mtu", &NicParams::mtu, "payload bytes per packet (path MTU; IB/RoCE 256..4096)", 64));
    f.push_back(bytes_field<NicParams>(
        "header_bytes", &NicParams::header_bytes,
        "headers per packet: Eth 14 + FCS 4 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4 (RoCEv2)", 0));
    f.push_back(bytes_field<NicParams>(
        "framing_bytes", &NicParams::framing_bytes,
        "preamble+SFD 8 + inter-frame gap 12 per packet (IEEE 802.3); 0 on InfiniBand", 0));
    f.push_back(bytes_field<NicParams>("ack_payload_bytes", &NicParams::ack_payload_bytes,
                                       "bytes an ACK/NACK adds to the headers (AETH 4)", 0));
    f.push_back(int_field<NicParams>("ack_every", &NicParams::ack_every,
                                     "acknowledge every N in-order packets (and the last)", 1,
                                     1 << 20));
    f.push_back(time_field<NicParams>(
        "rto", &NicParams::rto,
        "retransmission timeout: go-back-N from the oldest unacknowledged packet", sim::Time(1)));
    f.push_back(bytes_field<NicParams>("max_inflight", &NicParams::max_inflight_bytes,
                                       "bytes in flight per queue pair, 0 = unlimited", 0));
    f.push_back(time_field<NicParams>("tx_latency", &NicParams::tx_latency,
                                      "post to first packet ready (doorbell, WQE fetch, DMA)"));
    f.push_back(time_field<NicParams>("rx_latency", &NicParams::rx_latency,
                                      "last bit in to delivery and ACK generation (DMA write)"));
    for (const auto& h : host_path_fields()) {  // the PCIe path (host_path_section.hpp)
      Field<NicParams> wrapped{h.key, h.unit, h.meaning,
                               [read = h.read](JsonReader& r, NicParams& n) { read(r, n.host); },
                               [write = h.write](const NicParams& n) { return write(n.host); }};
      wrapped.schema = h.schema;
      f.push_back(std::move(wrapped));
    }
    f.push_back(rate_or_zero_field<NicParams>(
        "max_send_rate", &NicParams::max_send_rate_bps,
        "send engine's packet rate cap in wire bits/s (DMA, PCIe), 0 = line rate; "
        "rdmasim calibrate fits it"));
    f.push_back(number_field<NicParams>(
        "send_efficiency", &NicParams::send_efficiency,
        "send engine's packet rate cap as a fraction of the NIC's line rate (1 = none; with "
        "max_send_rate the lower holds); rdmasim calibrate writes it",
        0.01, 1.0));
    f.push_back(time_field<NicParams>(
        "message_overhead", &NicParams::message_overhead,
        "send engine time per message (WQE fetch, DMA setup) in which it sends nothing; "
        "rdmasim calibrate fits it"));
    f.push_back(bytes_field<NicParams>(
        "inline_threshold", &NicParams::inline_threshold_bytes,
        "messages up to this size are sent inline (payload in the work request, no DMA read), "
        "0 = none; rdmasim calibrate fits it"));
    f.push_back(time_field<NicParams>(
        "inline_saving", &NicParams::inline_saving,
        "post latency an inline message saves (the payload's DMA read over PCIe); rdmasim "
        "calibrate fits it"));
    f.push_back(int_field<NicParams>(
        "max_message_rate", &NicParams::max_message_rate,
        "messages per second the send engine starts (WQE processing), 0 = no cap; rdmasim "
        "calibrate fits it",
        0, 1'000'000'000'000LL));
    f.push_back(int_field<NicParams>("data_priority", &NicParams::data_priority,
                                     "traffic class of data of flows that give no class", 0, 7));
    f.push_back(int_field<NicParams>("data_dscp", &NicParams::data_dscp,
                                     "DSCP of data of flows that give no class (RoCE: 26, AF31)", 0,
                                     63));
    f.push_back(int_field<NicParams>("ack_priority", &NicParams::ack_priority,
                                     "traffic class of ACK/NACK packets", 0, 7));
    f.push_back(int_field<NicParams>("ack_dscp", &NicParams::ack_dscp,
                                     "DSCP of ACK/NACK packets (CS7)", 0, 63));
    f.push_back(int_field<NicParams>("cnp_priority", &NicParams::cnp_priority,
                                     "traffic class of congestion notification packets (CNPs)", 0,
                                     7));
    f.push_back(int_field<NicParams>("cnp_dscp", &NicParams::cnp_dscp,
                                     "DSCP of CNPs (RoCE: 48, CS6)", 0, 63));
    f.push_back(int_field<NicParams>("ttl", &NicParams::ttl,
                                     "initial IP hop limit; a switch drops a packet at 0", 1, 255));
    f.push_back(rate_or_zero_field<NicParams>(
        "rx_drain_rate", &NicParams::rx_drain_rate_bps,
        "host drain rate of the receive buffer (PCIe / host memory bandwidth, on payload); data "
        "reaches the transport when drained; 0 = infinite (no buffer)"));
    f.push_back(bytes_field<NicParams>(
        "rx_buffer", &NicParams::rx_buffer_bytes,
        "receive buffer size (wire bytes); a packet that does not fit is dropped and counted "
        "(nic_rx_overflow_drops); 0 = unbounded",
        0));
    f.push_back(bytes_field<NicParams>(
        "pfc_xoff", &NicParams::pfc_xoff_bytes,
        "receive-buffer bytes of a lossless priority above which the NIC pauses it upstream "
        "(needs fabric.pfc and rx_drain_rate); 0 = the NIC never sends pause",
        0));
    f.push_back(bytes_field<NicParams>(
        "pfc_xon_offset", &NicParams::pfc_xon_offset_bytes,
        "NIC hysteresis: resume when the priority's bytes fall to pfc_xoff - pfc_xon_offset", 0));
    return f;
  }();
  return t;
}

const FieldTable<models::PfcParams>& pfc_fields() {
  using models::PfcParams;
  static const FieldTable<PfcParams> t = [] {
    FieldTable<PfcParams> f;
    f.push_back(bool_field<PfcParams>("enabled", &PfcParams::enabled,
                                      "priority flow control (IEEE 802.1Qbb) on every port"));
    f.push_back(Field<PfcParams>{
        "priorities", "list", "lossless traffic classes (0..7); the others stay lossy",
        [](JsonReader& r, PfcParams& s) {
          if (!r.has("priorities")) return;
          JsonReader list = r.at("priorities");
          list.expect_array();
          s.lossless_priorities = 0;
          for (size_t i = 0; i < list.size(); ++i) {
            const Json& v = list.json()[i];
            if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > 7) {
              throw InputError(list.index_path(i), v.dump(), "a priority in [0, 7]");
            }
            s.lossless_priorities |= static_cast<uint8_t>(1u << v.get<int>());
          }
        },
        [](const PfcParams& s) {
          Json a = Json::array();
          for (int p = 0; p < 8; ++p) {
            if ((s.lossless_priorities >> p) & 1u) a.push_back(p);
          }
          return a;
        }});
    f.push_back(bytes_field<PfcParams>(
        "xoff", &PfcParams::xoff_bytes,
        "bytes held per (ingress port, lossless priority) above which a pause is sent upstream",
        1));
    f.push_back(
        bytes_field<PfcParams>("xon_offset", &PfcParams::xon_offset_bytes,
                               "hysteresis: resume when the bytes fall to xoff - xon_offset", 0));
    f.push_back(bytes_field<PfcParams>(
        "headroom", &PfcParams::headroom_bytes,
        "bytes a lossless (ingress, priority) accepts after XOFF; 0 = rate x (2 x cable + switch "
        "latency + response time) + 2 max frames + (lossless priorities + 1) PFC frames",
        0));
    f.push_back(bytes_field<PfcParams>(
        "headroom_pool", &PfcParams::headroom_pool_bytes,
        "switch-wide headroom pool shared by the lossless (port, priority) pairs, each still "
        "bounded by its headroom; 0 = every pair's headroom set aside in full",
        0));
    f.push_back(int_field<PfcParams>("quanta", &PfcParams::quanta,
                                     "pause time per frame, in 512-bit-time quanta", 1, 65535));
    f.push_back(time_field<PfcParams>(
        "watchdog_timeout", &PfcParams::watchdog_timeout,
        "PFC watchdog: a switch egress class paused this long without a break is acted on "
        "(watchdog_action) for watchdog_recovery (0 = no watchdog)"));
    f.push_back(time_field<PfcParams>("watchdog_recovery", &PfcParams::watchdog_recovery,
                                      "how long the watchdog acts", sim::Time(1)));
    f.push_back(watchdog_action_field("watchdog_action"));
    f.push_back(bool_field<PfcParams>(
        "deadlock_detection", &PfcParams::deadlock_detection,
        "look for cycles of paused ingress buffers (PFC deadlocks) during the run"));
    f.push_back(time_field<PfcParams>(
        "deadlock_window", &PfcParams::deadlock_window,
        "a cycle counts once all its queues stayed paused, nothing dequeued, this long",
        sim::Time(1)));
    f.push_back(time_field<PfcParams>("deadlock_check_interval",
                                      &PfcParams::deadlock_check_interval,
                                      "how often the wait-for graph is examined", sim::Time(1)));
    f.push_back(time_field<PfcParams>(
        "response_time", &PfcParams::response_time,
        "upstream's delay from receiving a pause to holding the class (after the packet in "
        "progress)"));
    return f;
  }();
  return t;
}

const FieldTable<models::EcnParams>& ecn_port_fields() {
  using models::EcnParams;
  static const FieldTable<EcnParams> t = [] {
    FieldTable<EcnParams> f;
    f.push_back(bool_field<EcnParams>("enabled", &EcnParams::enabled,
                                      "RED-style ECN marking (RFC 3168) at every switch egress"));
    f.push_back(bytes_field<EcnParams>(
        "kmin", &EcnParams::kmin_bytes,
        "egress (port, priority) bytes up to which nothing is marked (HPCC ns-3 at 100G: 400KB)",
        0));
    f.push_back(bytes_field<EcnParams>(
        "kmax", &EcnParams::kmax_bytes,
        "bytes at which the probability reaches pmax; everything above is marked", 1));
    f.push_back(
        number_field<EcnParams>("pmax", &EcnParams::pmax, "marking probability at kmax", 0.0, 1.0));
    return f;
  }();
  return t;
}

const FieldTable<models::EcnParams>& ecn_fields() {
  using models::EcnParams;
  static const FieldTable<EcnParams> t = [] {
    FieldTable<EcnParams> f = ecn_port_fields();
    f.push_back(Field<EcnParams>{
        "mark_at", "choice",
        "enqueue (the queue the packet joins) | dequeue (the queue it leaves behind)",
        [](JsonReader& r, EcnParams& s) {
          s.mark_at_dequeue = r.choice("mark_at", {"enqueue", "dequeue"},
                                       s.mark_at_dequeue ? "dequeue" : "enqueue") == "dequeue";
        },
        [](const EcnParams& s) { return Json(s.mark_at_dequeue ? "dequeue" : "enqueue"); }});
    return f;
  }();
  return t;
}

const FieldTable<LinkDefaults>& link_fields() {
  static const FieldTable<LinkDefaults> t = [] {
    FieldTable<LinkDefaults> f;
    f.push_back(number_field<LinkDefaults>(
        "loss_rate", &LinkDefaults::loss_rate,
        "probability a packet is lost on a link, per direction (links may set their own)", 0.0,
        0.999999));
    return f;
  }();
  return t;
}

}  // namespace scen
