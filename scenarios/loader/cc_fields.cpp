// The `fabric.cc` section: an algorithm, a preset of it, then any knob set on top
// (models/cc/cc_params.cpp describes them).
#include "models/cc/cc_params.hpp"
#include "scenarios/loader/params.hpp"

namespace scen {
using models::CcParams;

const FieldTable<CcParams>& cc_fields() {
  // The algorithm and the preset are read by the loader before the other keys (the preset
  // depends on the algorithm, the knobs on the preset); listed for the echo.
  static const FieldTable<CcParams> t = fields_from(
      models::cc_param_table(),
      {Field<CcParams>{
           "algorithm", "choice", "", [](JsonReader& r, CcParams&) { (void)r.has("algorithm"); },
           [](const CcParams& s) { return Json(models::cc_algorithm_name(s.algorithm)); }},
       Field<CcParams>{"preset", "choice", "",
                       [](JsonReader& r, CcParams&) { (void)r.has("preset"); },
                       [](const CcParams& s) { return Json(s.preset); }},
       Field<CcParams>{"window", "bytes", "",
                       [](JsonReader& r, CcParams& s) {
                         if (!r.has("window")) return;
                         const Json& v = r.json()["window"];
                         if (v.is_string() && (v == "none" || v == "bdp")) {
                           s.window_bytes = v == "none" ? -1 : 0;
                           (void)r.at("window");  // mark as read
                           return;
                         }
                         s.window_bytes = r.bytes("window", s.window_bytes, 1);
                       },
                       [](const CcParams& s) {
                         return s.window_bytes < 0    ? Json("none")
                                : s.window_bytes == 0 ? Json("bdp")
                                                      : Json(sim::format_bytes(s.window_bytes));
                       }}});
  return t;
}

}  // namespace scen
