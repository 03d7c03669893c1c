#include "models/cc/cc_params.hpp"

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

}  // namespace models
