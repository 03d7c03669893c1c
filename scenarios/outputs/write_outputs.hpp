// Output files of a run, each written to a temporary name and renamed, so a reader never
// sees a half-written file. Everything except run_stats.json is deterministic.
#pragma once

#include <string>

#include "scenarios/run/run_scenario.hpp"

namespace scen {

// Writes summary.json, run_stats.json, flows.csv, links.csv, classes.csv and (when sampled)
// timeseries.csv and, with DCQCN, rates.csv into `dir` (created if needed).
void write_outputs(const Scenario& s, const RunOutcome& out, const std::string& dir);

// The individual renderings (tests compare them directly).
std::string summary_json(const Scenario& s, const RunOutcome& out);
std::string flows_csv(const RunOutcome& out);
std::string links_csv(const RunOutcome& out);
// Per link direction and traffic class that carried or queued anything.
std::string classes_csv(const RunOutcome& out);
std::string timeseries_csv(const RunOutcome& out);
std::string pfc_csv(const RunOutcome& out);    // time_ns,node,port,priority,event
std::string rates_csv(const RunOutcome& out);  // DCQCN rate changes of the sampled flows
// InfiniBand credit stalls: time_ns,node,port,vl,event (stall_start | stall_end),...
std::string credits_csv(const RunOutcome& out);
// FCT slowdown percentiles per flow-size bucket: (0, e0], (e0, e1], ..., (e_last, inf)
// (fct_by_size.cpp).
std::string fct_by_size_csv(const std::vector<int64_t>& edges, const RunOutcome& out);
// ib_cc.csv (outputs/ib_cc_csv.cpp): CCTI changes of the sampled flows' QPs, InfiniBand CC.
std::string ib_cc_csv(const RunOutcome& out);
std::string nics_csv(const RunOutcome& out);  // one row per NIC: its counters

// Writes `content` to `path` atomically (temporary file in the same folder, then rename).
void write_file_atomic(const std::string& path, const std::string& content);

}  // namespace scen
