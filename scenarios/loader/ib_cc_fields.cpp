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
  if (!v.is_string()) throw InputError(path, v.dump(), expected);
  const std::string t = v.get<std::string>();
  const size_t colon = t.find(':');
  auto digits = [](const std::string& d) {
    return !d.empty() && d.size() <= 5 && d.find_first_not_of("0123456789") == std::string::npos;
  };
  if (colon == std::string::npos || !digits(t.substr(0, colon)) || !digits(t.substr(colon + 1))) {
    throw InputError(path, v.dump(), expected);
  }
  const int shift = std::stoi(t.substr(0, colon));
  const int mult = std::stoi(t.substr(colon + 1));
  if (shift > models::kCctMaxShift || mult > models::kCctMaxMultiplier) {
    throw InputError(path, v.dump(), expected);
  }
  return {static_cast<uint8_t>(shift), static_cast<uint16_t>(mult)};
}

}  // namespace

const FieldTable<IbCcParams>& ib_cc_fields() {
  static const FieldTable<IbCcParams> t = [] {
    FieldTable<IbCcParams> f;
    f.push_back(bool_field<IbCcParams>(
        "enabled", &IbCcParams::enabled,
        "congestion control (IBA annex A10): switches mark FECN, receivers return BECN in a CNP, "
        "senders pace each QP by its CCT entry"));
    f.push_back(bytes_field<IbCcParams>(
        "threshold", &IbCcParams::threshold_bytes,
        "switch: a data packet joining a (port, VL) queue holding more than this gets FECN (the "
        "annex's 4-bit Threshold level, given as the depth)",
        0));
    f.push_back(int_field<IbCcParams>(
        "marking_rate", &IbCcParams::marking_rate,
        "switch Marking_Rate: eligible packets left unmarked between two marks (0 = mark all)", 0,
        65535));
    f.push_back(int_field<IbCcParams>(
        "packet_size", &IbCcParams::packet_size_blocks,
        "switch Packet_Size: packets of fewer 64-byte blocks are not marked (0 = any size)", 0,
        255));
    f.push_back(bool_field<IbCcParams>(
        "victim_mask", &IbCcParams::victim_mask,
        "switch Victim_Mask (all ports): also mark at a port that is out of credit (a victim of "
        "congestion downstream); false marks only at the root"));
    f.push_back(int_field<IbCcParams>("ccti_increase", &IbCcParams::ccti_increase,
                                      "CA CCTI_Increase: added to the QP's CCTI per BECN", 0, 255));
    f.push_back(int_field<IbCcParams>(
        "ccti_limit", &IbCcParams::ccti_limit,
        "CA CCTI_Limit: highest CCTI; below the table's size (default table: 128 entries)", 0,
        16383));
    f.push_back(int_field<IbCcParams>(
        "ccti_min", &IbCcParams::ccti_min,
        "CA CCTI_Min: the timer never lowers CCTI below it (a floor on the delay once notified)", 0,
        255));
    f.push_back(time_field<IbCcParams>(
        "ccti_timer", &IbCcParams::ccti_timer,
        "CA CCTI_Timer: while CCTI > CCTI_Min it drops by one per period (the annex counts "
        "1.024 us units; give a time)",
        sim::Time(1)));
    f.push_back(Field<IbCcParams>{
        "cct", "list",
        "congestion control table, [\"shift:multiplier\", ...] (OpenSM cc_cct form): "
        "inter-packet delay = packet time x multiplier / 2^shift; default 128 entries i -> 3:i "
        "(a linear ramp, rate = line x 8 / (8 + i))",
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
        }});
    return f;
  }();
  return t;
}

void read_ib_cc_section(JsonReader& section, models::IbCcParams& cc) {
  section.expect_object();
  if (section.has("algorithm")) {
    // HPCC needs switches that stamp in-band telemetry, DCTCP and TIMELY Ethernet's ECN and
    // RoCE NICs: none is an InfiniBand mechanism.
    throw InputError(section.child_path("algorithm"), section.json()["algorithm"].dump(),
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
