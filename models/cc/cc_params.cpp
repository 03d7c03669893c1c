#include "models/cc/cc_params.hpp"

#include "sim/param_spec.hpp"

namespace models {

const char* cc_algorithm_name(CcAlgorithm a) {
  switch (a) {
    case CcAlgorithm::None:
      return "none";
    case CcAlgorithm::Dcqcn:
      return "dcqcn";
    case CcAlgorithm::Hpcc:
      return "hpcc";
    case CcAlgorithm::Dctcp:
      return "dctcp";
    case CcAlgorithm::Timely:
      return "timely";
  }
  return "none";
}

const std::vector<std::string>& cc_algorithm_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (CcAlgorithm a : {CcAlgorithm::None, CcAlgorithm::Dcqcn, CcAlgorithm::Hpcc,
                          CcAlgorithm::Dctcp, CcAlgorithm::Timely}) {
      n.emplace_back(cc_algorithm_name(a));
    }
    return n;
  }();
  return names;
}

bool cc_algorithm_from_name(const std::string& name, CcAlgorithm& out) {
  for (CcAlgorithm a : {CcAlgorithm::None, CcAlgorithm::Dcqcn, CcAlgorithm::Hpcc,
                        CcAlgorithm::Dctcp, CcAlgorithm::Timely}) {
    if (name == cc_algorithm_name(a)) {
      out = a;
      return true;
    }
  }
  return false;
}

const std::vector<std::string>& cc_preset_names() {
  static const std::vector<std::string> names = {"paper", "hpcc-ns3"};
  return names;
}

// Sources in docs/references.md, "Congestion control". `paper`: the values each paper states,
// the ns-3 HPCC simulator's defaults (rdma-hw.cc attributes) where a paper gives none.
// `hpcc-ns3`: what that simulator's run script sets at 100 Gb/s (the config files in
// ../shared/peers/hpcc/configs): MIN_RATE 1000Mb/s; HPCC RATE_AI 40Mb/s, U_TARGET 0.95,
// MI_THRESH 0, FAST_REACT 1, HAS_WIN 1, VAR_WIN 1; DCTCP EWMA_GAIN 1/16, DCTCP_RATE_AI 615Mb/s,
// HAS_WIN 1, VAR_WIN 1; TIMELY RATE_AI 100Mb/s, RATE_HAI 500Mb/s, HAS_WIN 0.
bool cc_preset(const std::string& name, CcParams& out) {
  const CcAlgorithm algorithm = out.algorithm;
  const sim::Time base_rtt = out.base_rtt;
  CcParams p;
  p.algorithm = algorithm;
  p.base_rtt = base_rtt;
  p.preset = name;
  const bool ns3 = name == "hpcc-ns3";
  if (!ns3 && name != "paper") return false;
  switch (algorithm) {
    case CcAlgorithm::Hpcc:
      // HPCC paper: eta 95 %, maxStage 5, window W = B x T scaled with the rate, W_AI (here a
      // rate) as the ns-3 run script sets it at 100 Gb/s.
      p.window_bytes = 0;
      p.window_follows_rate = true;
      p.hpcc_eta = 0.95;
      p.hpcc_max_stage = ns3 ? 0 : 5;
      p.hpcc_fast_react = true;
      p.rate_ai_bps = 40'000'000;
      p.rate_hai_bps = 40'000'000;
      p.min_rate_bps = ns3 ? 1'000'000'000 : 100'000'000;
      p.hpcc_int_byte_unit = ns3 ? 128 * 4 : 1;
      p.hpcc_int_queue_unit = ns3 ? 80 * 4 : 1;
      break;
    case CcAlgorithm::Dctcp:
      p.window_bytes = 0;
      p.window_follows_rate = true;
      p.dctcp_g = 1.0 / 16;
      p.rate_ai_bps = ns3 ? 615'000'000 : 1'000'000'000;
      p.min_rate_bps = ns3 ? 1'000'000'000 : 100'000'000;
      break;
    case CcAlgorithm::Timely:
      // TIMELY paper: delta 10 Mb/s, HAI after N = 5 increases (N x delta), beta 0.8,
      // T_low 50 us, T_high 500 us.
      p.window_bytes = -1;
      p.rate_ai_bps = ns3 ? 100'000'000 : 10'000'000;
      p.rate_hai_bps = ns3 ? 500'000'000 : 50'000'000;
      p.min_rate_bps = ns3 ? 1'000'000'000 : 100'000'000;
      break;
    case CcAlgorithm::None:
    case CcAlgorithm::Dcqcn:
      break;
  }
  out = p;
  return true;
}

const sim::ParamTable<CcParams>& cc_param_table() {
  using S = CcParams;
  static const sim::ParamTable<S> t = [] {
    sim::ParamTable<S> f;
    // The algorithm and the preset are read by the loader before the other keys (the preset
    // depends on the algorithm, the knobs on the preset); listed here for the echo.
    f.push_back(sim::custom_param<S>(
        "algorithm", "choice", &S::algorithm,
        "none | dcqcn (as fabric.dcqcn.enabled) | hpcc | dctcp | timely: the sender NICs' "
        "congestion control"));
    f.push_back(sim::custom_param<S>(
        "preset", "choice", &S::preset,
        "paper | hpcc-ns3 (the ns-3 HPCC simulator's run script at 100 Gb/s): the set the "
        "knobs start from"));
    f.push_back(sim::classes_param<S>(
        "classes", &S::classes,
        "the traffic classes whose flows it controls, e.g. [3] (\"all\"); the others run "
        "without it, or under DCQCN for fabric.dcqcn.classes"));
    f.push_back(sim::time_param<S>(
        "base_rtt", &S::base_rtt,
        "base RTT T (HPCC's averaging period; the BDP window); 0 = the largest unloaded RTT "
        "over the workload's flows"));
    f.push_back(
        sim::custom_param<S>("window", "bytes", &S::window_bytes,
                             "bytes in flight per QP: none | bdp (base_rtt x line rate) | a size"));
    f.push_back(
        sim::bool_param<S>("window_follows_rate", &S::window_follows_rate,
                           "the window scales with the QP's rate / line rate (HPCC's W = R x T)"));
    f.push_back(sim::rate_param<S>("min_rate", &S::min_rate_bps, "no QP is set below this rate"));
    f.push_back(sim::rate_param<S>("rate_ai", &S::rate_ai_bps,
                                   "additive increase: HPCC's W_AI (as a rate), DCTCP's per RTT, "
                                   "TIMELY's delta"));
    f.push_back(sim::rate_param<S>("rate_hai", &S::rate_hai_bps,
                                   "TIMELY's hyper-active increase (after hai_after increases)"));
    f.push_back(
        sim::number_param<S>("hpcc_eta", &S::hpcc_eta, "HPCC target utilisation eta", 0.01, 1.0));
    f.push_back(sim::int_param<S>(
        "hpcc_max_stage", &S::hpcc_max_stage,
        "HPCC: additive updates while U < eta before a multiplicative one", 0, 1000));
    f.push_back(sim::bool_param<S>("hpcc_fast_react", &S::hpcc_fast_react,
                                   "HPCC reacts to every ACK between the once-per-RTT updates"));
    f.push_back(sim::bytes_param<S>("hpcc_int_bytes", &S::hpcc_int_bytes,
                                    "HPCC's INT header on every data packet and ACK"));
    f.push_back(sim::bytes_param<S>(
        "hpcc_int_byte_unit", &S::hpcc_int_byte_unit,
        "HPCC: switches write transmitted bytes in these units (1B = exact)", 1));
    f.push_back(sim::bytes_param<S>(
        "hpcc_int_queue_unit", &S::hpcc_int_queue_unit,
        "HPCC: switches write the queue length in these units (1B = exact)", 1));
    f.push_back(
        sim::number_param<S>("dctcp_g", &S::dctcp_g, "DCTCP alpha gain g", 1.0 / 1024, 1.0));
    f.push_back(sim::number_param<S>("timely_alpha", &S::timely_alpha,
                                     "TIMELY EWMA weight of the newest RTT difference", 0.0, 1.0));
    f.push_back(sim::number_param<S>("timely_beta", &S::timely_beta,
                                     "TIMELY multiplicative decrease factor", 0.0, 1.0));
    f.push_back(sim::time_param<S>("timely_t_low", &S::timely_t_low,
                                   "TIMELY: below this RTT, always increase"));
    f.push_back(sim::time_param<S>("timely_t_high", &S::timely_t_high,
                                   "TIMELY: above this RTT, decrease by 1 - beta(1 - T_high/rtt)",
                                   sim::Time(1)));
    f.push_back(sim::time_param<S>("timely_min_rtt", &S::timely_min_rtt,
                                   "TIMELY: normalises the RTT gradient", sim::Time(1)));
    f.push_back(sim::int_param<S>("timely_hai_after", &S::timely_hai_after,
                                  "TIMELY: increases in a row before hyper-active increase", 0,
                                  1000));
    f.push_back(sim::bytes_param<S>("timely_timestamp_bytes", &S::timely_timestamp_bytes,
                                    "TIMELY's send timestamp on every data packet and ACK"));
    return f;
  }();
  return t;
}

}  // namespace models
