// PFC watchdog settings: fabric-wide in fabric.pfc (watchdog_timeout, watchdog_recovery,
// watchdog_action), and per switch or switch port through an override's "pfc_watchdog" object
// ({"timeout", "recovery", "action"}), applied in order, each changing only the keys it sets.
#pragma once

#include "models/roce/pfc_params.hpp"
#include "scenarios/loader/param_table.hpp"
#include "scenarios/loader/scenario.hpp"

namespace scen {

// The keys of an override's "pfc_watchdog" object, read into the watchdog_* members.
const FieldTable<models::PfcParams>& watchdog_override_fields();

// Reads an override's "pfc_watchdog" object (`set` is the override's "set").
ParamPatch<models::PfcParams> read_watchdog_override(JsonReader& set);

struct WatchdogSetting {
  sim::Time timeout;  // 0 = off
  sim::Time recovery;
  models::WatchdogAction action = models::WatchdogAction::IgnorePause;
};

// The watchdog of one switch egress port: fabric.pfc, then the matching overrides in order.
WatchdogSetting watchdog_for(const Scenario& s, int node, int port);

}  // namespace scen
