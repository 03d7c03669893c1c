// Traffic classes (QoS): how a packet's DSCP selects its priority (the 802.1p class that picks
// its queue, its PFC pause class and its buffer accounting), whether switches classify on the
// DSCP or trust the priority the sender tagged, and how each egress port schedules the classes.
#pragma once

#include <array>
#include <cstdint>

#include "models/egress_scheduler.hpp"
#include "sim/param_spec_fwd.hpp"

namespace models {

constexpr int kDscpValues = 64;  // 6-bit Differentiated Services codepoint (RFC 2474)

// DSCP → priority. The default is the class-selector rule (the top three bits of the DSCP,
// RFC 2474 §4.2.2.2), which also puts the codepoints of the common RoCE deployment where they
// belong: DSCP 26 (AF31) for RoCE data → priority 3, DSCP 48 (CS6) for CNPs → priority 6
// (NVIDIA "RoCE configuration for lossless fabrics"; docs/references.md "RoCE traffic classes").
struct DscpMap {
  std::array<uint8_t, kDscpValues> priority{};
  DscpMap() {
    for (int d = 0; d < kDscpValues; ++d) priority[d] = static_cast<uint8_t>(d >> 3);
  }
  uint8_t operator[](int dscp) const { return priority[dscp]; }
  // The lowest DSCP mapped to `prio`, or -1 when none is.
  int lowest_dscp_for(int prio) const {
    for (int d = 0; d < kDscpValues; ++d) {
      if (priority[d] == prio) return d;
    }
    return -1;
  }
};

// What a switch classifies an arriving packet on: the priority the sender tagged (802.1Q PCP,
// "L2 trust") or its DSCP through the table ("L3 trust", the usual RoCE setting).
enum class Trust : uint8_t { Pcp, Dscp };

struct QosParams {
  DscpMap dscp_to_priority;
  // Default pcp: a switch keeps the sender's priority, as before traffic classes existed; with
  // consistent NIC settings both modes put every packet in the same class.
  Trust trust = Trust::Pcp;
  // Per class: 0 = strict priority, else a DWRR weight. Default all strict.
  ClassSchedule scheduler;
  // The highest class a flow may name: 7 (802.1Q priorities); 15 on an InfiniBand fabric, whose
  // flows name a service level (set by the loader, not a parameter).
  int highest_priority = kPriorities - 1;
};

// The parameters of QosParams a scenario sets (fabric.qos; models/qos_params.cpp).
const sim::ParamTable<QosParams>& qos_param_table();

}  // namespace models
