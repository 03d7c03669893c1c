// What a NIC's sending side (models/nic_sender.hpp) and its receiver (models/nic_receiver.hpp)
// both follow: the congestion controls that govern its queue pairs' classes, the class -> port
// lane map (InfiniBand SL -> VL) and the kernel TCP stack. The builder sets them through the
// Nic's setters before the run.
#pragma once

#include <array>
#include <cstdint>

#include "models/transport.hpp"

namespace models {

class AckRateControl;
class Dcqcn;
class IbCongestionControl;
class TcpStack;

struct NicSettings {
  Dcqcn* dcqcn = nullptr;
  uint8_t dcqcn_classes = 0xff;  // bit c: QPs of priority c answer to DCQCN
  AckRateControl* ack_cc = nullptr;
  uint8_t cc_classes = 0xff;  // bit c: QPs of priority c answer to ack_cc
  // Nic::set_window: the window of bytes in flight of ack_cc's QPs.
  bool cc_window_set = false;
  int64_t cc_window_bytes = 0;
  bool cc_window_follows_rate = false;
  bool echo_ce = false;         // ACKs echo the data's CE mark (DCTCP)
  bool telemetry = false;       // data packets carry an INT record (HPCC)
  int64_t cc_header_bytes = 0;  // ack_cc's header on data and ACKs of its QPs
  IbCongestionControl* ib_cc = nullptr;
  TcpStack* tcp = nullptr;
  bool ib = false;  // InfiniBand: packets travel on VL sl_to_vl[SL]
  std::array<uint8_t, 16> sl_to_vl{};

  // Whether the ACK-driven congestion control governs `qp` (by its class).
  bool cc_for(const QueuePair& qp) const {
    return ack_cc != nullptr && ((cc_classes >> qp.priority) & 1u) != 0;
  }
  Dcqcn* dcqcn_for(const QueuePair& qp) const {
    return ((dcqcn_classes >> qp.priority) & 1u) != 0 ? dcqcn : nullptr;
  }
  // The port class of packets of class (InfiniBand: SL) `cls`.
  uint8_t lane_of(int cls) const {
    return ib ? sl_to_vl[static_cast<size_t>(cls)] : static_cast<uint8_t>(cls);
  }
};

}  // namespace models
