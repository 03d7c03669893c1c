// The "fabric.qos" section (traffic classes: DSCP → priority table, trust mode, egress
// scheduler), the "scheduler" key of overrides, and a workload entry's class ("priority"
// and/or "dscp").
#pragma once

#include <array>
#include <optional>
#include <string>

#include "models/nic_params.hpp"
#include "models/qos_params.hpp"
#include "scenarios/loader/param_table.hpp"

namespace scen {

const FieldTable<models::QosParams>& qos_fields();

// Checks what the field table cannot: a non-zero quantum of at least a minimum frame; and,
// when switches trust DSCP, that each NIC (priority, DSCP) pair agrees with the table (else a
// switch would move ACKs or CNPs into another class than the NIC queues them in).
void check_qos(const models::QosParams& q, const models::NicParams& nic);

// The DWRR base quantum in effect: the configured one, or one maximum-size frame.
int64_t effective_quantum(const models::QosParams& q, const models::NicParams& nic);

// An override's "scheduler": for one priority, "strict" or a weight; else an object like
// fabric.qos.scheduler. The weights it sets (0 = strict), by priority; unset ones are empty.
using SchedulerSetting = std::array<std::optional<uint32_t>, models::kPriorities>;
SchedulerSetting read_scheduler_setting(const Json& v, const std::string& path, int priority);

// A workload entry's traffic class. "dscp" alone: the priority is the table's. "priority"
// alone: the DSCP is nic.data_dscp if the table maps it there, else the lowest DSCP that maps
// there (refused under trust dscp if none does; the class-selector DSCP otherwise). Both: they
// must agree with the table. Neither: `def`.
struct TrafficClass {
  int priority = 3;
  int dscp = 26;
};
TrafficClass read_traffic_class(JsonReader& r, const TrafficClass& def, const models::QosParams& q,
                                const models::NicParams& nic);

}  // namespace scen
