// The `fabric.cc` section: an algorithm, a preset of it, then any knob set on top.
#include "models/cc/cc_params.hpp"
#include "scenarios/loader/params.hpp"

namespace scen {
using models::CcParams;

const FieldTable<CcParams>& cc_fields() {
  static const FieldTable<CcParams> t = [] {
    FieldTable<CcParams> f;
    // The algorithm and the preset are read by the loader before the other keys (the preset
    // depends on the algorithm, the knobs on the preset); listed here for the echo.
    f.push_back(Field<CcParams>{
        "algorithm", "choice",
        "none | dcqcn (as fabric.dcqcn.enabled) | hpcc | dctcp | timely: the sender NICs' "
        "congestion control",
        [](JsonReader& r, CcParams&) { (void)r.has("algorithm"); },
        [](const CcParams& s) { return Json(models::cc_algorithm_name(s.algorithm)); }});
    f.push_back(Field<CcParams>{
        "preset", "choice",
        "paper | hpcc-ns3 (the ns-3 HPCC simulator's run script at 100 Gb/s): the set the "
        "knobs start from",
        [](JsonReader& r, CcParams&) { (void)r.has("preset"); },
        [](const CcParams& s) { return Json(s.preset); }});
    f.push_back(classes_field<CcParams>(
        "classes", &CcParams::classes,
        "the traffic classes whose flows it controls, e.g. [3] (\"all\"); the others run "
        "without it, or under DCQCN for fabric.dcqcn.classes"));
    f.push_back(time_field<CcParams>(
        "base_rtt", &CcParams::base_rtt,
        "base RTT T (HPCC's averaging period; the BDP window); 0 = the largest unloaded RTT "
        "over the workload's flows"));
    f.push_back(Field<CcParams>{
        "window", "bytes", "bytes in flight per QP: none | bdp (base_rtt x line rate) | a size",
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
        }});
    f.push_back(bool_field<CcParams>(
        "window_follows_rate", &CcParams::window_follows_rate,
        "the window scales with the QP's rate / line rate (HPCC's W = R x T)"));
    f.push_back(
        rate_field<CcParams>("min_rate", &CcParams::min_rate_bps, "no QP is set below this rate"));
    f.push_back(rate_field<CcParams>("rate_ai", &CcParams::rate_ai_bps,
                                     "additive increase: HPCC's W_AI (as a rate), DCTCP's per RTT, "
                                     "TIMELY's delta"));
    f.push_back(rate_field<CcParams>("rate_hai", &CcParams::rate_hai_bps,
                                     "TIMELY's hyper-active increase (after hai_after increases)"));
    f.push_back(number_field<CcParams>("hpcc_eta", &CcParams::hpcc_eta,
                                       "HPCC target utilisation eta", 0.01, 1.0));
    f.push_back(int_field<CcParams>(
        "hpcc_max_stage", &CcParams::hpcc_max_stage,
        "HPCC: additive updates while U < eta before a multiplicative one", 0, 1000));
    f.push_back(bool_field<CcParams>("hpcc_fast_react", &CcParams::hpcc_fast_react,
                                     "HPCC reacts to every ACK between the once-per-RTT updates"));
    f.push_back(bytes_field<CcParams>("hpcc_int_bytes", &CcParams::hpcc_int_bytes,
                                      "HPCC's INT header on every data packet and ACK"));
    f.push_back(bytes_field<CcParams>(
        "hpcc_int_byte_unit", &CcParams::hpcc_int_byte_unit,
        "HPCC: switches write transmitted bytes in these units (1B = exact)", 1));
    f.push_back(bytes_field<CcParams>(
        "hpcc_int_queue_unit", &CcParams::hpcc_int_queue_unit,
        "HPCC: switches write the queue length in these units (1B = exact)", 1));
    f.push_back(number_field<CcParams>("dctcp_g", &CcParams::dctcp_g, "DCTCP alpha gain g",
                                       1.0 / 1024, 1.0));
    f.push_back(number_field<CcParams>("timely_alpha", &CcParams::timely_alpha,
                                       "TIMELY EWMA weight of the newest RTT difference", 0.0,
                                       1.0));
    f.push_back(number_field<CcParams>("timely_beta", &CcParams::timely_beta,
                                       "TIMELY multiplicative decrease factor", 0.0, 1.0));
    f.push_back(time_field<CcParams>("timely_t_low", &CcParams::timely_t_low,
                                     "TIMELY: below this RTT, always increase"));
    f.push_back(time_field<CcParams>("timely_t_high", &CcParams::timely_t_high,
                                     "TIMELY: above this RTT, decrease by 1 - beta(1 - T_high/rtt)",
                                     sim::Time(1)));
    f.push_back(time_field<CcParams>("timely_min_rtt", &CcParams::timely_min_rtt,
                                     "TIMELY: normalises the RTT gradient", sim::Time(1)));
    f.push_back(int_field<CcParams>("timely_hai_after", &CcParams::timely_hai_after,
                                    "TIMELY: increases in a row before hyper-active increase", 0,
                                    1000));
    f.push_back(bytes_field<CcParams>("timely_timestamp_bytes", &CcParams::timely_timestamp_bytes,
                                      "TIMELY's send timestamp on every data packet and ACK"));
    return f;
  }();
  return t;
}

}  // namespace scen
