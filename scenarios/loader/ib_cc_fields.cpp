// The `infiniband.cc` section: InfiniBand congestion control (IBA annex A10), keys named after the
// annex's SwitchCongestionSetting, CACongestionSetting and CongestionControlTable fields.
#include <string>

#include "models/ib/ib_cc_params.hpp"
#include "scenarios/loader/fabric_section.hpp"

namespace scen {
namespace {

using models::IbCcParams;

std::string cct_text(models::CctEntry e) {
  return std::to_string(e.shift) + ":" + std::to_string(e.multiplier);
}

// "shift:multiplier", shift 0..3, multiplier 0..16383 (OpenSM's cc_cct format).
models::CctEntry parse_cct_entry(const Json& v, const std::string& path) {
  const char* expected = "\"shift:multiplier\" with shift 0..3 and multiplier 0..16383";
  if (!v.is_string()) throw InputError(path, message_text(v), expected);
  const std::string t = v.get<std::string>();
  const size_t colon = t.find(':');
  auto digits = [](const std::string& d) {
    return !d.empty() && d.size() <= 5 && d.find_first_not_of("0123456789") == std::string::npos;
  };
  if (colon == std::string::npos || !digits(t.substr(0, colon)) || !digits(t.substr(colon + 1))) {
    throw InputError(path, message_text(v), expected);
  }
  const int shift = std::stoi(t.substr(0, colon));
  const int mult = std::stoi(t.substr(colon + 1));
  if (shift > models::kCctMaxShift || mult > models::kCctMaxMultiplier) {
    throw InputError(path, message_text(v), expected);
  }
  return {static_cast<uint8_t>(shift), static_cast<uint16_t>(mult)};
}

}  // namespace

const FieldTable<IbCcParams>& ib_cc_fields() {
  static const FieldTable<IbCcParams> t = fields_from(
      models::ib_cc_param_table(),
      {Field<IbCcParams>{"cct", "list", "",
                         [](JsonReader& r, IbCcParams& p) {
                           if (!r.has("cct")) return;
                           JsonReader list = r.at("cct");
                           list.expect_array();
                           if (list.size() == 0 || list.size() > 16384) {
                             throw InputError(list.path(), std::to_string(list.size()) + " entries",
                                              "a list of 1 to 16384 entries");
                           }
                           p.cct.clear();
                           for (size_t i = 0; i < list.size(); ++i) {
                             p.cct.push_back(parse_cct_entry(list.json()[i], list.index_path(i)));
                           }
                         },
                         [](const IbCcParams& p) {
                           if (p.cct.empty()) return Json("default");
                           Json a = Json::array();
                           for (const auto& e : p.cct) a.push_back(cct_text(e));
                           return a;
                         }}});
  return t;
}

void read_ib_cc_section(JsonReader& section, models::IbCcParams& cc) {
  section.expect_object();
  if (section.has("algorithm")) {
    // HPCC needs switches that stamp in-band telemetry, DCTCP and TIMELY Ethernet's ECN and
    // RoCE NICs: none is an InfiniBand mechanism.
    throw InputError(section.child_path("algorithm"), message_text(section.json()["algorithm"]),
                     "InfiniBand's own congestion control here (enabled, threshold, ccti_*: "
                     "annex A10); HPCC, DCTCP and TIMELY run on RoCE fabrics (fabric.cc)");
  }
  read_fields(section, ib_cc_fields(), cc);
  section.finish();
  const size_t table = cc.cct.empty() ? models::default_cct().size() : cc.cct.size();
  if (static_cast<size_t>(cc.ccti_limit) >= table) {
    throw InputError(section.child_path("ccti_limit"), std::to_string(cc.ccti_limit),
                     "an index of the congestion control table (below its " +
                         std::to_string(table) + " entries)");
  }
  if (cc.ccti_min > cc.ccti_limit) {
    throw InputError(section.child_path("ccti_min"), std::to_string(cc.ccti_min),
                     "at most ccti_limit (" + std::to_string(cc.ccti_limit) + ")");
  }
}

}  // namespace scen
