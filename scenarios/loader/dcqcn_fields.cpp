// The `fabric.dcqcn` section: a preset, then any knob set on top of it.
#include "models/roce/dcqcn_params.hpp"
#include "scenarios/loader/params.hpp"

namespace scen {
using models::DcqcnParams;

const FieldTable<DcqcnParams>& dcqcn_fields() {
  static const FieldTable<DcqcnParams> t = [] {
    FieldTable<DcqcnParams> f;
    f.push_back(bool_field<DcqcnParams>(
        "enabled", &DcqcnParams::enabled,
        "DCQCN rate control on every NIC (needs fabric.ecn marking to react to anything)"));
    f.push_back(classes_field<DcqcnParams>(
        "classes", &DcqcnParams::classes,
        "the traffic classes whose flows it controls, e.g. [1] (\"all\"); with fabric.cc "
        "on other classes, each class has its own congestion control"));
    // The preset is applied by the loader before the other keys; listed here for the echo.
    f.push_back(Field<DcqcnParams>{
        "preset", "choice",
        "nvidia-default | dcqcn-paper | hpcc-ns3: the default set the knobs start from",
        [](JsonReader& r, DcqcnParams&) { (void)r.has("preset"); },
        [](const DcqcnParams& s) { return Json(s.preset); }});
    f.push_back(Field<DcqcnParams>{
        "feedback", "choice",
        "cnp (a CNP per QP at most once per min_time_between_cnps) | ack (flag on the ACK of "
        "every marked packet, ns-3 HPCC)",
        [](JsonReader& r, DcqcnParams& s) {
          s.feedback = r.choice("feedback", {"cnp", "ack"},
                                s.feedback == DcqcnParams::Feedback::Cnp ? "cnp" : "ack") == "cnp"
                           ? DcqcnParams::Feedback::Cnp
                           : DcqcnParams::Feedback::AckFlag;
        },
        [](const DcqcnParams& s) {
          return Json(s.feedback == DcqcnParams::Feedback::Cnp ? "cnp" : "ack");
        }});
    f.push_back(time_field<DcqcnParams>(
        "min_time_between_cnps", &DcqcnParams::min_time_between_cnps,
        "notification point: at most one CNP per QP per interval (0 = one per marked packet)"));
    f.push_back(Field<DcqcnParams>{
        "alpha_update", "choice",
        "periodic (every dce_tcp_rtt, up if a CNP came, firmware) | on-cnp (up on each CNP, "
        "down after each dce_tcp_rtt without one, paper)",
        [](JsonReader& r, DcqcnParams& s) {
          s.alpha_update = r.choice("alpha_update", {"periodic", "on-cnp"},
                                    s.alpha_update == DcqcnParams::AlphaUpdate::Periodic
                                        ? "periodic"
                                        : "on-cnp") == "periodic"
                               ? DcqcnParams::AlphaUpdate::Periodic
                               : DcqcnParams::AlphaUpdate::OnCnp;
        },
        [](const DcqcnParams& s) {
          return Json(s.alpha_update == DcqcnParams::AlphaUpdate::Periodic ? "periodic" : "on-cnp");
        }});
    f.push_back(int_field<DcqcnParams>("dce_tcp_g", &DcqcnParams::dce_tcp_g,
                                       "alpha gain: g = (1024 - dce_tcp_g) / 1024", 0, 1023));
    f.push_back(time_field<DcqcnParams>("dce_tcp_rtt", &DcqcnParams::dce_tcp_rtt,
                                        "alpha update period", sim::Time(1)));
    f.push_back(int_field<DcqcnParams>("initial_alpha_value", &DcqcnParams::initial_alpha_value,
                                       "alpha x 1024 when a QP's rate limiter starts", 0, 1024));
    f.push_back(int_field<DcqcnParams>(
        "rpg_gd", &DcqcnParams::rpg_gd,
        "decrease: rate x (1 - alpha x 1024 / 2^rpg_gd); 11 = the paper's alpha/2", 10, 20));
    f.push_back(int_field<DcqcnParams>(
        "rpg_min_dec_fac", &DcqcnParams::rpg_min_dec_fac,
        "a decrease keeps at least this percentage of the rate (0 = no bound)", 0, 100));
    f.push_back(time_field<DcqcnParams>(
        "rate_reduce_monitor_period", &DcqcnParams::rate_reduce_monitor_period,
        "at most one decrease per period, if a CNP came (0 = decrease on every CNP)"));
    f.push_back(rate_or_zero_field(
        "rate_to_set_on_first_cnp", &DcqcnParams::rate_to_set_on_first_cnp_bps,
        "current and target rate when a QP's limiter starts (0 = the rate it sends at)"));
    f.push_back(bool_field<DcqcnParams>("clamp_tgt_rate", &DcqcnParams::clamp_tgt_rate,
                                        "every decrease sets target := current"));
    f.push_back(bool_field<DcqcnParams>(
        "clamp_tgt_rate_after_time_inc", &DcqcnParams::clamp_tgt_rate_after_time_inc,
        "a decrease sets target := current if the timer raised the rate since the last one"));
    f.push_back(time_field<DcqcnParams>("rpg_time_reset", &DcqcnParams::rpg_time_reset,
                                        "rate-increase timer period", sim::Time(1)));
    f.push_back(bytes_field<DcqcnParams>(
        "rpg_byte_reset", &DcqcnParams::rpg_byte_reset,
        "bytes sent between byte-counter increases (0 = no byte counter)", 0));
    f.push_back(int_field<DcqcnParams>(
        "rpg_threshold", &DcqcnParams::rpg_threshold,
        "stages of fast recovery before additive, then hyper increase", 0, 1 << 20));
    f.push_back(rate_field<DcqcnParams>("rpg_ai_rate", &DcqcnParams::rpg_ai_rate_bps,
                                        "additive increase step of the target rate"));
    f.push_back(rate_field<DcqcnParams>("rpg_hai_rate", &DcqcnParams::rpg_hai_rate_bps,
                                        "hyper increase step of the target rate"));
    f.push_back(rate_field<DcqcnParams>("rpg_min_rate", &DcqcnParams::rpg_min_rate_bps,
                                        "no decrease goes below this rate"));
    f.push_back(rate_or_zero_field("rpg_max_rate", &DcqcnParams::rpg_max_rate_bps,
                                   "rate at which the limiter is released (0 = line rate)"));
    return f;
  }();
  return t;
}

}  // namespace scen
