#include "scenarios/loader/watchdog_section.hpp"

namespace scen {

using models::PfcParams;
using models::WatchdogAction;

Field<PfcParams> watchdog_action_field(const std::string& key) {
  return Field<PfcParams>{
      key,
      "choice",
      "ignore-pause | drop: what the PFC watchdog does to a stuck class for the recovery time — "
      "ignore its pause, or also discard its queued packets and every packet reaching it "
      "(SONiC's forward / drop actions)",
      [key](JsonReader& r, PfcParams& s) {
        const bool drop = s.watchdog_action == WatchdogAction::Drop;
        s.watchdog_action =
            r.choice(key, {"ignore-pause", "drop"}, drop ? "drop" : "ignore-pause") == "drop"
                ? WatchdogAction::Drop
                : WatchdogAction::IgnorePause;
      },
      [](const PfcParams& s) {
        return Json(s.watchdog_action == WatchdogAction::Drop ? "drop" : "ignore-pause");
      },
      true,
      nullptr,
      member_copy(&PfcParams::watchdog_action)};
}

const FieldTable<PfcParams>& watchdog_override_fields() {
  static const FieldTable<PfcParams> t = [] {
    FieldTable<PfcParams> f;
    f.push_back(time_field<PfcParams>("timeout", &PfcParams::watchdog_timeout,
                                      "pause time without a break that triggers the watchdog "
                                      "(0 = off)"));
    f.push_back(time_field<PfcParams>("recovery", &PfcParams::watchdog_recovery,
                                      "how long the watchdog acts", sim::Time(1)));
    f.push_back(watchdog_action_field("action"));
    return f;
  }();
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
    if (!o.has_watchdog) continue;
    if ((o.node >= 0 && o.node != node) || (o.port >= 0 && o.port != port)) continue;
    o.watchdog.apply(p);
  }
  return {p.watchdog_timeout, p.watchdog_recovery, p.watchdog_action};
}

}  // namespace scen
