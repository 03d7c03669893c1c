// A run over several processes (RunOptions::ranks), once over: every process's results —
// what its own partitions' components counted and logged — gathered into the first process's
// copy of the fabric (sim/result_archive.hpp), which then collects and writes them exactly as
// a single process would (ScenarioRun::finish).
#pragma once

#include "models/context.hpp"
#include "models/roce/pfc_gate.hpp"

namespace models {
struct Network;
class TimeseriesSampler;
class TimelineRecorder;
}  // namespace models

namespace scen {

struct Scenario;  // scenarios/loader/scenario.hpp

// Collective: every process of the run calls it, once the run is over. True in the first
// process (rank 0), which now holds every result; the others hold only their own.
// `sampler`: the run's time series, or null; `timeline`: the run's timeline (the spans each
// process's ranks recorded), or null, and `pauses`, the PFC pauses it shows.
bool gather_results(const Scenario& s, sim::Simulator& sim, models::Network& net,
                    models::TimeseriesSampler* sampler, models::TimelineRecorder* timeline,
                    models::PartitionLog<models::PauseInterval>* pauses);

}  // namespace scen
