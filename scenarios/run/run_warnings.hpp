// What a finished run should tell its user beside its results: the run stopped at its time
// limit with work left, a PFC deadlock, packets dropped in a lossless class, switch headroom
// exhausted, random loss configured, PFC watchdog actions. Each becomes a line of the log
// (sim/logging.hpp, level warn) and an entry of summary.json's `warnings`.
#pragma once

#include "scenarios/run/run_scenario.hpp"

namespace scen {

// Appends the warnings of a finished run (from its headline results) to out.warnings and logs
// each.
void add_run_warnings(const Scenario& s, RunOutcome& out);

}  // namespace scen
