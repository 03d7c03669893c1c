#include "scenarios/loader/watchdog_section.hpp"

namespace scen {

using models::PfcParams;

const FieldTable<PfcParams>& watchdog_override_fields() {
  static const FieldTable<PfcParams> t = fields_from(models::watchdog_override_param_table());
  return t;
}

ParamPatch<PfcParams> read_watchdog_override(JsonReader& set) {
  JsonReader w = set.at("pfc_watchdog");
  w.expect_object();
  ParamPatch<PfcParams> patch = read_patch(w, watchdog_override_fields());
  w.finish();
  return patch;
}

WatchdogSetting watchdog_for(const Scenario& s, int node, int port) {
  PfcParams p = s.pfc;
  for (const auto& o : s.overrides) {
    if (o.watchdog.empty()) continue;
    if ((o.node >= 0 && o.node != node) || (o.port >= 0 && o.port != port)) continue;
    o.watchdog.apply(p);
  }
  return {p.watchdog_timeout, p.watchdog_recovery, p.watchdog_action};
}

}  // namespace scen
