// The `fabric.dcqcn` section: a preset, then any knob set on top of it
// (models/roce/dcqcn_params.cpp describes them).
#include "models/roce/dcqcn_params.hpp"
#include "scenarios/loader/params.hpp"

namespace scen {
using models::DcqcnParams;

const FieldTable<DcqcnParams>& dcqcn_fields() {
  // The preset is applied by the loader before the other keys; listed for the echo.
  static const FieldTable<DcqcnParams> t =
      fields_from(models::dcqcn_param_table(),
                  {Field<DcqcnParams>{"preset", "choice", "",
                                      [](JsonReader& r, DcqcnParams&) { (void)r.has("preset"); },
                                      [](const DcqcnParams& s) { return Json(s.preset); }}});
  return t;
}

}  // namespace scen
