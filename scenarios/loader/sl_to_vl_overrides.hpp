// Per-port SL -> VL tables on an InfiniBand fabric. The specification gives every switch a
// SLtoVLMappingTable per (input port, output port) and every channel adapter one per port
// (IBA vol. 1, 7.6.6); here a switch has one per output port (used for packets from every input
// port) and the NICs use the fabric-wide table:
//
//   "infiniband": {"sl_to_vl": [...]}                  the default of every port
//   "overrides": [{"switch": "leaf0", "port": 3,       this switch's port 3 (no "port": every
//                  "set": {"sl_to_vl": [...]}}]         port; "switch": "*": every switch)
//
// Overrides apply in order after the default; a list names the VL of SL 0, 1, ... (SLs it does
// not reach map to VL 0, as in the fabric-wide list).
#pragma once

#include <cstdint>
#include <vector>

#include "scenarios/loader/scenario.hpp"

namespace scen {

// Reads the "sl_to_vl" of override `o` (`set` is its "set"; `s` has its fabric sections read):
// only on an InfiniBand fabric, not per priority, a list of 1 to 16 VLs each below
// infiniband.data_vls. InputError with the JSON path otherwise.
std::vector<uint8_t> read_sl_to_vl_override(JsonReader& set, const SwitchOverride& o,
                                            const Scenario& s);

// Whether some override sets an SL -> VL table.
bool has_sl_to_vl_overrides(const Scenario& s);

// The SL -> VL table of each output port of switch `node`, [port * 16 + SL]: the fabric-wide
// table, then each override naming this switch (or "*") and the port (or every port), in order.
std::vector<uint8_t> switch_sl_to_vl(const Scenario& s, int node, size_t ports);

}  // namespace scen
