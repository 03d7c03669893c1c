// Which fabric a scenario runs on, and the InfiniBand section.
//
//   "fabric": {...}                      RoCE with these parameters (the original form)
//   "fabric": "roce"        + "roce": {...}
//   "fabric": "infiniband"  + "infiniband": {...}
//   "fabric": ["infiniband", "roce"]     each listed fabric, with its own section
//
// A section holds what the RoCE "fabric" object holds for that fabric: "roce" the same keys
// (switch, nic, link, pfc, ecn, dcqcn, qos); "infiniband" switch (latency, forwarding), nic, link
// and the InfiniBand keys (ib_fields).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "scenarios/loader/param_table.hpp"
#include "scenarios/loader/params.hpp"
#include "scenarios/loader/scenario.hpp"

namespace scen {

// Default switching latency of an InfiniBand switch: the upper end of the 100-130 ns per switch
// of Quantum-2-class switches (docs/references.md "Fabric figures").
inline constexpr sim::Time kInfinibandSwitchLatency{130'000};

// Every fabric a scenario may name ("roce", "infiniband"): also the folders a run over several
// fabrics writes into (scenarios/outputs/output_folder.hpp).
const std::vector<std::string>& known_fabrics();

// Reads "fabric", sets s.fabric_kind and s.fabrics, and returns the section that holds the
// chosen fabric's parameters (nothing when absent). Every listed fabric's section counts as read.
std::optional<JsonReader> select_fabric(JsonReader& root, const LoadOptions& options, Scenario& s);

// The fabrics a scenario lists, in order (["roce"] for the object form or no "fabric").
std::vector<std::string> listed_fabrics(const Json& root);

// InfiniBand defaults, then the section's keys. Refuses what an InfiniBand fabric cannot have
// (lossy links, a packet larger than a VL buffer, MTU above 4 KiB).
void read_infiniband_section(std::optional<JsonReader>& section, Scenario& s,
                             LinkDefaults& link_defaults);

// On InfiniBand an override may set only what an InfiniBand switch has (latency, forwarding):
// the buffer is the VL buffers and there is no PFC, ECN or DSCP scheduling to tune. `set` is an
// override's "set".
void check_infiniband_override(const JsonReader& set);

const FieldTable<models::IbParams>& ib_fields();
// infiniband.cc: congestion control (ib_cc_fields.cpp). read_ib_cc_section also checks
// ccti_min <= ccti_limit < the table's size.
const FieldTable<models::IbCcParams>& ib_cc_fields();
void read_ib_cc_section(JsonReader& section, models::IbCcParams& cc);
// Of switch_fields(): what an InfiniBand switch takes (latency, forwarding); its buffer is the
// VL buffers.
const FieldTable<models::SwitchParams>& ib_switch_fields();

// The effective configuration of an InfiniBand scenario (the RoCE sections replaced by
// "fabric": "infiniband" and the "infiniband" section).
Json infiniband_effective(const Json& roce_effective, const Scenario& s,
                          const LinkDefaults& link_defaults);

}  // namespace scen
