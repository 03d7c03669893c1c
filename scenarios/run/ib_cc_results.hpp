// What InfiniBand congestion control reports: FECN marks per link and VL (links.csv,
// classes.csv), BECNs and CCTI per NIC, and the CCTI changes of sampled flows (ib_cc.csv).
#pragma once

#include "models/network.hpp"
#include "scenarios/run/run_scenario.hpp"

namespace scen {

// Before the run: the sampled flows' QPs log their CCTI changes into net.ccti_logs.
void trace_ib_cc(const Scenario& s, models::Network& net);

// After the run: fills out.links[*].fecn_marks, out.ccti_changes and res["infiniband"]["cc"]
// (nothing when congestion control is off).
void add_ib_cc_results(const Scenario& s, const models::Network& net, RunOutcome& out, Json& ib);

}  // namespace scen
