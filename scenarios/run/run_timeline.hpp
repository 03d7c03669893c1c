// The run-level part of `rdmasim run --timeline`: once the run is over, the ports' held
// intervals (PFC pauses per class, InfiniBand credit stalls per VL) and the flows that are not
// collective messages join the spans the collectives and training steps recorded as they ran.
#pragma once

#include <vector>

#include "models/roce/pfc_gate.hpp"
#include "models/timeline.hpp"
#include "scenarios/run/run_scenario.hpp"

namespace scen {

// `pauses` are tagged with their link direction (index into out.links). Ports are those named
// in the options ("node:port"), else the `max_port_tracks` most held (pause + stall time).
// Throws InputError for a named port that does not exist.
void add_run_spans(models::TimelineRecorder& timeline,
                   const std::vector<models::PauseInterval>& pauses, const RunOutcome& out);

}  // namespace scen
